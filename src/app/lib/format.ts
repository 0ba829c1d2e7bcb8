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

/** The shortest decimal writing of a non-negative number (what String gives, without an exponent). */
function plainDecimal(value: number): string {
  const text = String(value);
  const exponent = /^(\d+)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
  if (!exponent) return text;
  const [, whole = '', fraction = '', power = '0'] = exponent;
  const digits = whole + fraction;
  const point = whole.length + Number(power);
  if (point <= 0) return `0.${'0'.repeat(-point)}${digits}`;
  if (point >= digits.length) return digits + '0'.repeat(point - digits.length);
  return `${digits.slice(0, point)}.${digits.slice(point)}`;
}

/** Adds one to a string of decimal digits. */
function incremented(digits: string): string {
  let out = '';
  let carry = 1;
  for (let i = digits.length - 1; i >= 0; i--) {
    const d = digits.charCodeAt(i) - 48 + carry;
    carry = d > 9 ? 1 : 0;
    out = String(d % 10) + out;
  }
  return carry ? `1${out}` : out;
}

/**
 * A non-negative number with at most two decimals, rounded half away from zero on its decimal writing
 * and without trailing zeros: how Intl.NumberFormat's `maximumFractionDigits: 2` writes it.
 */
function twoDecimals(value: number): string {
  const [whole = '0', fraction = ''] = plainDecimal(value).split('.');
  let digits = whole + fraction.slice(0, 2).padEnd(2, '0');
  if (fraction.charCodeAt(2) >= 53) digits = incremented(digits);
  const kept = digits.slice(-2).replace(/0+$/, '');
  const head = digits.slice(0, -2) || '0';
  return kept === '' ? head : `${head}.${kept}`;
}

/** Compact units, largest first. */
const UNITS: readonly (readonly [number, string])[] = [
  [1e12, 'T'],
  [1e9, 'B'],
  [1e6, 'M'],
  [1e3, 'K'],
];

/**
 * An amount of 10,000 or more as en-US compact notation writes it (9.52M, 12.35K): written here rather
 * than with Intl.NumberFormat, whose first use starts ICU (10-40 ms of the main thread) while the chart's
 * first draw labels its volume and TVL scales with these. tests/app/format.test.ts holds it to Intl's.
 */
function compactAmount(abs: number): string {
  for (let u = 0; u < UNITS.length; u++) {
    const [size, suffix] = UNITS[u] ?? [1, ''];
    if (abs < size) continue;
    const text = twoDecimals(abs / size);
    // 999.995K rounds to 1000K, which compact notation writes as the next unit.
    const larger = UNITS[u - 1];
    if (larger && Number(text) >= 1000) return `${twoDecimals(abs / larger[0])}${larger[1]}`;
    return `${text}${suffix}`;
  }
  return twoDecimals(abs);
}

/** An amount (TVL, volume) compactly: 9.52M, 12.35K, 742.5, 1,234.57; below 1, significant digits. */
export function formatAmount(value: number): string {
  if (!Number.isFinite(value)) return DASH;
  const abs = Math.abs(value);
  const sign = value < 0 ? '-' : '';
  if (abs >= 10_000) return sign + compactAmount(abs);
  if (abs >= 1 || abs === 0) return sign + groupThousands(twoDecimals(abs));
  return formatPrice(value);
}

/**
 * A count with thousands separators (6,471), as en-US writes it: without Intl (toLocaleString starts ICU,
 * 10-50 ms of the main thread, on the way to the overview's first rows).
 */
export function formatCount(value: number): string {
  return Number.isInteger(value) ? groupThousands(String(value)) : groupThousands(twoDecimals(value));
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
