import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { liveStatusSchema, type LiveStatus } from '../../src/shared/api/gateway';
import { tradeEventSchema, type TradeEvent } from '../../src/shared/api/stream';
import type { ServiceRuntime } from '../../src/service/service-runtime';
import { forceTradesOn } from './market';

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

/**
 * Makes the market trade (`forceTradesOn`, blocks at `atSeconds`) until it has made `count` trades on
 * `pools` (the Aggregate pool IDs `reader` follows), then waits until `reader` has seen them.
 */
export async function tradeUntilSeen(
  reader: SseReader,
  runtime: ServiceRuntime | undefined,
  atSeconds: number,
  pools: readonly string[],
  count = 1,
): Promise<void> {
  if (!runtime) throw new Error('the market is not running');
  const target = liveTrades(reader).length + count;
  await forceTradesOn(runtime, pools, atSeconds, { count });
  await reader.until(() => liveTrades(reader).length >= target);
}
