import type { DexGroup } from '../../shared/groups';
import type { GroupCoverage } from './coverage';
import {
  ChainSynchronization,
  createInteractionContext,
  createLedgerStateQueryClient,
  safeJSON,
  type InteractionContext,
} from '@cardano-ogmios/client';
import type { LogHook, LogLevel } from '../../node/log';
import { backoffDelay, type BackoffOptions } from '../../shared/backoff';
import { redactUrl, textRedactor } from '../../shared/redact';
import type { ChainPoint } from './block';
import { RollbackRefusedError, type ChainIngest, type ChainTip } from './chain-ingest';
import { slotTime } from './block';
import { BlockShapeError, FrameError, fromOgmiosBlock, fromOgmiosPoint, parseFrame } from './ogmios-block';
import { kupoCheckpoint } from './kupo';
import { slotDaysBefore, type ChainStart } from './start';

/**
 * Follows the chain through Ogmios v6 (chain synchronization over WebSocket, with the field library
 * `@cardano-ogmios/client` for the connection, the intersection and the requests): intersects at the
 * newest of the stored tip and older journal points that the node still has (else the start point),
 * then takes blocks with 100 requests in flight, applying each in order and rolling back on
 * RollBackward. Live (within `batch.lagSeconds` of the node's tip) each block is one store commit;
 * catching up, blocks are committed in batches of at most `batch.maxBlocks` blocks or `batch.maxMs`
 * of work. When Ogmios goes away, stops answering pings, answers garbage, or a commit fails, the
 * blocks not yet committed are dropped, and the connection is made again with backoff, forever,
 * resuming at the last committed block: no gap, no double. Once a session has failed, the blocks
 * still in flight on it are ignored (the next session asks for them again).
 *
 * Each frame is parsed once, here (`parseFrame`), not by the library's chain-synchronization client
 * as well as by a garbage check of ours.
 */

interface NodeSocket {
  emit(event: string | symbol, ...args: unknown[]): boolean;
  on(event: 'pong', listener: () => void): unknown;
  on(event: 'message', listener: (data: unknown) => void): unknown;
  ping(): void;
  terminate(): void;
}

export type ChainState = 'connecting' | 'syncing' | 'live' | 'reconnecting' | 'stopped';

/** Per DEX, pool outputs decoded and undecodable over the last hour and day of block time applied. */
export interface ChainDecodes {
  readonly lastHour: Readonly<Partial<Record<DexGroup, GroupCoverage>>>;
  readonly lastDay: Readonly<Partial<Record<DexGroup, GroupCoverage>>>;
}

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
  /** Blocks applied and not yet committed (a batch while catching up). */
  readonly pendingBlocks: number;
  /** Blocks and trade events committed since this start. */
  readonly blocks: number;
  readonly trades: number;
  /** Pool outputs skipped because they could not be decoded, all DEXs together, and by DEX. */
  readonly undecodable: number;
  readonly undecodableByDex: Readonly<Record<string, number>>;
  /** Pool outputs decoded and not, by DEX, over the last hour and day of block time applied. */
  readonly decodes: ChainDecodes;
  /** Blocks skipped whole because they could not be read. */
  readonly unreadableBlocks: number;
  /** Rollbacks applied, and the most blocks one undid. */
  readonly rollbacks: number;
  readonly deepestRollback: number;
  /** Frames that were not JSON, blocks without a header, rollbacks to no point or to one this source does not have (each drops the connection). */
  readonly garbage: number;
  /** Of those, rollbacks refused: to `origin`, before the journal, a wrong id at a slot of ours, after the tip. */
  readonly refusedRollbacks: number;
  readonly reconnects: number;
  readonly lastError: string | undefined;
}

export interface FollowerOptions {
  /** ws://host:port of Ogmios. */
  readonly url: string;
  /** Where a new market starts (without a stored tip): the node's tip, N days back (with `kupoUrl`), or a block. */
  readonly start: ChainStart;
  /** A Kupo chain index beside Ogmios (`--kupo`), where `start` N days back finds its block. */
  readonly kupoUrl?: string;
  /** Problems at `warn`, what the source does at `info`. */
  readonly log?: LogHook;
  /** Requests in flight (pipelining). */
  readonly inFlight?: number;
  /** Reconnect delays (default 0.5 s doubling to 30 s). */
  readonly backoff?: BackoffOptions;
  /** Lag under which the source counts as live (seconds). */
  readonly liveLagSeconds?: number;
  /** Ping Ogmios this often; no pong by the next ping drops the connection (default 30 s). */
  readonly heartbeatMs?: number;
  /** Longest a connection attempt may take (the library's health check, then the WebSocket; default 30 s). */
  readonly connectTimeoutMs?: number;
  /** Wall clock (ms), for the tip's age. */
  readonly nowMs?: () => number;
  /** Catching up: commit many blocks per store transaction while further than `lagSeconds` behind the node. */
  readonly batch?: { readonly lagSeconds?: number; readonly maxBlocks?: number; readonly maxMs?: number };
  /** Told after a rollback is committed: the point the chain went back to and how many blocks it undid. */
  readonly onRollback?: (point: ChainPoint, blocks: number) => void;
}

