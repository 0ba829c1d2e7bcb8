import { backoffDelay } from '../../shared/backoff';
import {
  extendedStreamLineSchema,
  METADATA_EXTENSION,
  ROLLBACK_EXTENSION,
  STREAM_ERRORS,
  STREAM_EXTENSIONS_HEADER,
  type StreamMetadata,
  type StreamRollback,
  type TradeEvent,
} from '../../shared/api/stream';
import type { LogHook } from '../../node/log';
import type { Upstream } from '../upstream';

/** Longest upstream line the gateway waits for (a trade event is about 250 characters). */
const MAX_LINE_CHARS = 1 << 20;

export interface UpstreamStreamOptions {
  readonly upstream: Upstream;
  readonly silenceMs: number;
  readonly debounceMs: number;
  readonly backoffInitialMs: number;
  readonly backoffMaxMs: number;
  /** How long a replaced connection stays open after its successor is live (its in-flight events still count). */
  readonly handoverMs?: number;
  /** How long the connection stays up after the last pool is dropped (browsers reloading come back). */
  readonly idleLingerMs?: number;
  /** Uniform [0, 1) for jitter (injectable for tests). */
  readonly random?: () => number;
  readonly log?: LogHook;
}

export interface UpstreamListener {
  /** A subscription covering `pools` is live; `afterFailure` when events may have been missed before it. */
  onLive(pools: ReadonlySet<string>, afterFailure: boolean): void;
  /** The connection dropped or was refused; reconnecting with backoff. */
  onDown(reason: string): void;
  /** No pool is wanted any more (after the linger): the upstream connection was closed on purpose. */
  onIdle(): void;
  /**
   * The live subscription ended before its successor is live (a switch that breaks before making, or
   * the current connection dropping mid-switch): no pool is covered, and events may be missed, until
   * the next `onLive`.
   */
  onInterrupted(): void;
  /**
   * The upstream refused a subscription as more pools than its plan allows; `limit` is what it allows
   * (stated in the refusal, or one less than was asked). The listener must shrink the wanted pools to
   * `limit` at most (`setPools`); the stream then subscribes within it.
   */
  onPoolLimit(limit: number): void;
  /** A switch to the wanted pools failed while the current subscription keeps running; retried with backoff. */
  onSwitchFailed(reason: string): void;
  onEvent(event: TradeEvent): void;
  /**
   * The upstream's chain rolled back (our service's extension line, asked with `X-Stream-Extensions:
   * rollback`; other upstreams never send it). `connection` names the upstream connection it came
   * through: while two overlap (a switch), each brings its own copy of the same line.
   */
  onRollback(rollback: StreamRollback, connection: object): void;
  /** What the upstream knows of some tokens changed (our extension line `metadata`); as `onRollback` for copies. */
  onMetadata(metadata: StreamMetadata, connection: object): void;
}

/** One upstream stream connection. */
interface Connection {
  readonly pools: ReadonlySet<string>;
  /**
   * Opened beside the live connection, with none ended to make room for it (make before break): the
   * upstream is asked not to hold it for a slot (`Prefer: wait=0`), so a key that allows one stream
   * refuses it at once. Any other connection replaces one that just ended, and may wait for its slot.
   */
  readonly beside: boolean;
  readonly abort: AbortController;
  silence: ReturnType<typeof setTimeout> | undefined;
  closed: boolean;
}

/**
 * The gateway's ONE upstream stream for its key, carrying the union of every browser's pools.
 *
 * - When the last browser leaves, the subscription lingers (`idleLingerMs`) before it closes, so a
 *   browser that reloads or reconnects finds its events complete.
 * - A change of the union re-subscribes (debounced) make-before-break: the new connection opens beside
 *   the old, takes over once live, and the old one stays a moment longer so its in-flight events
 *   arrive; events delivered twice in the handover are dropped. When the key allows a single
 *   connection (the hosted API), the new one is refused with `Connection limit exceeded`: the gateway
 *   then breaks before making (the listener hears `onInterrupted`), and the new subscription goes live
 *   with `afterFailure`, so browsers resync. The same when the current connection drops mid-switch.
 *   The new connection asks not to be held for a slot (`Prefer: wait=0`): our service would otherwise
 *   wait for one to free (a client's handover) before refusing it.
 * - A refusal for more pools than the upstream plan allows tells the listener the plan's limit
 *   (`onPoolLimit`); it drops browsers until the union fits, and the stream subscribes within it.
 *   Any other refused switch is retried with backoff while the current subscription keeps running
 *   (`onSwitchFailed`).
 * - A drop, an error event or silence longer than `silenceMs` reconnects with exponential backoff and
 *   jitter, forever; the listener hears `onDown`, then `onLive(afterFailure = true)`.
 */
