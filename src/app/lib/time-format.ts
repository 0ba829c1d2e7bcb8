/** Where times are shown: UTC (the data's own zone) or the browser's local time zone. */
export type TimeZoneMode = 'utc' | 'local';

const pad = (n: number) => String(n).padStart(2, '0');

interface Parts {
  readonly year: number;
  readonly month: number;
  readonly day: number;
  readonly hours: number;
  readonly minutes: number;
}

function partsOf(seconds: number, zone: TimeZoneMode): Parts {
  const d = new Date(seconds * 1000);
  return zone === 'utc'
    ? {
        year: d.getUTCFullYear(),
        month: d.getUTCMonth() + 1,
        day: d.getUTCDate(),
        hours: d.getUTCHours(),
        minutes: d.getUTCMinutes(),
      }
    : {
        year: d.getFullYear(),
        month: d.getMonth() + 1,
        day: d.getDate(),
        hours: d.getHours(),
        minutes: d.getMinutes(),
      };
}

/** `2025-01-31 14:05` (with ` UTC` in UTC mode when `withZone`). */
export function formatDateTime(seconds: number, zone: TimeZoneMode, withZone = false): string {
  const p = partsOf(seconds, zone);
  const text = `${p.year}-${pad(p.month)}-${pad(p.day)} ${pad(p.hours)}:${pad(p.minutes)}`;
  return withZone && zone === 'utc' ? `${text} UTC` : text;
}

/** `14:05:09`: a time of day with seconds (the trades tape). */
export function formatTimeOfDay(seconds: number, zone: TimeZoneMode): string {
  const d = new Date(seconds * 1000);
  const [h, m, s] =
    zone === 'utc'
      ? [d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds()]
      : [d.getHours(), d.getMinutes(), d.getSeconds()];
  return `${pad(h)}:${pad(m)}:${pad(s)}`;
}

/** `2025-01-31` */
export function formatDate(seconds: number, zone: TimeZoneMode): string {
  const p = partsOf(seconds, zone);
  return `${p.year}-${pad(p.month)}-${pad(p.day)}`;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/**
 * A time-axis label: the hour and minute inside a day, the day at a day boundary, the month at a month
 * boundary (`tickType` is lightweight-charts' TickMarkType: 0 year, 1 month, 2 day of month, 3 time,
 * 4 time with seconds).
 */
export function formatTick(seconds: number, tickType: number, zone: TimeZoneMode): string {
  const p = partsOf(seconds, zone);
  switch (tickType) {
    case 0:
      return String(p.year);
    case 1:
      return MONTHS[p.month - 1] ?? String(p.month);
    case 2:
      return String(p.day);
    default:
      return `${pad(p.hours)}:${pad(p.minutes)}`;
  }
}