/** Catching up while further behind the node's tip than this (seconds: one slot is one second). */
export const CATCH_UP_LAG_SECONDS = 180;
/** A batch while catching up: at most this many blocks, or this much time since its first block. */
export const BATCH_MAX_BLOCKS = 1_000;
export const BATCH_MAX_MS = 1_000;

/** A new market's start point could not be found (the node's tip, or Kupo's block N days back). */
class StartError extends Error {}

function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  const rpc = (error as { error?: { message?: unknown } } | null)?.error?.message;
  return typeof rpc === 'string' ? rpc : String(error);
}

export class ChainFollower {
  private state: ChainState = 'connecting';
  private nodeTip: ChainStatus['nodeTip'];
  private garbage = 0;
  private refusedRollbacks = 0;
  private reconnects = 0;
  private rollbacks = 0;
  private deepestRollback = 0;
  private lastError: string | undefined;
  private stopped = false;
  private running: Promise<void> | undefined;
  private closeCurrent: (() => void) | undefined;
  private wake: (() => void) | undefined;
  /** Gives up the connection attempt under way (a stop). */
  private cancelConnect: (() => void) | undefined;
  /** Every change to the store goes through this chain, one at a time (blocks, rollbacks, batch flushes). */
  private serial: Promise<unknown> = Promise.resolve();
  /** When the pending batch's first block was applied (ms), and the timer that flushes it if no block follows. */
  private batchStarted = 0;
  private batchTimer: NodeJS.Timeout | undefined;
  /** A new market's start, once found (the node's tip, or Kupo's block N days back): kept across reconnects. */
  private startPoint: ChainPoint | undefined;
  /**
   * What the status and the log show of a text: the client library's errors embed Ogmios' address
   * (`request to http://HOST/PATH/health failed`), and a hosted endpoint's key is in its host, path or query.
   */
  private readonly redact: (text: string) => string;

