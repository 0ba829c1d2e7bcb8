/** The drawing tools, in the toolbar's order. */
export const DRAWING_KINDS = ['hline', 'trend', 'ray', 'rect', 'measure', 'note'] as const;
export type DrawingKind = (typeof DRAWING_KINDS)[number];

/** Each tool's name (buttons, the list of drawings) and how many points it takes. */
export const TOOLS: Readonly<
  Record<DrawingKind, { readonly name: string; readonly short: string; readonly points: 1 | 2 }>
> = {
  hline: { name: 'Horizontal line', short: 'H-line', points: 1 },
  trend: { name: 'Trend line', short: 'Trend', points: 2 },
  ray: { name: 'Ray', short: 'Ray', points: 2 },
  rect: { name: 'Rectangle', short: 'Rect', points: 2 },
  measure: { name: 'Measure', short: 'Measure', points: 2 },
  note: { name: 'Text note', short: 'Note', points: 1 },
};

/**
 * A point of a drawing, anchored to the market rather than to the screen: a true time (Unix seconds,
 * any second: not only a bar's) and a price as the datafeed has it (the symbol's canonical
 * orientation, ADA per token). Shown inverted as 1 / price, in USD at ADA/USD of its time.
 */
export interface Anchor {
  readonly time: number;
  readonly price: number;
}

export interface Drawing {
  readonly id: string;
  readonly kind: DrawingKind;
  /** One point (horizontal line, note) or two. */
  readonly points: readonly Anchor[];
  /** A CSS hex colour, `#rrggbb`. */
  readonly color: string;
  /** A note's text. */
  readonly text?: string;
}

/** New drawings' colour: readable on both themes' backgrounds. */
export const DEFAULT_COLOR = '#3b82f6';
/** A note's text before it is edited. */
export const DEFAULT_NOTE = 'Note';
/** A note's longest text; more is cut (a note is a label, not a document). */
export const MAX_NOTE = 200;

/** What the measure tool says between two points, in prices as shown. */
export interface Measured {
  readonly change: number;
  /** The change in percent of the first price (undefined when it is 0). */
  readonly percent: number | undefined;
  readonly bars: number;
  readonly seconds: number;
}

export function measure(
  from: { price: number; logical: number; time: number },
  to: { price: number; logical: number; time: number },
): Measured {
  const change = to.price - from.price;
  return {
    change,
    percent: from.price !== 0 ? (change / Math.abs(from.price)) * 100 : undefined,
    bars: Math.round(to.logical - from.logical),
    seconds: Math.round(to.time - from.time),
  };
}

/** `2d 3h`, `45m`, `-1h 30m`: a span in its two largest units. */
export function formatSpan(seconds: number): string {
  const sign = seconds < 0 ? '-' : '';
  let rest = Math.abs(Math.round(seconds));
  const parts: string[] = [];
  for (const [unit, size] of [
    ['d', 86_400],
    ['h', 3600],
    ['m', 60],
    ['s', 1],
  ] as const) {
    const n = Math.floor(rest / size);
    rest -= n * size;
    if (n > 0 && parts.length < 2) parts.push(`${n}${unit}`);
    else if (parts.length > 0) break;
  }
  return parts.length === 0 ? '0m' : sign + parts.join(' ');
}

/** `+4.52 %`, `−1.00 %`: a percent with its sign. */
export function formatPercent(percent: number | undefined): string {
  if (percent === undefined || !Number.isFinite(percent)) return '—';
  return `${percent >= 0 ? '+' : '−'}${Math.abs(percent).toFixed(2)} %`;
}

/** A drawing's name in lists and for screen readers: `Trend line 2`. */
export function drawingName(drawing: Drawing, drawings: readonly Drawing[]): string {
  const same = drawings.filter((d) => d.kind === drawing.kind);
  const n = same.indexOf(drawing) + 1;
  const base = `${TOOLS[drawing.kind].name} ${n}`;
  return drawing.kind === 'note' && drawing.text ? `${base}: ${drawing.text}` : base;
}
