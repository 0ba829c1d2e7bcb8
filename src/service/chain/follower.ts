import { createChainSynchronizationClient, createInteractionContext, safeJSON } from '@cardano-ogmios/client';
import { backoffDelay, type BackoffOptions } from '../../shared/backoff';
import type { ChainPoint } from './block';
import type { ChainIngest, ChainTip } from './chain-ingest';
import { slotTime } from './block';
import { BlockShapeError, FrameError, fromOgmiosBlock, fromOgmiosPoint } from './ogmios-block';

/**
 * Follows the chain through Ogmios v6 (chain synchronization over WebSocket, with the field library
 * `@cardano-ogmios/client`): intersects at the newest of the stored tip and older journal points
 * that the node still has (else the start point), then takes blocks with 100 requests in flight,
 * applying each in order (one store commit per block) and rolling back on RollBackward. When Ogmios
 * goes away, stops answering pings, answers garbage, or a commit fails, the connection is dropped and
 * made again with backoff, forever, resuming at the stored tip: no gap, no double. Once a session has
 * failed, the blocks still in flight on it are ignored (the next session asks for them again).
 */

interface NodeSocket {
  emit(event: string | symbol, ...args: unknown[]): boolean;
  on(event: 'pong', listener: () => void): unknown;
  ping(): void;
  terminate(): void;
}

export type ChainState = 'connecting' | 'syncing' | 'live' | 'reconnecting' | 'stopped';

export interface ChainStatus {
  readonly state: ChainState;
  /** The last block applied. */
  readonly tip: ChainTip | undefined;
  /** The node's tip as Ogmios last reported it. */
  readonly nodeTip: { readonly slot: number; readonly id: string; readonly height: number } | undefined;
  /** Seconds the applied tip is behind the node's (slots are one second). */
  readonly lagSeconds: number | undefined;
  /** Seconds since the applied tip's block was made (wall clock). */
  readonly tipAgeSeconds: number | undefined;
  readonly blocks: number;
  readonly trades: number;
  /** Blocks skipped because a pool output (or the block itself) could not be decoded. */
  readonly undecodable: number;
  /** Frames that were not JSON, blocks without a header, rollbacks to no point (each drops the connection). */
  readonly garbage: number;
  readonly reconnects: number;
  readonly lastError: string | undefined;
}

export interface FollowerOptions {
  /** ws://host:port of Ogmios. */
  readonly url: string;
  /** Where to start without a stored tip. */
  readonly start: ChainPoint;
  readonly log?: (line: string) => void;
  /** Requests in flight (pipelining). */
  readonly inFlight?: number;
  /** Reconnect delays (default 0.5 s doubling to 30 s). */
  readonly backoff?: BackoffOptions;
  /** Lag under which the source counts as live (seconds). */
  readonly liveLagSeconds?: number;
  /** Ping Ogmios this often; no pong by the next ping drops the connection (default 30 s). */
  readonly heartbeatMs?: number;
  /** Wall clock (ms), for the tip's age. */
  readonly nowMs?: () => number;
}

/** A recent, well-known mainnet point: block 9,894,906 (Babbage era, 2024-02-17), the first of prise's real test blocks. */
export const DEFAULT_CHAIN_START: ChainPoint = { slot: 115_585_913, id: '6a15ab132fb7d4a9fe49981db4812cfccdb418e48edd398f7c9d5fea906ee787' };

/** Ogmios' address as logs and errors show it: origin and path, never a query (a hosted endpoint's key may be there). */
export function shownUrl(address: string): string {
  const url = new URL(address);
  return `${url.origin}${url.pathname === '/' ? '' : url.pathname}`;
}

/** Parses `<slot>.<blockhash>`. */
export function parseChainPoint(value: string): ChainPoint {
  const match = /^(\d+)\.([0-9a-fA-F]{64})$/.exec(value.trim());
  if (!match) throw new Error(`chain start must be <slot>.<block hash> (64 hex), got "${value}"`);
  return { slot: Number(match[1]), id: (match[2] ?? '').toLowerCase() };
}

export class ChainFollower {
  private state: ChainState = 'connecting';
  private nodeTip: ChainStatus['nodeTip'];
  private blocks = 0;
  private trades = 0;
  private garbage = 0;
  private reconnects = 0;
  private lastError: string | undefined;
  private stopped = false;
  private running: Promise<void> | undefined;
  private closeCurrent: (() => void) | undefined;
  private wake: (() => void) | undefined;

  constructor(
    private readonly ingest: ChainIngest,
    private readonly options: FollowerOptions,
  ) {}

  status(): ChainStatus {
    const tip = this.ingest.tip;
    const lag = this.nodeTip && tip ? Math.max(0, this.nodeTip.slot - tip.slot) : undefined;
    const now = (this.options.nowMs ?? Date.now)() / 1000;
    return {
      state: this.state,
      tip,
      nodeTip: this.nodeTip,
      lagSeconds: lag,
      tipAgeSeconds: tip ? Math.max(0, Math.round(now - slotTime(tip.slot))) : undefined,
      blocks: this.blocks,
      trades: this.trades,
      undecodable: this.ingest.undecodable,
      garbage: this.garbage,
      reconnects: this.reconnects,
      lastError: this.lastError,
    };
  }

  start(): void {
    this.running ??= this.loop();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.state = 'stopped';
    this.closeCurrent?.();
    this.wake?.();
    await this.running;
  }

  private log(line: string): void {
    this.options.log?.(line);
  }