export class UpstreamStream {
  private wanted = new Set<string>();
  /** The live connection delivering events. */
  private current: Connection | undefined;
  /** A connection being opened (first connect, reconnect or re-subscription). */
  private opening: Connection | undefined;
  /** A replaced connection finishing its handover. */
  private retiring: Connection | undefined;
  private debounce: ReturnType<typeof setTimeout> | undefined;
  private retry: ReturnType<typeof setTimeout> | undefined;
  private linger: ReturnType<typeof setTimeout> | undefined;
  private attempt = 0;
  /** Events may have been missed since the last live subscription. */
  private missed = false;
  private down = false;
  private closed = false;
  /** Events delivered during the current switch (to drop their second copies). */
  private readonly delivered = new Set<string>();

  constructor(
    private readonly options: UpstreamStreamOptions,
    private readonly listener: UpstreamListener,
  ) {}

  /** The pools of the live subscription, or undefined when none is live. */
  get livePools(): ReadonlySet<string> | undefined {
    return this.current?.pools;
  }

  get isDown(): boolean {
    return this.down;
  }

  /**
   * The upstream says events may have been missed although its stream never broke (a cluster's API
   * node that resynced from its store after a gap in its commit messages): the listener hears it as
   * after a reconnect, `onLive(pools, afterFailure = true)`, so browsers resync. Without a live
   * subscription, the next one goes live with `afterFailure`.
   */
  markMissed(): void {
    if (this.closed) return;
    if (this.current && !this.opening && this.retry === undefined) {
      this.listener.onLive(this.current.pools, true);
      return;
    }
    this.missed = true;
  }

  /** Sets the union of pools to carry; the connection follows after the debounce. */
  setPools(pools: Iterable<string>): void {
    const next = new Set(pools);
    if (sameSet(next, this.wanted)) return;
    this.wanted = next;
    if (this.debounce !== undefined) clearTimeout(this.debounce);
    this.debounce = setTimeout(() => {
      this.debounce = undefined;
      this.apply();
    }, this.options.debounceMs);
  }

  private apply(): void {
    if (this.closed) return;
    if (this.wanted.size === 0) {
      // Keep the subscription a while: a browser reloading or reconnecting finds it still live.
      if (this.current && !this.retry && (this.options.idleLingerMs ?? 0) > 0) {
        this.linger ??= setTimeout(() => {
          this.linger = undefined;
          if (this.wanted.size === 0) this.idle();
        }, this.options.idleLingerMs);
        this.linger.unref?.();
        return;
      }
      this.idle();
      return;
    }
    if (this.linger !== undefined) clearTimeout(this.linger);
    this.linger = undefined;
    if (this.retry !== undefined) return; // a pending retry uses the latest set
    if (this.opening && sameSet(this.opening.pools, this.wanted)) return;
    if (!this.opening && this.current && sameSet(this.current.pools, this.wanted)) return;
    const replacing = [this.opening, this.retiring].some(
      (connection) => connection !== undefined && !connection.closed,
    );
    this.end(this.opening);
    // The key may allow two connections at most: the handover of an earlier switch ends now.
    this.end(this.retiring);
    this.retiring = undefined;
    this.open(new Set(this.wanted), this.current !== undefined && !replacing);
  }

  /** No pool wanted: close everything and say so. */
  private idle(): void {
    if (this.retry !== undefined) clearTimeout(this.retry);
    this.retry = undefined;
    this.attempt = 0;
    for (const connection of [this.current, this.opening, this.retiring]) this.end(connection);
    this.current = this.opening = this.retiring = undefined;
    this.down = false;
    // Nobody is connected to miss anything: the next subscription starts clean.
    this.missed = false;
    this.listener.onIdle();
  }

