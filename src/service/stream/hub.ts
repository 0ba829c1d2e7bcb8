import { METADATA_UNITS_MAX, type StreamMetadata, type StreamRollback, type TradeEvent } from '../../shared/api/stream';
import type { Market } from '../market/model';
import { wholeBase, wholePrice } from '../market/units';
import type { RollbackPoint, TradeRecord } from '../store/ports';

/**
 * How long a new stream may wait for its key's slot, and when it stops waiting early (its client left).
 * A client replacing its stream (abort, then a new request at once) reaches the server before the old
 * connection's close does: the new stream waits for that close instead of being refused.
 */
export interface SlotWait {
  /** `Date.now()` after which the stream is refused. */
  readonly deadline: number;
  readonly signal?: AbortSignal;
}

/**
 * Receives serialised lines (one JSON object + '\n', `bytes` long in UTF-8) for the pools it subscribed
 * to; returns false when the line could not be delivered (the connection was dropped for not reading).
 */
export type LineSink = (line: string, event: TradeEvent, bytes: number) => boolean | void;

/**
 * Fans committed trades out to stream connections, as events of the trade's Aggregate pool (the only
 * pools the stream serves). Each event is serialised once, whatever the number of subscribers.
 * Also tracks the one-connection-per-key rule.
 */
export class StreamHub {
  private readonly byPool = new Map<string, Set<LineSink>>();
  /** Connections that asked for our rollback lines (`X-Stream-Extensions: rollback`). */
  private readonly rollbackSinks = new Set<(line: string, bytes: number) => void>();
  /** Connections that asked for our metadata lines (`X-Stream-Extensions: metadata`). */
  private readonly metadataSinks = new Set<(line: string, bytes: number) => void>();
  /** Metadata changes published since start. */
  private metadataVersion = 0;
  /** Open streams per key. */
  private readonly openKeys = new Map<string, number>();
  /** How to end each open connection (on shutdown). */
  private readonly enders = new Set<() => void>();
  /** Streams waiting for a slot of their key, first come first served: each is handed the next slot freed. */
  private readonly waiting = new Map<string, Set<(granted: boolean) => void>>();
  /** Events handed to connections, and those a connection could not take (it was dropped as too slow): totals since start. */
  delivered = 0;
  dropped = 0;
  /** Connections dropped for not reading fast enough (counted by the stream route). */
  slowConsumers = 0;

  constructor(private readonly market: Market) {}

  /** Subscribes a sink to Aggregate pool IDs; returns the unsubscribe function. */
  subscribe(poolIds: Iterable<string>, sink: LineSink): () => void {
    const ids = [...new Set(poolIds)];
    for (const id of ids) {
      let sinks = this.byPool.get(id);
      if (!sinks) this.byPool.set(id, (sinks = new Set()));
      sinks.add(sink);
    }
    return () => {
      for (const id of ids) {
        const sinks = this.byPool.get(id);
        sinks?.delete(sink);
        if (sinks?.size === 0) this.byPool.delete(id);
      }
    };
  }

  /** Sends `sink` the rollback lines (a connection that asked for them); returns the unsubscribe function. */
  subscribeRollbacks(sink: (line: string, bytes: number) => void): () => void {
    this.rollbackSinks.add(sink);
    return () => this.rollbackSinks.delete(sink);
  }

  /** Sends `sink` the metadata lines (a connection that asked for them); returns the unsubscribe function. */
  subscribeMetadata(sink: (line: string, bytes: number) => void): () => void {
    this.metadataSinks.add(sink);
    return () => this.metadataSinks.delete(sink);
  }

  /** Tells the connections that asked that what is known of `units` changed (after it is committed). */
  publishMetadata(units: readonly string[]): void {
    this.metadataVersion++;
    if (this.metadataSinks.size === 0 || units.length === 0) return;
    const listed = units.length <= METADATA_UNITS_MAX ? [...units] : [];
    const message: StreamMetadata = { s: 'metadata', version: this.metadataVersion, units: listed };
    const line = `${JSON.stringify(message)}\n`;
    const bytes = Buffer.byteLength(line);
    for (const sink of this.metadataSinks) sink(line, bytes);
  }

  /** Tells the connections that asked that the chain rolled back to `point` (after the rollback is committed). */
  publishRollback(point: RollbackPoint): void {
    if (this.rollbackSinks.size === 0) return;
    const message: StreamRollback = { s: 'rollback', slot: point.slot, id: point.id, block_time: point.blockTime };
    const line = `${JSON.stringify(message)}\n`;
    const bytes = Buffer.byteLength(line);
    for (const sink of this.rollbackSinks) sink(line, bytes);
  }

