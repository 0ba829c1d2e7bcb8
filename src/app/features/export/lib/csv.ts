import type { Bar } from '@/shared/bars';

export const CSV_HEADER = ['time_utc', 'unix_time', 'open', 'high', 'low', 'close', 'volume', 'tvl'] as const;

/**
 * The header of bars in a currency: in the pair's own units (prices in its base, volume and TVL in its
 * base: ADA for ADA pairs) the plain CSV_HEADER; in USD every value column says so (`close_usd`).
 */
export function csvHeader(currency: 'ada' | 'usd' = 'ada'): readonly string[] {
  return currency === 'usd' ? CSV_HEADER.map((name, i) => (i < 2 ? name : `${name}_usd`)) : CSV_HEADER;
}

/**
 * Numbers as JavaScript writes them (the shortest digits that read back as the same number, no
 * grouping). Small ones (1e-7 and below) are written out in decimals, every digit kept, so spreadsheets
 * show them as prices: `0.00000015`. Huge ones (1e21 and up) keep their exponent, a number to every
 * spreadsheet (decimals would be made-up digits; the former toFixed(20) and trailing-zero trim wrote 1e300 as
 * `1e+3` and 1e-25 as `0`, found while writing the soak's CSV part).
 */
function number(value: number): string {
  if (!Number.isFinite(value)) return '';
  const text = String(value);
  const small = /^(-?)(\d)(?:\.(\d+))?e-(\d+)$/.exec(text);
  if (!small) return text;
  const [, sign = '', first = '', rest = '', exponent = '0'] = small;
  return `${sign}0.${'0'.repeat(Number(exponent) - 1)}${first}${rest}`;
}

/**
 * First characters that make a spreadsheet read a cell as a formula (`=`, `+`, `-`, `@`) or that it
 * drops before reading one (tab, carriage return): OWASP's "CSV Injection" list.
 */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * A text field as RFC 4180 wants it: quoted (quotes doubled) when it holds a comma, quote or line
 * break; and one that a spreadsheet would run as a formula (a symbol name is made of tickers anyone
 * may choose: `=HYPERLINK(...)`) starts with an apostrophe, which spreadsheets show as text and hide
 * (OWASP "CSV Injection"). Numbers are never fields: a negative number stays a number.
 */
export function csvField(text: string): string {
  const safe = FORMULA_START.test(text) ? `'${text}` : text;
  return /[",\r\n]/.test(safe) ? `"${safe.replace(/"/g, '""')}"` : safe;
}

const isoTime = (seconds: number) => new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');

/** A compared line to export: its column header and its points (Unix seconds, ascending). */
export interface ExportSeries {
  readonly header: string;
  readonly points: readonly { readonly time: number; readonly value: number }[];
}

/**
 * Compared lines as CSV, wide: `time_utc,unix_time`, then one column per line; one line per time any
 * of them has (ascending), a cell left empty where a line has no point at that time.
 */
export function seriesToCsv(series: readonly ExportSeries[]): string {
  const lines = [['time_utc', 'unix_time', ...series.map((s) => csvField(s.header))].join(',')];
  const columns = series.map((s) => new Map(s.points.map((p) => [p.time, p.value])));
  const times = [...new Set(series.flatMap((s) => s.points.map((p) => p.time)))].sort((a, b) => a - b);
  for (const time of times) {
    lines.push(
      [isoTime(time), String(time), ...columns.map((column) => number(column.get(time) ?? Number.NaN))].join(','),
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}

/** Bars as CSV (RFC 4180, CRLF line ends): one header line (csvHeader), one line per bar, times in UTC ISO 8601. */
export function barsToCsv(bars: readonly Bar[], currency: 'ada' | 'usd' = 'ada'): string {
  const lines = [csvHeader(currency).map(csvField).join(',')];
  for (const bar of bars) {
    lines.push(
      [
        isoTime(bar.time),
        String(bar.time),
        number(bar.open),
        number(bar.high),
        number(bar.low),
        number(bar.close),
        number(bar.volume),
        number(bar.tvl),
      ].join(','),
    );
  }
  return `${lines.join('\r\n')}\r\n`;
}

/** A file name for an export: `ADA.SNEK_Aggregate_Pool1-60-20250131T1405Z.csv`, safe on every OS. */
export function exportFileName(symbol: string, resolution: string, nowMs: number, extension: 'csv' | 'png'): string {
  const stamp = new Date(nowMs).toISOString().slice(0, 16).replace(/[-:]/g, '');
  const safe = `${symbol}-${resolution}`.replace(/[^A-Za-z0-9._-]+/g, '_');
  return `${safe}-${stamp}Z.${extension}`;
}
