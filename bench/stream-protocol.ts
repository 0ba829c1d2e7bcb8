/** Messages between the stream benchmark (bench/stream.ts, the server side) and its client process. */
import type { ChildProcess } from 'node:child_process';

/** direct: POST /api/v1/tokens/stream; gateway: GET /gw/v1/live (SSE); floor: the bare TCP server of stream-floor.ts. */
export type StreamMode = 'direct' | 'gateway' | 'floor';

export interface ClientSpec {
  /** Aggregate pool IDs the client follows. */
  readonly pools: readonly string[];
  /** API key (direct mode). */
  readonly key?: string;
}

export type ToClients =
  | {
      readonly type: 'open';
      readonly mode: StreamMode;
      readonly port: number;
      readonly clients: readonly ClientSpec[];
      readonly concurrency: number;
    }
  /** Clock check: answer with the client process's clock. */
  | { readonly type: 'clock' }
  /** From now on, keep every received chunk with its receive time (parsed only at `collect`). */
  | { readonly type: 'record'; readonly bytes: number; readonly chunks: number }
  /** How long since the last chunk arrived on any connection. */
  | { readonly type: 'quiet' }
  /** Parse what was recorded and send it back; stop recording. */
  | { readonly type: 'collect' }
  | { readonly type: 'close' };

export type FromClients =
  | { readonly type: 'opened'; readonly ms: number }
  | { readonly type: 'failed'; readonly message: string }
  | { readonly type: 'clock'; readonly time: number }
  | { readonly type: 'recording' }
  | { readonly type: 'quiet'; readonly ms: number }
  | {
      readonly type: 'collected';
      /** Event keys (`pool_id|block_time|previous_price|current_price`), indexed by `keyIndex`. */
      readonly keys: readonly string[];
      /** One entry per received trade event: the client's index, the event's key index, the receive time. */
      readonly client: Int32Array;
      readonly keyIndex: Int32Array;
      readonly time: Float64Array;
      /** Error lines/events and unexpected ends seen on any connection. */
      readonly problems: readonly string[];
      /** The client process's collector pauses while recording. */
      readonly gc: { readonly count: number; readonly ms: number; readonly maxMs: number };
      /** What the connections received while recording: chunks (socket reads) and bytes. */
      readonly received: { readonly chunks: number; readonly bytes: number };
    }
  | { readonly type: 'closed' };

/** The clock both processes share: wall time in ms with sub-millisecond resolution. */
export const sharedNow = (): number => performance.timeOrigin + performance.now();

/** The key of a trade event, identical on both sides (numbers as JSON writes them). */
export function eventKey(poolId: string, blockTime: number, previousPrice: number, currentPrice: number): string {
  return `${poolId}|${blockTime}|${previousPrice}|${currentPrice}`;
}

/** The benchmark's end of the client process, asked one thing at a time. */
export class ClientProcess {
  private waiting:
    { type: FromClients['type']; resolve: (m: FromClients) => void; reject: (e: Error) => void } | undefined;

  constructor(private readonly child: ChildProcess) {
    child.on('message', (raw) => {
      const message = raw as FromClients;
      const waiting = this.waiting;
      if (!waiting) return;
      this.waiting = undefined;
      if (message.type === 'failed') waiting.reject(new Error(`stream clients: ${message.message}`));
      else if (message.type !== waiting.type)
        waiting.reject(new Error(`stream clients answered ${message.type}, expected ${waiting.type}`));
      else waiting.resolve(message);
    });
    child.on('exit', (code, signal) => {
      this.waiting?.reject(new Error(`the stream client process exited (${signal ?? code})`));
      this.waiting = undefined;
    });
  }

  ask<T extends FromClients['type']>(
    message: ToClients,
    type: T,
    timeoutMs: number,
  ): Promise<Extract<FromClients, { type: T }>> {
    if (this.waiting) return Promise.reject(new Error('stream clients: one question at a time'));
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting = undefined;
        reject(new Error(`stream clients: no ${type} answer in ${timeoutMs / 1000} s`));
      }, timeoutMs);
      this.waiting = {
        type,
        resolve: (m) => {
          clearTimeout(timer);
          resolve(m as Extract<FromClients, { type: T }>);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      };
      this.child.send(message);
    });
  }
}
