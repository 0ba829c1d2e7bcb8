import { formatAmount, formatPercent, formatPrice, percentTrend } from '@/app/lib/format';
import type { LegendBar } from './chart-style';

/** The legend's values: label, what it shows of a bar, and whether phones tuck it away (`extra`). */
const FIELDS: readonly {
  readonly label: string;
  readonly extra: boolean;
  readonly kind: 'price' | 'amount';
  readonly testId?: string;
  readonly hidden?: boolean;
}[] = [
  { label: 'O', extra: true, kind: 'price' },
  { label: 'H', extra: true, kind: 'price' },
  { label: 'L', extra: true, kind: 'price' },
  { label: 'C', extra: false, kind: 'price', testId: 'legend-close' },
  { label: 'Vol', extra: true, kind: 'amount' },
  { label: 'TVL', extra: true, kind: 'amount' },
  { label: 'Change', extra: false, kind: 'amount', hidden: true },
];

let legends = 0;

/**
 * The chart's legend, one job: O H L C, volume, TVL and change of the bar under the crosshair (the
 * newest bar otherwise), over the chart's top left, beside the chart's image rather than in it (an
 * image's content is not read out, and the legend has a button). On narrow screens it is compact:
 * close and change on one line, the rest behind the "All bar values" button. Plain DOM, made with the
 * chart: it answers the pointer from the page's first paint on, before React has rendered anything.
 */
export class LegendView {
  readonly element: HTMLElement;
  private readonly title: HTMLElement;
  private readonly values: HTMLElement[];
  private readonly change: HTMLElement;
  private readonly more: HTMLButtonElement;
  private pricescale: number | undefined;
  private shown: LegendBar | undefined;

  /** Made after `place` (the chart's image, whose content is not exposed: the legend is read beside it). */
  constructor(place: HTMLElement) {
    const doc = place.ownerDocument;
    const make = <K extends keyof HTMLElementTagNameMap>(
      tag: K,
      className?: string,
      text?: string,
    ): HTMLElementTagNameMap[K] => {
      const element = doc.createElement(tag);
      if (className) element.className = className;
      if (text !== undefined) element.textContent = text;
      return element;
    };
    this.element = make('div', 'chart-legend');
    this.element.dataset.testid = 'chart-legend';
    this.element.dataset.expanded = 'false';
    this.element.setAttribute('role', 'group');
    this.element.setAttribute('aria-label', 'Bar values');
    this.element.hidden = true;
    this.title = make('span', 'chart-legend__title');
    this.title.hidden = true;
    const list = make('dl', 'chart-legend__values');
    list.id = `chart-legend-${++legends}`;
    this.values = FIELDS.map((field) => {
      const item = make('div', field.extra ? 'chart-legend__extra' : undefined);
      const value = make('dd', `chart-legend__${field.kind}`);
      if (field.testId) value.dataset.testid = field.testId;
      item.append(make('dt', field.hidden ? 'visually-hidden' : undefined, field.label), value);
      list.append(item);
      return value;
    });
    this.change = this.values.at(-1) ?? make('dd');
    this.more = make('button', 'chart-legend__more', '+');
    this.more.type = 'button';
    this.more.setAttribute('aria-expanded', 'false');
    this.more.setAttribute('aria-controls', list.id);
    this.more.setAttribute('aria-label', 'All bar values');
    this.more.addEventListener('click', () => {
      const expanded = this.element.dataset.expanded !== 'true';
      this.element.dataset.expanded = String(expanded);
      this.more.setAttribute('aria-expanded', String(expanded));
      this.more.textContent = expanded ? '−' : '+';
    });
    // The title after the values: it comes once the pair is resolved, and must not push them aside.
    this.element.append(list, this.title, this.more);
    this.follow(place);
  }

  /** Puts the legend right after `place` (where the chart is), over it. */
  follow(place: HTMLElement): void {
    if (place.parentElement) place.after(this.element);
    else place.append(this.element);
  }

  /** The pair it names (`SNEK/ADA on Aggregate`), when known. */
  setTitle(title: string | undefined): void {
    this.title.textContent = title ?? '';
    this.title.hidden = !title;
  }

  /** Prices with the decimals of this pricescale; 0 or undefined (not known yet): significant digits. */
  setPricescale(pricescale: number | undefined): void {
    if (pricescale === this.pricescale) return;
    this.pricescale = pricescale;
    this.show(this.shown);
  }

  /** Shows a bar's values (undefined: none, and the legend is hidden). */
  show(bar: LegendBar | undefined): void {
    this.shown = bar;
    this.element.hidden = bar === undefined;
    if (!bar) return;
    const price = this.price;
    const texts = [
      price(bar.open),
      price(bar.high),
      price(bar.low),
      price(bar.close),
      formatAmount(bar.volume),
      formatAmount(bar.tvl),
      formatPercent(bar.change),
    ];
    texts.forEach((text, i) => {
      const value = this.values[i];
      if (value && value.textContent !== text) value.textContent = text;
    });
    this.change.className = `chart-legend__amount trend trend--${percentTrend(bar.change)}`;
  }

  /** A price with the legend's decimals (the keyboard's cursor reads them out). */
  readonly price = (value: number): string => formatPrice(value, this.pricescale);

  /** What it shows (tests). */
  bar(): LegendBar | undefined {
    return this.shown;
  }

  dispose(): void {
    this.element.remove();
  }
}