  /** Publishes committed trades (wired to the ingest path's commit listener). */
  publish(records: readonly TradeRecord[]): void {
    if (this.byPool.size === 0) return;
    for (const record of records) {
      const aggregate = this.market.poolsById.get(record.agg);
      if (!aggregate) continue;
      const sinks = this.byPool.get(aggregate.poolId);
      if (!sinks || sinks.size === 0) continue;
      const event: TradeEvent = {
        block_time: record.blockTime,
        pool_id: aggregate.poolId,
        // Stored raw, sent in whole units of the decimals known now (market/units.ts).
        current_price: wholePrice(aggregate.pair, record.aggPrice),
        previous_price: wholePrice(aggregate.pair, record.aggPrevPrice),
        current_tvl: wholeBase(aggregate.pair, record.aggTvl),
        previous_tvl: wholeBase(aggregate.pair, record.aggPrevTvl),
        volume: wholeBase(aggregate.pair, record.volume),
      };
      const line = `${JSON.stringify(event)}\n`;
      const bytes = Buffer.byteLength(line);
      // A sink may unsubscribe while called (a dropped client): deleting from a Set during its iteration is safe.
      for (const sink of sinks) {
        if (sink(line, event, bytes) === false) this.dropped++;
        else this.delivered++;
      }
    }
  }

  /** Claims one of the key's stream slots now; false when it already has `limit` open streams. */
  tryAcquire(keyId: string, limit = 1): boolean {
    const open = this.openKeys.get(keyId) ?? 0;
    if (open >= limit) return false;
    this.openKeys.set(keyId, open + 1);
    return true;
  }

  /**
   * Claims one of the key's stream slots, waiting until `wait.deadline` for one to be released (it is
   * then handed over directly, before any newcomer). Resolves false when none was released in time,
   * the wait's signal aborted, or the hub is closing.
   */
  acquire(keyId: string, limit = 1, wait?: SlotWait): Promise<boolean> {
    if (this.tryAcquire(keyId, limit)) return Promise.resolve(true);
    const ms = (wait?.deadline ?? 0) - Date.now();
    if (!wait || ms <= 0 || wait.signal?.aborted) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      let queue = this.waiting.get(keyId);
      if (!queue) this.waiting.set(keyId, (queue = new Set()));
      const settle = (granted: boolean) => {
        clearTimeout(timer);
        wait.signal?.removeEventListener('abort', abandon);
        queue.delete(settle);
        if (queue.size === 0 && this.waiting.get(keyId) === queue) this.waiting.delete(keyId);
        resolve(granted);
      };
      const abandon = () => settle(false);
      const timer = setTimeout(abandon, ms);
      wait.signal?.addEventListener('abort', abandon, { once: true });
      queue.add(settle);
    });
  }

  /** Gives a slot back: to the first stream waiting for one of the key, else to the key. */
  release(keyId: string): void {
    const next = this.waiting.get(keyId)?.values().next();
    if (next && !next.done) {
      // Handed over: the key's count of open streams stays as it is.
      next.value(true);
      return;
    }
    const open = (this.openKeys.get(keyId) ?? 0) - 1;
    if (open > 0) this.openKeys.set(keyId, open);
    else this.openKeys.delete(keyId);
  }

  /** Streams waiting for a slot, all keys together. */
  get waitingCount(): number {
    let count = 0;
    for (const queue of this.waiting.values()) count += queue.size;
    return count;
  }

  /** Registers how to end an open connection; returns the function that forgets it. */
  track(end: () => void): () => void {
    this.enders.add(end);
    return () => this.enders.delete(end);
  }

  /** Set once `closeAll` ran: the service is shutting down. */
  private shuttingDown = false;

  get closing(): boolean {
    return this.shuttingDown;
  }

  /** Ends every open connection and every wait for a slot (the service is shutting down). */
  closeAll(): void {
    this.shuttingDown = true;
    for (const queue of [...this.waiting.values()]) for (const settle of [...queue]) settle(false);
    for (const end of [...this.enders]) end();
  }

  /** Open stream connections, all keys together. */
  get connectionCount(): number {
    let count = 0;
    for (const open of this.openKeys.values()) count += open;
    return count;
  }
}
