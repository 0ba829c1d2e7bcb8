import type { TradeEvent } from '../shared/api/stream';
import { applyEvent, type Bar, type BarEvent } from '../shared/bars';
import { bucketStart, type Resolution } from '../shared/resolutions';
import type { UnixSeconds } from '../shared/time';

/**
 * The service sums volumes as integers in millionths and divides once: bars built here do the same
 * (accumulate `Math.round(volume * 1e6)`, divide when emitting) so they equal /history to the bit.
 */
export const VOLUME_SCALE = 1_000_000;

function toMicro(bar: Bar): Bar {
  return { ...bar, volume: Math.round(bar.volume * VOLUME_SCALE) };
}

function fromMicro(bar: Bar): Bar {
  return { ...bar, volume: bar.volume / VOLUME_SCALE };
}

function microEvent(event: BarEvent): BarEvent {
  return { ...event, volume: Math.round(event.volume * VOLUME_SCALE) };
}

function sameBar(a: Bar, b: Bar): boolean {
  return (
    a.time === b.time &&
    a.open === b.open &&
    a.high === b.high &&
    a.low === b.low &&
    a.close === b.close &&
    a.volume === b.volume &&
    a.tvl === b.tvl
  );
}

/** The state a snapshot ends on: the last trade it includes (the stream's events chain price and TVL). */
interface Anchor {
  readonly time: UnixSeconds;
  readonly price: number;
  readonly tvl: number;
}

export type SyncMode =
  /** First sync of a subscription: bring the chart up to date (trades since getBars). */
  | 'merge'
  /** After the gateway lost events: also tell the chart to reload when the server's bars differ. */
  | 'resync';

/**
 * The bars to put in place of those a listener holds from `from` on (a bar time, Unix seconds): the
 * server's, after a chain rollback changed them. Bars before `from` stand.
 */
export interface BarsReplacement {
  readonly from: UnixSeconds;
  readonly bars: readonly Bar[];
}

/** Where a series' output goes (the subscription's listeners). */
export interface SeriesSink {
  emit(bar: Bar): void;
  /** History changed under the bars given: the bars to put in their place from a time on, or (none) load them all again. */
  reset(replacement?: BarsReplacement): void;
}

export interface LiveSeriesOptions {
  /** How long to hold events that neither are nor follow a snapshot's last trade before applying them. */
  readonly anchorWaitMs: number;
}

/**
 * The current bar of one pool at one resolution, built from trade events by the bar rule, merged with
 * snapshots of recent history (`sync`) so that trades between `getBars` and the live subscription, or
 * lost while the gateway reconnected, are counted once and only once.
 *
 * Dedup of the events around a snapshot: each event carries the pool's price and TVL before and after,
 * and successive events chain (one's `previous_*` is the last one's `current_*`). The snapshot's last
 * bar ends on the state after the last trade it includes (close, tvl). Buffered events up to the one
 * that ends on that state are in the snapshot; later ones are not. When no buffered event ends on it,
 * the next event either is that trade (still in flight: dropped), follows it (applied), or precedes it
 * (held; applied after `anchorWaitMs` if the chain never meets the anchor, e.g. after a liquidity change).
 */
export class LiveSeries {
  private phase: 'waiting' | 'syncing' | 'live' = 'waiting';
  /** The newest bar, volume in micro-units. */
  private current: Bar | undefined;
  private buffer: TradeEvent[] = [];
  private anchor: Anchor | undefined;
  private held: TradeEvent[] = [];
  private anchorTimer: ReturnType<typeof setTimeout> | undefined;
  private token = 0;
  private wasLive = false;
  /** The bucket a chain rollback went back into, until a sync has loaded the bars from it (the oldest of several). */
  private rollbackFrom: UnixSeconds | undefined;
  /** `rollbackFrom` as the sync in flight loads it. */
  private syncRollback: UnixSeconds | undefined;

  constructor(
    readonly poolId: string,
    readonly resolution: Resolution,
    /** The newest bar the chart already has (from getBars), if known. */
    known: Bar | undefined,
    private readonly sink: SeriesSink,
    private readonly options: LiveSeriesOptions,
  ) {
    this.current = known ? toMicro(known) : undefined;
  }

  /** `waiting` for the connection, `syncing` (a snapshot is on its way), or `live`. */
  get state(): 'waiting' | 'syncing' | 'live' {
    return this.phase;
  }

  /** Whether the series was live before (a resync, not its first sync, is due after lost events). */
  get hasBeenLive(): boolean {
    return this.wasLive;
  }

  /** The newest bar emitted or held. */
  get currentBar(): Bar | undefined {
    return this.current ? fromMicro(this.current) : undefined;
  }

  /**
   * The chain rolled back to `time`: every trade after it was undone. The next sync loads the bars from
   * its bucket on and gives them to the listeners in place of theirs (`reset` with a replacement).
   */
  noteRollback(time: UnixSeconds): void {
    const from = bucketStart(time, this.resolution);
    this.rollbackFrom = this.rollbackFrom === undefined ? from : (Math.min(this.rollbackFrom, from) as UnixSeconds);
  }

  /** Where the next sync's bars start: the newest bar held, or the bucket of a rollback before it; undefined: the last couple. */
  get syncFrom(): UnixSeconds | undefined {
    const held = this.current?.time;
    if (this.rollbackFrom === undefined) return held;
    return held === undefined ? this.rollbackFrom : (Math.min(held, this.rollbackFrom) as UnixSeconds);
  }

  onEvent(event: TradeEvent): void {
    if (this.phase === 'live') this.accept(event);
    else this.buffer.push(event);
  }

