/** A bar to export: time in Unix milliseconds (the datafeed's unit). */
export interface ExportBar {
  readonly time: number;
  readonly open: number;
  readonly high: number;
  readonly low: number;
  readonly close: number;
  readonly volume: number;
  readonly tvl: number;
}

export const CSV_HEADER = ['time_utc', 'unix_time', 'open', 'high', 'low', 'close', 'volume', 'tvl'] as const;

/** Numbers as JavaScript writes them (full precision, no grouping, no exponent for ordinary prices). */
function number(value: number): string {
  if (!Number.isFinite(value)) return '';
  const text = String(value);
  // 1e-7 and the like: write them out so spreadsheets keep the digits.
  return /e/i.test(text) ? value.toFixed(20).replace(/\.?0+$/, '') : text;
}

/** Bars as CSV (RFC 4180, CRLF line ends): one header line, one line per bar, times in UTC ISO 8601. */
export function barsToCsv(bars: readonly ExportBar[]): string {
  const lines = [CSV_HEADER.join(',')];
  for (const bar of bars) {
    const seconds = Math.floor(bar.time / 1000);
    lines.push(
      [new Date(seconds * 1000).toISOString().replace('.000Z', 'Z'), String(seconds), number(bar.open), number(bar.high), number(bar.low), number(bar.close), number(bar.volume), number(bar.tvl)].join(','),
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
