import type { TradeEvent } from '../../shared/api/stream';
import type { Market } from '../market/model';
import { VOLUME_SCALE } from '../store/bar-batch';
import type { TradeRecord } from '../store/ports';

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
  /** Open streams per key. */
  private readonly openKeys = new Map<string, number>();
  /** How to end each open connection (on shutdown). */
  private readonly enders = new Set<() => void>();
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
        current_price: record.aggPrice,
        previous_price: record.aggPrevPrice,
        current_tvl: record.aggTvl,
        previous_tvl: record.aggPrevTvl,
        volume: record.volume / VOLUME_SCALE,
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

  /** Claims one of the key's stream slots; false when it already has `limit` open streams. */
  acquire(keyId: string, limit = 1): boolean {
    const open = this.openKeys.get(keyId) ?? 0;
    if (open >= limit) return false;
    this.openKeys.set(keyId, open + 1);
    return true;
  }

  release(keyId: string): void {
    const open = (this.openKeys.get(keyId) ?? 0) - 1;
    if (open > 0) this.openKeys.set(keyId, open);
    else this.openKeys.delete(keyId);
  }

  /** Registers how to end an open connection; returns the function that forgets it. */
  track(end: () => void): () => void {
    this.enders.add(end);
    return () => this.enders.delete(end);
  }

  /** Ends every open connection (the service is shutting down). */
  closeAll(): void {
    for (const end of [...this.enders]) end();
  }

  /** Open stream connections, all keys together. */
  get connectionCount(): number {
    let count = 0;
    for (const open of this.openKeys.values()) count += open;
    return count;
  }
}
