import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { liveStatusSchema, type LiveStatus } from '../../src/shared/api/gateway';
import { tradeEventSchema, type TradeEvent } from '../../src/shared/api/stream';
import type { ServiceRuntime } from '../../src/service/runtime';
import { lastSeq, storedTrades } from './market';

/**
 * Reads SSE frames from a Response body into a queue, for tests that want to wait for a given frame.
 */
export class SseReader {
  readonly frames: EventSourceMessage[] = [];
  retry: number | undefined;
  ended = false;
  private readonly waiters = new Set<() => void>();
  private readonly reader: ReadableStreamDefaultReader<string>;

  constructor(response: Response) {
    if (!response.body) throw new Error('no body');
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    this.reader = reader;
    const parser = createParser({
      onEvent: (event) => {
        this.frames.push(event);
        this.wake();
      },
      onRetry: (ms) => {
        this.retry = ms;
      },
    });
    void (async () => {
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          parser.feed(value);
        }
      } catch {
        // cancelled
      }
      this.ended = true;
      this.wake();
    })();
  }

  private wake(): void {
    for (const waiter of [...this.waiters]) waiter();
  }

  /** Frames of one event name, parsed. */
  events<T = unknown>(name: string): T[] {
    return this.frames.filter((f) => f.event === name).map((f) => JSON.parse(f.data) as T);
  }

  /** Waits until `predicate` holds over the frames so far (or the stream ends / times out). */
  async until(predicate: (frames: readonly EventSourceMessage[]) => boolean, timeoutMs = 5000): Promise<void> {
    if (predicate(this.frames)) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`timed out; frames so far: ${JSON.stringify(this.frames.map((f) => [f.event, f.data]))}`));
      }, timeoutMs);
      const check = () => {
        if (predicate(this.frames) || this.ended) {
          clearTimeout(timer);
          this.waiters.delete(check);
          if (predicate(this.frames)) resolve();
          else reject(new Error(`stream ended; frames: ${JSON.stringify(this.frames.map((f) => [f.event, f.data]))}`));
        }
      };
      this.waiters.add(check);
    });
  }

  /** Waits for the stream to end. */
  async end(timeoutMs = 5000): Promise<void> {
    await this.until(() => this.ended, timeoutMs).catch(() => {
      if (!this.ended) throw new Error('stream did not end');
    });
  }

  cancel(): void {
    void this.reader.cancel().catch(() => {});
  }
}

/** The `status` frames a gateway live stream has sent so far, checked against the contract. */
export function liveStatuses(reader: SseReader): LiveStatus[] {
  return reader.events('status').map((s) => liveStatusSchema.parse(s));
}

/** The `trade` frames a gateway live stream has sent so far, checked against the contract. */
export function liveTrades(reader: SseReader): TradeEvent[] {
  return reader.events('trade').map((e) => tradeEventSchema.parse(e));
}

/** A market the test can make trade: the service's runtime (to count its trades) and its one-block control. */
export interface TradingMarket {
  readonly runtime: ServiceRuntime | undefined;
  trade(): unknown;
}

/**
 * Makes `market` trade, block after block (it picks pools at random), until it has made `count` trades
 * on `pools` (the Aggregate pool IDs `reader` follows), then waits until `reader` has seen them.
 */
export async function tradeUntilSeen(reader: SseReader, market: TradingMarket, pools: readonly string[], count = 1, maxBlocks = 1000): Promise<void> {
  const runtime = market.runtime;
  if (!runtime) throw new Error('the market is not running');
  const aggregates = new Set(pools.map((id) => runtime.market.pools.get(id.toLowerCase())?.id));
  const target = liveTrades(reader).length + count;
  const since = await lastSeq(runtime);
  let made = 0;
  for (let blocks = 0; made < count; blocks++) {
    if (blocks >= maxBlocks) throw new Error(`the market made ${made} of ${count} trades on ${pools.length} pools in ${maxBlocks} blocks`);
    await market.trade();
    made = (await storedTrades(runtime, { afterSeq: since })).filter((t) => aggregates.has(t.agg)).length;
  }
  await reader.until(() => liveTrades(reader).length >= target);
}