  private end(connection: Connection | undefined): void {
    if (!connection || connection.closed) return;
    connection.closed = true;
    if (connection.silence !== undefined) clearTimeout(connection.silence);
    connection.abort.abort();
  }

  private open(pools: ReadonlySet<string>, beside = false): void {
    const connection: Connection = { pools, beside, abort: new AbortController(), silence: undefined, closed: false };
    this.opening = connection;
    void this.run(connection).catch((error: unknown) =>
      this.failed(connection, error instanceof Error ? error.message : String(error)),
    );
  }

  private async run(connection: Connection): Promise<void> {
    this.armSilence(connection);
    const response = await this.options.upstream.fetch('/api/v1/tokens/stream', {
      method: 'POST',
      // RFC 7240's wait preference: our service then refuses at once instead of waiting for a slot to free.
      // Our service's rollback lines are asked for (docs/chain.md); an upstream without them ignores the header.
      headers: {
        'Content-Type': 'application/json',
        Accept: 'text/event-stream',
        [STREAM_EXTENSIONS_HEADER]: `${ROLLBACK_EXTENSION}, ${METADATA_EXTENSION}`,
        ...(connection.beside ? { Prefer: 'wait=0' } : {}),
      },
      body: JSON.stringify([...connection.pools].sort()),
      signal: connection.abort.signal,
    });
    if (connection.closed) {
      await response.body?.cancel().catch(() => {});
      return;
    }
    if (!response.ok || !response.body) {
      const text = await response.text().catch(() => '');
      throw new Error(`upstream answered ${response.status}: ${text.trim().slice(0, 200)}`);
    }
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    connection.abort.signal.addEventListener('abort', () => void reader.cancel().catch(() => {}), { once: true });
    let buffer = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (connection.closed) return;
      if (done) throw new Error('upstream closed the stream');
      if (value.length === 0) continue;
      // Any data is a sign of life (armed once per chunk: a commit's lines come in one).
      this.armSilence(connection);
      buffer += value;
      let newline = buffer.indexOf('\n');
      while (newline !== -1) {
        const line = buffer.slice(0, newline).trim();
        buffer = buffer.slice(newline + 1);
        newline = buffer.indexOf('\n');
        if (line === '') continue;
        const parsed = extendedStreamLineSchema.safeParse(safeJson(line));
        if (!parsed.success) {
          this.options.log?.(`gateway: ignoring an unparseable upstream line: ${line.slice(0, 120)}`, {
            level: 'warn',
          });
          continue;
        }
        const message = parsed.data;
        if ('errmsg' in message) throw new Error(`upstream refused: ${message.errmsg}`);
        // The first line (a ping or an event) shows the subscription was accepted.
        if (connection === this.opening) this.live(connection);
        if ('pool_id' in message) this.deliver(message);
        else if (message.s === 'rollback') this.listener.onRollback(message, connection);
        else if (message.s === 'metadata') this.listener.onMetadata(message, connection);
        if (connection.closed) return;
      }
      // A line that never ends is a broken upstream, and would grow this buffer without bound.
      if (buffer.length > MAX_LINE_CHARS)
        throw new Error(`upstream sent over ${MAX_LINE_CHARS} characters without a line end`);
    }
  }

  private live(connection: Connection): void {
    const replaced = this.current;
    this.current = connection;
    this.opening = undefined;
    this.attempt = 0;
    this.down = false;
    if (replaced) {
      // Keep the old connection a moment: events already on their way through it still arrive.
      this.retiring = replaced;
      setTimeout(() => {
        if (this.retiring === replaced) this.retiring = undefined;
        this.end(replaced);
      }, this.options.handoverMs ?? 1000).unref?.();
    }
    const afterFailure = this.missed;
    this.missed = false;
    this.listener.onLive(connection.pools, afterFailure);
    if (!sameSet(this.wanted, connection.pools)) this.apply();
  }

  private deliver(event: TradeEvent): void {
    // Copies arrive twice only while two connections overlap (a switch): remember events just then.
    if (this.opening || this.retiring) {
      const key = `${event.pool_id}|${event.block_time}|${event.previous_price}|${event.current_price}|${event.previous_tvl}|${event.current_tvl}|${event.volume}`;
      if (this.delivered.has(key)) return;
      this.delivered.add(key);
    } else if (this.delivered.size > 0) {
      this.delivered.clear();
    }
    this.listener.onEvent(event);
  }

  private armSilence(connection: Connection): void {
    if (connection.silence !== undefined) clearTimeout(connection.silence);
    connection.silence = setTimeout(
      () => this.failed(connection, `no data from upstream for ${this.options.silenceMs / 1000} s`),
      this.options.silenceMs,
    );
  }

  /** A connection failed (refused, dropped, silent). */
  private failed(connection: Connection, reason: string): void {
    if (this.closed || connection.closed) return;
    this.end(connection);
    if (connection === this.retiring) {
      this.retiring = undefined;
      return;
    }
    if (connection === this.opening) {
      this.opening = undefined;
      const limit = planLimit(reason, connection.pools.size);
      if (limit !== undefined) {
        this.options.log?.(
          `gateway: the upstream plan allows ${limit} pools per stream (${connection.pools.size} were asked); following at most ${limit} (set GATEWAY_UPSTREAM_MAX_POOLS=${limit})`,
          { level: 'warn' },
        );
        // The listener drops browsers until the union fits; setPools then re-subscribes (debounced).
        this.listener.onPoolLimit(limit);
        if (this.wanted.size <= limit) {
          if (this.debounce === undefined) this.apply();
          return;
        }
      }
      if (this.current && reason.includes(STREAM_ERRORS.connectionLimit)) {
        // One connection per key: switch by breaking first; browsers resync once the new one is live.
        this.options.log?.('gateway: the upstream key allows one stream; re-subscribing without overlap');
        this.end(this.current);
        this.end(this.retiring);
        this.current = this.retiring = undefined;
        this.missed = true;
        this.listener.onInterrupted();
        this.open(new Set(this.wanted));
        return;
      }
      if (this.current) {
        // The switch failed but the current subscription still runs: try the switch again later.
        this.listener.onSwitchFailed(reason);
        this.scheduleRetry(reason);
        return;
      }
      this.goDown(reason);
      return;
    }
    if (connection === this.current) {
      this.current = undefined;
      this.missed = true;
      if (this.opening) {
        // A switch is under way and will go live with afterFailure; until then nothing is covered.
        this.listener.onInterrupted();
        return;
      }
      this.goDown(reason);
    }
  }

  private goDown(reason: string): void {
    this.missed = true;
    if (!this.down) {
      this.down = true;
      this.listener.onDown(reason);
    }
    if (reason.includes(STREAM_ERRORS.invalidAuth))
      this.options.log?.('gateway: the upstream rejects the gateway key: check UPSTREAM_API_KEY', { level: 'error' });
    this.scheduleRetry(reason);
  }

  private scheduleRetry(reason: string): void {
    if (this.retry !== undefined) return;
    const delay = backoffDelay(
      this.attempt,
      { initialMs: this.options.backoffInitialMs, maxMs: this.options.backoffMaxMs },
      this.options.random,
    );
    this.attempt++;
    this.options.log?.(`gateway: upstream stream: ${reason}; retry ${this.attempt} in ${delay} ms`, { level: 'warn' });
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.apply();
    }, delay);
  }

  close(): void {
    this.closed = true;
    if (this.debounce !== undefined) clearTimeout(this.debounce);
    if (this.retry !== undefined) clearTimeout(this.retry);
    if (this.linger !== undefined) clearTimeout(this.linger);
    for (const connection of [this.current, this.opening, this.retiring]) this.end(connection);
    this.current = this.opening = this.retiring = undefined;
  }
}

function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a.size !== b.size) return false;
  for (const x of a) if (!b.has(x)) return false;
  return true;
}

/**
 * The pool limit a refusal reveals: our service says `Too many pools for this plan: 119 requested, the
 * pro plan allows 100 per connection`. Without a stated number, one less than was asked (each refusal
 * then lowers it until a subscription passes). Undefined when the refusal is about something else.
 */
export function planLimit(reason: string, requested: number): number | undefined {
  if (!reason.includes(STREAM_ERRORS.tooManyPools)) return undefined;
  const stated = Number(/\ballows (\d+)/.exec(reason)?.[1] ?? Number.NaN);
  const limit = Number.isSafeInteger(stated) && stated < requested ? stated : requested - 1;
  return limit >= 1 ? limit : undefined;
}

function safeJson(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}
