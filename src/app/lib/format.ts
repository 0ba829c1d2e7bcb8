/**
 * Number formatting for prices (from the symbol's pricescale), amounts (TVL, volume) and changes.
 * Pure functions: the header, chart, legend, watchlist and search share them.
 */

const SUBSCRIPT_DIGITS = '₀₁₂₃₄₅₆₇₈₉';
/** Leading zeros after "0." from which a price is written with a subscript count (0.0₅12345). */
const SUBSCRIPT_FROM_ZEROS = 4;
const DASH = '—';

/** Decimals of a pricescale (a power of ten): 100 -> 2, 1e8 -> 8. Anything else is rounded. */
export function priceDecimals(pricescale: number): number {
  if (!Number.isFinite(pricescale) || pricescale <= 1) return 0;
  return Math.min(20, Math.max(0, Math.round(Math.log10(pricescale))));
}

/** Decimals giving `significant` significant digits for `value` (adaptive precision without a pricescale). */
export function adaptiveDecimals(value: number, significant = 5): number {
  const abs = Math.abs(value);
  if (!Number.isFinite(abs) || abs === 0) return 2;
  const magnitude = Math.floor(Math.log10(abs));
  return Math.min(20, Math.max(2, significant - 1 - magnitude));
}

function subscript(n: number): string {
  return [...String(n)].map((d) => SUBSCRIPT_DIGITS[Number(d)] ?? d).join('');
}

/** Writes `0.00000123` as `0.0₅123`: long runs of zeros are hard to count. */
function compressZeros(fixed: string): string {
  const match = /^(-?)0\.(0+)(\d+)$/.exec(fixed);
  if (!match) return fixed;
  const [, sign = '', zeros = '', rest = ''] = match;
  if (zeros.length < SUBSCRIPT_FROM_ZEROS || /^0*$/.test(rest)) return fixed;
  return `${sign}0.0${subscript(zeros.length)}${rest}`;
}

function groupThousands(fixed: string): string {
  const [whole = '', fraction] = fixed.split('.');
  const grouped = whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return fraction === undefined ? grouped : `${grouped}.${fraction}`;
}

/**
 * A price with the decimals of its symbol's pricescale (about five significant digits); without a
 * pricescale (or with 0, "not known yet": a symbol still being resolved), five significant digits.
 * Tiny prices get a subscript zero count: 0.0₅12345.
 */
export function formatPrice(value: number, pricescale?: number): string {
  if (!Number.isFinite(value)) return DASH;
  const decimals = pricescale === undefined || !(pricescale > 0) ? adaptiveDecimals(value) : priceDecimals(pricescale);
  let fixed = value.toFixed(decimals);
  // A price far below its (stale) pricescale would read 0.0000: fall back to significant digits.
  if (value !== 0 && Number(fixed) === 0) fixed = value.toFixed(adaptiveDecimals(value));
  if (/^-?0\.0*$/.test(fixed) && Number(fixed) === 0) fixed = fixed.replace(/^-/, '');
  return compressZeros(groupThousands(fixed));
}

/**
 * The amount formats, made at their first use: the first Intl format of a page starts ICU (about 10 ms
 * of the main thread), which the page's first picture of the chart (src/app/boot/boot-chart.ts) does not
 * wait for when this module is among its imports.
 */
let formats: { readonly compact: Intl.NumberFormat; readonly plain: Intl.NumberFormat } | undefined;
const amountFormats = () =>
  (formats ??= { compact: new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 2 }), plain: new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 }) });

/** An amount (TVL, volume) compactly: 9.52M, 12.3K, 742.5; below 1, significant digits. */
export function formatAmount(value: number): string {
  if (!Number.isFinite(value)) return DASH;
  const abs = Math.abs(value);
  if (abs >= 10_000) return amountFormats().compact.format(value);
  if (abs >= 1 || abs === 0) return amountFormats().plain.format(value);
  return formatPrice(value);
}

/** A signed amount: +1.2K, −340, 0. */
export function formatSignedAmount(value: number): string {
  if (!Number.isFinite(value)) return DASH;
  const text = formatAmount(Math.abs(value));
  if (value > 0) return `+${text}`;
  if (value < 0) return `−${text}`;
  return text;
}

/** A percent change as written (two decimals): what its sign and colour follow. */
function roundedPercent(value: number): number {
  return Math.sign(value) * Number(Math.abs(value).toFixed(2));
}

/** A percent change: +13.12%, −0.45%, 0.00%. */
export function formatPercent(value: number): string {
  if (!Number.isFinite(value)) return DASH;
  const rounded = roundedPercent(value);
  if (rounded === 0) return '0.00%';
  const text = `${Math.abs(value).toFixed(2)}%`;
  return rounded > 0 ? `+${text}` : `−${text}`;
}

export type Trend = 'up' | 'down' | 'flat';

/** The direction of a change, for colouring (of an amount written in full: formatSignedAmount). */
export function trendOf(value: number): Trend {
  if (!Number.isFinite(value) || value === 0) return 'flat';
  return value > 0 ? 'up' : 'down';
}

/** The direction of a percent change as formatPercent writes it: one that rounds to 0.00% is flat. */
export function percentTrend(value: number): Trend {
  return Number.isFinite(value) ? trendOf(roundedPercent(value)) : 'flat';
}
