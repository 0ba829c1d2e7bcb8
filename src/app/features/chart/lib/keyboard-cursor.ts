import type { Bar } from '@/datafeed';
import { formatDateTime, type TimeZoneMode } from '@/app/lib/time-format';
import type { PriceView } from './price-view';

/**
 * Bars each key moves the cursor by: the keys of WAI-ARIA APG's slider pattern
 * (https://www.w3.org/WAI/ARIA/apg/patterns/slider/): Right and Up one newer, Left and Down one older,
 * Page Up and Page Down ten, Home and End to the first and last bar loaded.
 */
const MOVES: Readonly<Record<string, number>> = {
  ArrowRight: 1,
  ArrowUp: 1,
  ArrowLeft: -1,
  ArrowDown: -1,
  PageUp: 10,
  PageDown: -10,
  Home: -Infinity,
  End: Infinity,
};

/** What the cursor needs of the chart (chart.ts). */
export interface CursorHost {
  /** The crosshair marks the cursor's bar (as the tape's mark does), and the range in view follows it. */
  readonly view: Pick<PriceView, 'mark' | 'visibleRange' | 'setVisibleRange'>;
  /** The bars shown, oldest first. */
  bars(): readonly Bar[];
  /** The legend shows the bar at true time `time` (undefined: the newest), as for the pointer over it. */
  hover(time: number | undefined): void;
  /** Enter or Space on the bar at true time `time`: what a click on it does. */
  open(time: number): void;
  /** A price with the legend's decimals. */
  price(value: number): string;
  /** The zone the bars' times are shown in. */
  zone(): TimeZoneMode;
}

/** The chart's keyboard cursor, as the chart drives it. */
export interface KeyboardCursor {
  /** Answers the keys of `place` (the chart's place), and no longer those of the place before (none: undefined). */
  follow(place: HTMLElement | undefined): void;
  /** Whether the cursor is shown (lightweight-charts moving its crosshair must not move the legend then). */
  readonly active: boolean;
  /** The pointer took over: the cursor is forgotten, leaving the crosshair and legend to the pointer. */
  forget(): void;
  /** The bars or the range in view changed: the cursor is shown on its bar again (gone: forgotten), without scrolling. */
  refresh(): void;
}

/**
 * The chart's keyboard cursor, one job: the keys on the chart's focusable place (a slider to assistive
 * technology: components/price-chart.tsx) move a cursor from bar to bar, starting at the newest; Enter
 * and Space open the bar under it, Escape takes it away. Its bar is shown with the crosshair and the
 * legend, kept in view, and is the slider's value (aria-valuetext: its time and O H L C, read out as it
 * changes, which the pointer never does) and the place's `data-cursor` (its true time). It is hidden
 * while the chart has no focus and comes back with the focus (the candle's trades, closed, give the
 * focus back to the chart); the pointer forgets it. Kept by time: older bars loaded in front of it, it
 * stays on its bar. A chunk of its own, loaded when the chart first takes the focus (chart.ts); a
 * closure rather than a class, whose names minify.
 */
export function keyboardCursor(host: CursorHost): KeyboardCursor {
  /** The true time of the cursor's bar. */
  let time: number | undefined;
  let shown = false;
  let place: HTMLElement | undefined;

  const index = (): number | undefined => {
    const i = time === undefined ? -1 : host.bars().findIndex((bar) => bar.time === time);
    return i < 0 ? undefined : i;
  };

  /** The slider's value (from 1, aria-valuemin, to the number of bars; the newest without a cursor) and `data-cursor`. */
  const write = () => {
    if (!place) return;
    const bars = host.bars();
    const count = String(Math.max(1, bars.length));
    const i = shown ? index() : undefined;
    const bar = i === undefined ? undefined : bars[i];
    const price = host.price;
    place.setAttribute('aria-valuemax', count);
    place.setAttribute('aria-valuenow', i === undefined ? count : String(i + 1));
    place.setAttribute(
      'aria-valuetext',
      bar
        ? `${formatDateTime(bar.time, host.zone(), true)}: open ${price(bar.open)}, high ${price(bar.high)}, low ${price(bar.low)}, close ${price(bar.close)}`
        : 'No candle chosen',
    );
    place.dataset.cursor = bar ? String(bar.time) : '';
  };

  /** Bar `i` under the cursor (`scroll`: kept in view, a bar's room from either edge, the zoom as it is), or none. */
  const put = (i: number | undefined, scroll = true) => {
    const bars = host.bars();
    const view = host.view;
    const range = view.visibleRange();
    time = i === undefined ? undefined : bars[i]?.time;
    shown = time !== undefined;
    const shift =
      !shown || i === undefined || !scroll || !range
        ? 0
        : i - 1 < range.from
          ? i - 1 - range.from
          : i + 1 > range.to
            ? i + 1 - range.to
            : 0;
    if (range && shift !== 0) view.setVisibleRange({ from: range.from + shift, to: range.to + shift });
    // The crosshair is set at a price's height on the price scale as it is: again once the chart has
    // drawn the range it moved to (and the price scale that range fits).
    const mark = () => view.mark(shown ? index() : undefined, host.bars());
    mark();
    if (shown) requestAnimationFrame(() => shown && mark());
    host.hover(time);
    write();
  };

  const onKey = (event: KeyboardEvent) => {
    const count = host.bars().length;
    // A key another part took (a selected drawing moving), or a shortcut, is not the cursor's.
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey || count === 0) return;
    const i = shown ? index() : undefined;
    const move = MOVES[event.key];
    // Without a cursor, a step puts it on the newest bar; Home and End go where they go.
    if (move !== undefined)
      put(
        Math.max(
          0,
          Math.min(count - 1, i === undefined && Number.isFinite(move) ? count - 1 : (i ?? count - 1) + move),
        ),
      );
    else if (event.key === 'Enter' || event.key === ' ') {
      put(i ?? count - 1);
      if (time !== undefined) host.open(time);
    } else if (event.key === 'Escape' && time !== undefined) put(undefined);
    else return;
    event.preventDefault();
  };

  const events = [
    ['keydown', onKey as (event: Event) => void],
    // The chart left: the cursor is hidden, its bar kept to come back to.
    [
      'blur',
      () => {
        if (!shown) return;
        shown = false;
        host.view.mark(undefined, host.bars());
        host.hover(undefined);
        write();
      },
    ],
    ['focus', () => !shown && time !== undefined && put(index())],
  ] as const;

  return {
    follow(next) {
      for (const [type, listener] of events) {
        place?.removeEventListener(type, listener);
        next?.addEventListener(type, listener);
      }
      place = next;
      write();
    },
    get active() {
      return shown;
    },
    forget() {
      time = undefined;
      shown = false;
      write();
    },
    refresh() {
      const i = index();
      if (shown) put(i, false);
      else {
        if (i === undefined) time = undefined;
        write();
      }
    },
  };
}