  /** Starts a sync: events are buffered until `completeSync`. Returns the token that completes it. */
  beginSync(): number {
    if (this.phase === 'live') this.buffer = [];
    if (this.anchor) {
      // Unresolved events go back in front of the buffer for the new snapshot.
      this.buffer = [...this.held, ...this.buffer];
      this.clearAnchor();
    }
    this.phase = 'syncing';
    this.syncRollback = this.rollbackFrom;
    return ++this.token;
  }

  /**
   * Merges a snapshot: `fetched` are the server's bars from `syncFrom` on (or the last couple when
   * nothing is held). Emits what the chart lacks; in `resync` mode, resets the chart first when the
   * server's bars differ from what this series emitted plus the events it received. After a rollback
   * (`noteRollback`), the listeners get the server's bars from the rollback's bucket on in place of
   * theirs: at once when it reaches before the newest bar held (what they hold there is not known here),
   * else when the newest bar differs.
   */
  completeSync(token: number, fetched: readonly Bar[], mode: SyncMode): void {
    if (token !== this.token || this.phase !== 'syncing') return;
    const previous = this.current;
    const buffer = this.buffer;
    const rollback = this.syncRollback;
    this.syncRollback = undefined;
    // A later rollback would have begun a sync of its own: this one loaded from every rollback noted.
    this.rollbackFrom = undefined;
    this.buffer = [];
    this.phase = 'live';
    this.wasLive = true;
    const last = fetched.at(-1);
    const since = previous?.time;
    const reachesBack = rollback !== undefined && (since === undefined || rollback < since);
    if (reachesBack) this.sink.reset({ from: rollback, bars: fetched });
    if (last === undefined) {
      // Nothing on the server from there on (a pool that never traded, or whose trades were all undone): every buffered event is new.
      if (rollback === undefined) {
        if (mode === 'resync' && previous) this.sink.reset();
      } else if (!reachesBack && since !== undefined) {
        this.sink.reset({ from: since, bars: [] });
      }
      if (mode === 'resync' || rollback !== undefined) this.current = undefined;
      for (const event of buffer) this.apply(event);
      return;
    }
    const anchor: Anchor = { time: last.time, price: last.close, tvl: last.tvl };
    let included = -1;
    for (let i = buffer.length - 1; i >= 0 && included < 0; i--)
      if (endsOn(buffer[i], anchor, this.resolution)) included = i;

    // A replacement from before the newest bar covers whatever a resync would find.
    const checked = !reachesBack && (mode === 'resync' || rollback !== undefined);
    if (checked && previous && since !== undefined) {
      const expected = fold(previous, buffer.slice(0, included + 1), this.resolution);
      const actual = fetched.filter((bar) => bar.time >= since);
      const differs =
        expected.length !== actual.length ||
        expected.some((bar, i) => {
          const other = actual[i];
          return other === undefined || !sameBar(bar, toMicro(other));
        });
      // After a rollback into the newest bar, the bars from it on are the server's; after lost events, all of them again.
      if (differs) this.sink.reset(rollback === undefined ? undefined : { from: since, bars: actual });
    }
    const newer = since === undefined ? [last] : fetched.filter((bar) => bar.time >= since);
    for (const bar of newer) this.sink.emit(bar);
    this.current = toMicro(last);

    if (included >= 0) {
      for (const event of buffer.slice(included + 1)) this.apply(event);
      return;
    }
    this.anchor = anchor;
    this.anchorTimer = setTimeout(() => this.releaseHeld(), this.options.anchorWaitMs);
    for (const event of buffer) this.accept(event);
  }

  private accept(event: TradeEvent): void {
    const anchor = this.anchor;
    if (!anchor) {
      this.apply(event);
      return;
    }
    if (endsOn(event, anchor, this.resolution)) {
      // The snapshot's last trade arriving late (and anything held before it): already counted.
      this.held = [];
      this.clearAnchor();
    } else if (event.previous_price === anchor.price && event.previous_tvl === anchor.tvl) {
      this.held = [];
      this.clearAnchor();
      this.apply(event);
    } else {
      this.held.push(event);
    }
  }

  private releaseHeld(): void {
    const held = this.held;
    this.held = [];
    this.clearAnchor();
    for (const event of held) this.apply(event);
  }

  private clearAnchor(): void {
    if (this.anchorTimer !== undefined) clearTimeout(this.anchorTimer);
    this.anchorTimer = undefined;
    this.anchor = undefined;
  }

  private apply(event: TradeEvent): void {
    // An event older than the bar being built belongs to a settled bar (history has it).
    if (this.current && bucketStart(event.block_time, this.resolution) < this.current.time) return;
    this.current = applyEvent(this.current, microEvent(event), this.resolution);
    this.sink.emit(fromMicro(this.current));
  }

  /** Stops timers (the series is no longer wanted). */
  dispose(): void {
    this.clearAnchor();
    this.held = [];
    this.buffer = [];
    this.token++;
  }
}

function endsOn(event: TradeEvent | undefined, anchor: Anchor, resolution: Resolution): boolean {
  return (
    event !== undefined &&
    event.current_price === anchor.price &&
    event.current_tvl === anchor.tvl &&
    bucketStart(event.block_time, resolution) === anchor.time
  );
}

/** `start` (micro volume) followed by the bars of `events`, skipping events older than `start`. */
function fold(start: Bar, events: readonly TradeEvent[], resolution: Resolution): Bar[] {
  const bars = [start];
  for (const event of events) {
    const last = bars[bars.length - 1] ?? start;
    if (bucketStart(event.block_time, resolution) < last.time) continue;
    const next = applyEvent(last, microEvent(event), resolution);
    if (next.time === last.time) bars[bars.length - 1] = next;
    else bars.push(next);
  }
  return bars;
}