  constructor(
    private readonly ingest: ChainIngest,
    private readonly options: FollowerOptions,
  ) {
    this.redact = textRedactor([options.url, options.kupoUrl]);
  }

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
      pendingBlocks: this.ingest.pendingBlocks,
      blocks: this.ingest.committedBlocks,
      trades: this.ingest.committedTrades,
      undecodable: this.ingest.undecodable,
      undecodableByDex: Object.fromEntries(this.ingest.undecodableOutputs),
      decodes: {
        lastHour: Object.fromEntries(this.ingest.coverage.window(3_600)),
        lastDay: Object.fromEntries(this.ingest.coverage.window(86_400)),
      },
      unreadableBlocks: this.ingest.unreadableBlocks,
      rollbacks: this.rollbacks,
      deepestRollback: this.deepestRollback,
      garbage: this.garbage,
      refusedRollbacks: this.refusedRollbacks,
      reconnects: this.reconnects,
      lastError: this.lastError === undefined ? undefined : this.redact(this.lastError),
    };
  }

  start(): void {
    this.running ??= this.loop();
  }

  /** Stops following: the blocks applied and not yet committed are committed first (a clean stop loses nothing). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.state = 'stopped';
    await this.exclusive(() => this.flush()).catch((error: unknown) =>
      this.log(
        `chain: the last batch could not be committed (${error instanceof Error ? error.message : String(error)}); the next start resumes before it`,
      ),
    );
    this.closeCurrent?.();
    this.cancelConnect?.();
    this.wake?.();
    await this.running;
  }

  private log(line: string, level: LogLevel = 'warn'): void {
    this.options.log?.(this.redact(line), { level });
  }

  /** Runs `op` after every store change before it: blocks, rollbacks and timed flushes never overlap. */
  private exclusive<T>(op: () => Promise<T>): Promise<T> {
    const run = this.serial.then(op);
    this.serial = run.catch(() => undefined);
    return run;
  }

  private async flush(): Promise<void> {
    clearTimeout(this.batchTimer);
    this.batchTimer = undefined;
    await this.ingest.flush();
  }

  private async loop(): Promise<void> {
    let attempt = 0;
    while (!this.stopped) {
      const healthy = await this.session().catch((error: unknown) => {
        this.lastError = error instanceof Error ? error.message || error.constructor.name : String(error);
        return false;
      });
      // Whatever the session left uncommitted is dropped: the next one resumes at the last committed block.
      await this.exclusive(() => {
        clearTimeout(this.batchTimer);
        this.batchTimer = undefined;
        this.ingest.discardPending();
        return Promise.resolve();
      });
      if (this.stopped) break;
      attempt = healthy ? 0 : attempt + 1;
      this.state = 'reconnecting';
      this.reconnects++;
      const delay = backoffDelay(attempt, this.options.backoff ?? { initialMs: 500, maxMs: 30_000 });
      this.log(
        `chain: connection to ${redactUrl(this.options.url)} lost (${this.lastError ?? 'closed'}); reconnecting in ${Math.round(delay)} ms`,
      );
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
    const context = await this.connect(() =>
      createInteractionContext(
        (error) => {
          this.lastError = error.message;
        },
        () => closed(),
        { connection: { address: { webSocket: this.options.url.replace(/\/$/, ''), http } } },
      ),
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
        fail(
          new Error(`Ogmios did not answer a ping within ${Math.round((this.options.heartbeatMs ?? 30_000) / 1000)} s`),
        );
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
    // Until the intersection is found, the library's own listener reads every frame: one that is not
    // JSON would throw inside it, so frames are checked first (a handful of them). After it, frames
    // are this session's alone, parsed once by `onFrame`.
    let intersected = false;
    const emit = socket.emit.bind(socket);
    socket.emit = ((event: string | symbol, ...args: unknown[]) => {
      if (event === 'message' && !intersected) {
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
    const requestNext = () => {
      try {
        ChainSynchronization.nextBlock(context.socket);
      } catch {
        // Closing: the close ends the session.
      }
    };
    const onFrame = (data: unknown) => {
      if (!intersected || broken || this.stopped) return;
      let frame: unknown;
      try {
        frame = parseFrame(String(data));
      } catch {
        fail(new Error('Ogmios sent a frame that is not JSON'), true);
        return;
      }
      const result = (
        frame as { result?: { direction?: unknown; block?: unknown; point?: unknown; tip?: unknown } } | null
      )?.result;
      if (result?.direction !== 'forward' && result?.direction !== 'backward') return;
      void this.exclusive(async () => {
        if (this.stopped || broken) return;
        try {
          this.noteTip(result.tip);
          if (result.direction === 'forward') await this.rollForward(result.block);
          else await this.rollBackward(result.point);
          if (broken) return;
          this.updateState();
          requestNext();
        } catch (error) {
          if (error instanceof RollbackRefusedError) this.refusedRollbacks++;
          fail(error, error instanceof FrameError || error instanceof RollbackRefusedError);
        }
      });
    };
    socket.on('message', onFrame);
    let following = false;
    let points: ChainPoint[] = [];
    try {
      const start = this.ingest.tip ? undefined : await this.newMarketStart(context);
      // A new market's start is the journal's base: the one point before its first block a rollback may go to.
      if (start) this.ingest.startAt(start);
      points = this.ingest.intersectionPoints(start);
      const intersection = await ChainSynchronization.findIntersection(context, points);
      intersected = true;
      this.noteTip(intersection.tip);
      for (let n = 0; n < (this.options.inFlight ?? 100); n++) requestNext();
      following = true;
      this.state = 'syncing';
      this.lastError = undefined;
      const tip = this.ingest.tip;
      this.log(
        `chain: following ${redactUrl(this.options.url)} from ${tip ? `the stored tip, slot ${tip.slot}` : `slot ${this.startPoint?.slot ?? '?'}`}`,
        'info',
      );
    } catch (error) {
      if (error instanceof StartError) {
        fail(error);
        await done;
        clearInterval(heartbeat);
        this.closeCurrent = undefined;
        return false;
      }
      const message =
        (error as { error?: { message?: string } })?.error?.message ??
        (error instanceof Error ? error.message : JSON.stringify(error));
      fail(
        new Error(
          `no intersection with ${redactUrl(this.options.url)} at any of ${points.length} point(s) from slot ${points[0]?.slot ?? '?'}: ${message}`,
        ),
      );
    }
    await done;
    clearInterval(heartbeat);
    this.closeCurrent = undefined;
    return following;
  }

  /**
   * A connection attempt, bounded: the library asks `<http>/health` and opens the WebSocket without a
   * timeout of its own (its ping watchdog starts once connected), so a node that accepts and never
   * answers would hold the source `connecting` for good, and a stop with it. Past the limit (or on a
   * stop) the attempt fails; a connection that arrives later is closed.
   */
  private connect(open: () => Promise<InteractionContext>): Promise<InteractionContext> {
    const limitMs = this.options.connectTimeoutMs ?? 30_000;
    return new Promise((resolve, reject) => {
      let settled = false;
      const settle = (error?: Error) => {
        settled = true;
        clearTimeout(timer);
        this.cancelConnect = undefined;
        if (error) reject(error);
      };
      const timer = setTimeout(
        () => settle(new Error(`Ogmios did not answer a connection within ${Math.round(limitMs / 1000)} s`)),
        limitMs,
      );
      this.cancelConnect = () => settle(new Error('stopped'));
      open().then(
        (context) => {
          if (settled) {
            (context.socket as unknown as NodeSocket).terminate();
            return;
          }
          settle();
          resolve(context);
        },
        (error: unknown) => {
          if (!settled) settle(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
  }

  /**
   * Where a new market (no stored tip) starts: the configured block, or — found once, then kept —
   * the node's tip (Ogmios' `queryNetwork/tip`) or Kupo's newest block at or before the slot N days
   * before it. Throws a StartError saying what to do when it cannot be found.
   */
  private async newMarketStart(context: InteractionContext): Promise<ChainPoint> {
    const start = this.options.start;
    if (start.kind === 'point') return start.point;
    if (this.startPoint) return this.startPoint;
    let tip: { slot: number; id: string } | 'origin';
    try {
      tip = await (await createLedgerStateQueryClient(context)).networkTip();
    } catch (error) {
      throw new StartError(`Ogmios did not tell its tip (queryNetwork/tip: ${errorText(error)})`);
    }
    if (tip === 'origin')
      throw new StartError("the node's chain is empty (its tip is the origin): nothing to follow yet");
    if (start.kind === 'tip') {
      this.startPoint = { slot: tip.slot, id: tip.id };
      this.log(
        `chain: a new market starts at the node's tip, slot ${tip.slot}: prices from its next block on, no history before it. ` +
          'To start earlier, use a new data directory with --chain-start 30d --kupo http://127.0.0.1:1442 (about 30 days back, through a Kupo beside Ogmios) or --chain-start <slot>.<block hash>.',
        'info',
      );
      return this.startPoint;
    }
    const slot = slotDaysBefore(tip.slot, start.days);
    let point: ChainPoint | undefined;
    try {
      point = await kupoCheckpoint(this.options.kupoUrl ?? '', slot, { timeoutMs: 15_000 });
    } catch (error) {
      throw new StartError(`cannot find the block ${start.days} day(s) back: ${errorText(error)}`);
    }
    if (!point)
      throw new StartError(
        `Kupo holds no block at or before slot ${slot} (${start.days} day(s) before the tip): it indexes from a later point. Start Kupo with --since at or before that slot, or ask fewer days`,
      );
    this.startPoint = point;
    this.log(
      `chain: a new market starts about ${start.days} day(s) back, at slot ${point.slot} (block ${point.id}, from Kupo): catching up to the tip at slot ${tip.slot}`,
      'info',
    );
    return point;
  }

  /** A RollForward: the block applied, and committed now unless catching up (then in a batch). */
  private async rollForward(raw: unknown): Promise<void> {
    let block;
    try {
      block = fromOgmiosBlock(raw);
    } catch (error) {
      if (!(error instanceof BlockShapeError)) throw error;
      await this.ingest.skipBlock(error.header, error.message, { commit: false });
      await this.afterBlock(error.header.slot);
      return;
    }
    await this.ingest.applyBlock(block, { commit: false });
    await this.afterBlock(block.slot);
  }

  /** Commits the pending blocks unless catching up with room left in the batch (then a timer flushes it if no block follows). */
  private async afterBlock(slot: number): Promise<void> {
    const batch = this.options.batch ?? {};
    const behind = this.nodeTip ? this.nodeTip.slot - slot : 0;
    const now = performance.now();
    if (this.ingest.pendingBlocks === 1) this.batchStarted = now;
    const catchingUp = behind > (batch.lagSeconds ?? CATCH_UP_LAG_SECONDS);
    const maxMs = batch.maxMs ?? BATCH_MAX_MS;
    if (
      !catchingUp ||
      this.ingest.pendingBlocks >= (batch.maxBlocks ?? BATCH_MAX_BLOCKS) ||
      now - this.batchStarted >= maxMs
    ) {
      await this.flush();
      return;
    }
    if (!this.batchTimer) {
      this.batchTimer = setTimeout(() => {
        this.batchTimer = undefined;
        void this.exclusive(() => this.flush()).catch((error: unknown) => {
          this.lastError = error instanceof Error ? error.message : String(error);
          this.log(
            `chain: a batch could not be committed (${this.lastError}); reconnecting to resume at the stored tip`,
          );
          this.closeCurrent?.();
        });
      }, maxMs);
      this.batchTimer.unref();
    }
  }

  private async rollBackward(raw: unknown): Promise<void> {
    const point = fromOgmiosPoint(raw);
    clearTimeout(this.batchTimer);
    this.batchTimer = undefined;
    const undone = await this.ingest.rollBackTo(point);
    if (undone > 0) {
      this.rollbacks++;
      this.deepestRollback = Math.max(this.deepestRollback, undone);
      this.options.onRollback?.(point, undone);
    }
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
