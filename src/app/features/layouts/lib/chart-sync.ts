import {
  MismatchDirection,
  type IChartApi,
  type ISeriesApi,
  type LogicalRange,
  type MouseEventParams,
  type SeriesType,
  type Time,
} from 'lightweight-charts';
import { chartTurns } from '@/app/lib/frame-queue';

/** One chart of a layout, as the sync needs it: lightweight-charts' chart and its main series. */
export interface SyncedChart {
  readonly chart: IChartApi;
  readonly series: ISeriesApi<SeriesType>;
  /** Told the time its crosshair was set at (undefined: cleared): lightweight-charts tells its listeners nothing then. */
  hover?(time: number | undefined): void;
}

/** What a chart reports to the sync: the events of lightweight-charts and the pointer's whereabouts. */
const LEAD_EVENTS = ['pointerenter', 'pointerdown', 'wheel', 'touchstart', 'keydown', 'focusin'] as const;

/**
 * Keeps several charts' crosshair and time range in step, as lightweight-charts' own "syncing charts"
 * tutorial does (subscribeCrosshairMove → setCrosshairPosition on the others, the time scale's range
 * → the others'), with one difference: the charts here show different pairs and resolutions, so the
 * range kept is the visible TIME range (not the logical one: bar indexes differ), and the crosshair
 * is set at the same time on the other chart's own bar there (its close as the price).
 *
 * Only the chart the user is working in leads (the last one the pointer entered, or that was
 * touched, scrolled or focused; the first chart until then): a range set on another chart snaps to
 * that chart's bars and would otherwise come back to the first one, changed, and go round. A
 * follower that moves on its own (its first bars, older bars, a live bar) is put back in step.
 */
export class ChartSync {
  private charts: SyncedChart[] = [];
  private leader = -1;
  private readonly stops: (() => void)[] = [];
  /** Per chart, its turn at taking the leader's time range (one job each, run in the charts' turns). */
  private follows: (() => void)[] = [];

  /** Keeps these charts in step (replacing the ones before). */
  set(charts: readonly SyncedChart[]): void {
    this.clear();
    this.charts = [...charts];
    charts.forEach((link, index) => {
      const element = link.chart.chartElement();
      const lead = () => {
        this.leader = index;
      };
      for (const type of LEAD_EVENTS) element.addEventListener(type, lead, { passive: true });
      const leave = () => {
        if (this.leader !== index) return;
        this.others(index, (other) => {
          other.chart.clearCrosshairPosition();
          other.hover?.(undefined);
        });
      };
      element.addEventListener('pointerleave', leave);
      const onMove = (param: MouseEventParams) => this.moved(index, param);
      const onRange = (range: LogicalRange | null) => this.ranged(index, range);
      link.chart.subscribeCrosshairMove(onMove);
      link.chart.timeScale().subscribeVisibleLogicalRangeChange(onRange);
      const follow = () => {
        const range = this.charts[this.lead]?.chart.timeScale().getVisibleRange();
        if (range && this.charts[index] === link && index !== this.lead) setRange(link, range);
      };
      this.follows[index] = follow;
      this.stops.push(() => {
        chartTurns.cancel(follow);
        for (const type of LEAD_EVENTS) element.removeEventListener(type, lead);
        element.removeEventListener('pointerleave', leave);
        link.chart.unsubscribeCrosshairMove(onMove);
        link.chart.timeScale().unsubscribeVisibleLogicalRangeChange(onRange);
      });
    });
  }

  /** Lets the charts go (each keeps its own crosshair and range). */
  clear(): void {
    for (const stop of this.stops.splice(0)) stop();
    this.charts = [];
    this.follows = [];
    this.leader = -1;
  }

  /** The chart that leads: the one the user works in, the first until then. */
  private get lead(): number {
    return this.leader < 0 ? 0 : this.leader;
  }

  /** The time range of chart `index` given to the others now (as when the sync is switched on). */
  align(index = 0): void {
    const source = this.charts[index];
    const range = source?.chart.timeScale().getVisibleRange();
    if (range) this.others(index, (other) => setRange(other, range));
  }

  private moved(index: number, param: MouseEventParams): void {
    if (index !== this.leader) return;
    const time = param.time;
    this.others(index, (other) => {
      const price = time === undefined || !param.point ? undefined : closeAt(other, time);
      if (time === undefined || price === undefined) {
        other.chart.clearCrosshairPosition();
        other.hover?.(undefined);
      } else {
        other.chart.setCrosshairPosition(price, time, other.series);
        other.hover?.(typeof time === 'number' ? time : undefined);
      }
    });
  }

  private ranged(index: number, logical: LogicalRange | null): void {
    if (!logical) return;
    // Until the user works in one, the first chart leads.
    const lead = this.lead;
    const range = this.charts[lead]?.chart.timeScale().getVisibleRange();
    if (!range) return;
    // The others follow in the charts' turns, one repaint per frame (chartTurns), each taking the
    // leader's range as it is then: set at once, a live bar moving the leader made every chart
    // repaint in the same frame (a long task of 50-60 ms with four charts at 50 trades/s).
    if (index === lead) {
      this.follows.forEach((follow, i) => {
        if (i !== index) chartTurns.request(follow);
      });
    }
    // A follower moved on its own (its bars came in, a live bar pushed it): back in step with the leader.
    // Set again to where it already is, it does not move, and says nothing more. Not from within its
    // own event: a range set on a chart while it draws is dropped with the frame's changes.
    else {
      const follower = this.charts[index];
      if (follower) queueMicrotask(() => this.charts[index] === follower && setRange(follower, range));
    }
  }

  private others(index: number, act: (other: SyncedChart) => void): void {
    this.charts.forEach((other, i) => {
      if (i !== index) act(other);
    });
  }
}

/**
 * A chart's time range set to `range`. lightweight-charts refuses a range that starts or ends outside
 * the chart's bars (a finer resolution has fewer days loaded): then the nearest bars of each end.
 */
function setRange(chart: SyncedChart, range: { from: Time; to: Time }): void {
  const scale = chart.chart.timeScale();
  try {
    scale.setVisibleRange(range);
  } catch {
    const from = scale.timeToIndex(range.from, true);
    const to = scale.timeToIndex(range.to, true);
    // No bars yet: nothing to set.
    if (from !== null && to !== null && to > from) scale.setVisibleLogicalRange({ from, to });
  }
}

/** The close (or value) of `chart`'s bar at `time`, or its nearest bar's. */
function closeAt(chart: SyncedChart, time: Time): number | undefined {
  const index = chart.chart.timeScale().timeToIndex(time, true);
  if (index === null) return undefined;
  const point = chart.series.dataByIndex(index, MismatchDirection.NearestLeft) as {
    close?: number;
    value?: number;
  } | null;
  return point?.close ?? point?.value;
}
