import { formatDate, formatDateTime, formatTick, type TimeZoneMode } from './time-format';

/** The zone's offset from UTC at a moment, in seconds (New York in winter: −18000). */
export function localOffsetSeconds(utcSeconds: number): number {
  return -new Date(utcSeconds * 1000).getTimezoneOffset() * 60;
}

/**
 * Bar times as lightweight-charts sees them. It lays out and labels every time as UTC, so in Local
 * mode each bar's time is moved by the zone's offset at that time ("display time"): day marks then
 * fall on local midnight. Only the chart sees display times; the datafeed, the URL, the data
 * attributes and exports keep true UTC seconds, and the labels are written from the true time.
 *
 * - Daily bars are UTC days: they stay where they are and are labelled with their UTC date.
 * - When daylight saving time ends a local hour repeats: bars whose display time would not follow
 *   the previous one are put one second after it (the time scale spaces bars by index, not by time),
 *   and keep their true time's label.
 */
export class ChartTimes {
  private shift = false;
  private daily = false;
  private zone: TimeZoneMode = 'utc';
  private readonly actualOf = new Map<number, number>();
  private lastActual: number | undefined;
  private lastDisplay: number | undefined;

  /** Sets the zone and the kind of bars; true when display times change (the data must be set again). */
  configure(zone: TimeZoneMode, daily: boolean): boolean {
    const shift = zone === 'local' && !daily;
    const changed = shift !== this.shift;
    this.shift = shift;
    this.daily = daily;
    this.zone = zone;
    return changed;
  }

  /** Display times of ascending true times (Unix seconds), from scratch. */
  reset(times: readonly number[]): number[] {
    this.actualOf.clear();
    this.lastActual = undefined;
    this.lastDisplay = undefined;
    return times.map((time) => this.next(time));
  }

  /** The display time of a time at or after the last one given (a live bar: the same bar or a new one). */
  next(time: number): number {
    if (time === this.lastActual && this.lastDisplay !== undefined) return this.lastDisplay;
    let display = this.shift ? time + localOffsetSeconds(time) : time;
    if (this.lastDisplay !== undefined && display <= this.lastDisplay) display = this.lastDisplay + 1;
    if (this.shift) this.actualOf.set(display, time);
    this.lastActual = time;
    this.lastDisplay = display;
    return display;
  }

  /** The true time (Unix seconds) of a display time. */
  actual(display: number): number {
    if (!this.shift) return display;
    return this.actualOf.get(display) ?? display - localOffsetSeconds(display - localOffsetSeconds(display));
  }

  /** The crosshair's time label. */
  readonly label = (display: number): string =>
    this.daily ? formatDate(display, 'utc') : formatDateTime(this.actual(display), this.zone, true);

  /** A time-axis label (`tickType`: lightweight-charts' TickMarkType). */
  readonly tick = (display: number, tickType: number): string =>
    formatTick(this.actual(display), tickType, this.daily ? 'utc' : this.zone);
}