  private async loop(): Promise<void> {
    let attempt = 0;
    while (!this.stopped) {
      const healthy = await this.session().catch((error: unknown) => {
        this.lastError = error instanceof Error ? error.message || error.constructor.name : String(error);
        return false;
      });
      if (this.stopped) break;
      attempt = healthy ? 0 : attempt + 1;
      this.state = 'reconnecting';
      this.reconnects++;
      const delay = backoffDelay(attempt, this.options.backoff ?? { initialMs: 500, maxMs: 30_000 });
      this.log(`chain: connection to ${shownUrl(this.options.url)} lost (${this.lastError ?? 'closed'}); reconnecting in ${Math.round(delay)} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, delay);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    }
  }

  /** One connection, until it closes; true when it got as far as following (the backoff starts over). */
  private async session(): Promise<boolean> {
    this.state = 'connecting';
    const url = new URL(this.options.url);
    // Its health check is `<http>/health`: the same host and path (a query, such as a hosted endpoint's key, stays on the WebSocket's URL).
    const http = `${url.protocol === 'wss:' ? 'https:' : 'http:'}//${url.host}${url.pathname.replace(/\/$/, '')}`;
    let closed!: () => void;
    const done = new Promise<void>((resolve) => (closed = resolve));
    const context = await createInteractionContext(
      (error) => {
        this.lastError = error.message;
      },
      () => closed(),
      { connection: { address: { webSocket: this.options.url.replace(/\/$/, ''), http } } },
    );
    // In Node the library's socket is a `ws` WebSocket: an EventEmitter with ping() and terminate().
    const socket = context.socket as unknown as NodeSocket;
    /** Set once this session failed: what it still delivers is ignored (the next session asks again). */
    let broken = false;
    const fail = (error: unknown, garbage = false) => {
      if (broken) return;
      broken = true;
      if (garbage) this.garbage++;
      this.lastError = error instanceof Error ? error.message : String(error);
      this.log(`chain: ${this.lastError}; reconnecting to resume at the stored tip`);
      socket.terminate();
    };
    this.closeCurrent = () => {
      broken = true;
      socket.terminate();
    };
    // A silent node (a half-open connection) would hold the source forever: ping it, and drop a
    // connection that has not answered the previous ping by the next.
    let answered = true;
    socket.on('pong', () => (answered = true));
    const heartbeat = setInterval(() => {
      if (!answered) {
        fail(new Error(`Ogmios did not answer a ping within ${Math.round((this.options.heartbeatMs ?? 30_000) / 1000)} s`));
        return;
      }
      answered = false;
      try {
        socket.ping();
      } catch {
        // Closing: the close ends the session.
      }
    }, this.options.heartbeatMs ?? 30_000);
    heartbeat.unref();
    // A frame that is not JSON would throw inside the library's listener: count it, drop the connection.
    const emit = socket.emit.bind(socket);
    socket.emit = ((event: string | symbol, ...args: unknown[]) => {
      if (event === 'message') {
        if (broken) return false;
        try {
          safeJSON.parse(String(args[0]));
        } catch {
          fail(new Error('Ogmios sent a frame that is not JSON'), true);
          return false;
        }
      }
      return emit(event, ...args);
    }) as NodeSocket['emit'];
    let following = false;
    const client = await createChainSynchronizationClient(context, {
      rollForward: async ({ block, tip }, requestNext) => {
        if (this.stopped || broken) return;
        try {
          this.noteTip(tip);
          try {
            const report = await this.ingest.applyBlock(fromOgmiosBlock(block));
            this.blocks++;
            this.trades += report.trades;
          } catch (error) {
            if (!(error instanceof BlockShapeError)) throw error;
            await this.ingest.skipBlock(error.header, error.message);
          }
          if (broken) return;
          this.updateState();
          requestNext();
        } catch (error) {
          fail(error, error instanceof FrameError);
        }
      },
      rollBackward: async ({ point, tip }, requestNext) => {
        if (this.stopped || broken) return;
        try {
          this.noteTip(tip);
          await this.ingest.rollBackTo(fromOgmiosPoint(point));
          if (broken) return;
          this.updateState();
          requestNext();
        } catch (error) {
          fail(error, error instanceof FrameError);
        }
      },
    });
    const points = this.ingest.intersectionPoints(this.options.start);
    try {
      const intersection = await client.resume(points, this.options.inFlight ?? 100);
      this.noteTip(intersection.tip);
      following = true;
      this.state = 'syncing';
      this.lastError = undefined;
      const tip = this.ingest.tip;
      this.log(`chain: following ${shownUrl(this.options.url)} from ${tip ? `the stored tip, slot ${tip.slot}` : `slot ${this.options.start.slot}`}`);
    } catch (error) {
      const message = (error as { error?: { message?: string } })?.error?.message ?? (error instanceof Error ? error.message : JSON.stringify(error));
      fail(new Error(`no intersection with ${shownUrl(this.options.url)} at any of ${points.length} point(s) from slot ${points[0]?.slot ?? '?'}: ${message}`));
    }
    await done;
    clearInterval(heartbeat);
    this.closeCurrent = undefined;
    return following;
  }

  private noteTip(tip: unknown): void {
    if (tip && typeof tip === 'object' && 'slot' in tip) {
      const t = tip as { slot: number; id: string; height: number };
      this.nodeTip = { slot: Number(t.slot), id: String(t.id), height: Number(t.height) };
    }
  }

  private updateState(): void {
    const lag = this.status().lagSeconds;
    this.state = lag !== undefined && lag <= (this.options.liveLagSeconds ?? 120) ? 'live' : 'syncing';
  }
}
