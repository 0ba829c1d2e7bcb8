import {
  LIVE_EVENTS,
  type LiveError,
  type LiveMetadata,
  type LiveRollback,
  type LiveStatus,
} from '../../shared/api/gateway';
import type { StreamMetadata, StreamRollback, TradeEvent } from '../../shared/api/stream';
import { DEFAULT_GATEWAY_CONFIG } from '../config';
import { AddressShares, addressCap } from './address-shares';
import { TradeFanout } from './trade-fanout';
import type { UpstreamListener } from './upstream-stream';

/** One browser connection's sink of SSE frames. */
export interface LiveClient {
  readonly pools: ReadonlySet<string>;
  readonly address: string;
  /** Writes a frame (`bytes`: its UTF-8 length, when known); returns false when the client is too slow and was dropped. */
  write(frame: string, bytes?: number): boolean;
  /**
   * Writes a frame at once, after anything queued (a run's trades, gathered already); without it,
   * trades are written with `write`.
   */
  writeNow?(frame: string, bytes?: number): boolean;
  close(): void;
  /** Whether this client has been told its subscription is live. */
  connected: boolean;
  /** Whether the upstream went down while this client was connected (its next `connected` carries resync). */
  missedEvents: boolean;
}

interface Stored {
  readonly seq: number;
  /** The trade's pool, or EVERY_POOL (a rollback: replayed to every browser). */
  readonly poolId: string;
  readonly frame: string;
}

/** The pool of a stored frame that every browser gets (a rollback names no pool). */
const EVERY_POOL = '*';

/**
 * How long after a rollback the same line from another upstream connection is taken for a copy: the
 * service sends it to every connection open at the time, and a replaced connection lives its handover
 * (GATEWAY_HANDOVER_MS, 1 s) beside its successor, so copies come within milliseconds of each other.
 */
const ROLLBACK_COPY_MS = 5_000;

/**
 * Rollbacks sent to browsers: at most one per this window (the first at once, the ones after it merged
 * into one naming the deepest point, sent when the window ends). A storm of rollbacks (1,500 in a few
 * seconds) becomes a handful of events, each a reload for every browser.
 */
export const ROLLBACK_WINDOW_MS = DEFAULT_GATEWAY_CONFIG.rollbackWindowMs;

/** Formats one SSE frame. `data` is JSON on one line, so a single `data:` field suffices. */
export function sseFrame(event: string, data: unknown, id?: string): string {
  return `${id === undefined ? '' : `id: ${id}\n`}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

export function statusFrame(status: LiveStatus, id?: string): string {
  return sseFrame(LIVE_EVENTS.status, status, id);
}

export function errorFrame(error: LiveError): string {
  return sseFrame(LIVE_EVENTS.error, error);
}

const RING_SIZE = 10_000;

export interface LiveHubOptions {
  /** Pools the upstream subscription may carry (GATEWAY_UPSTREAM_MAX_POOLS); lowered when the upstream reveals its plan's limit. */
  readonly upstreamMaxPools?: number;
  /** Share of that budget one client address may follow, percent (GATEWAY_ADDRESS_SHARE_PERCENT; default 100: no share). */
  readonly addressSharePercent?: number;
  /** Pools one connection may follow (GATEWAY_MAX_POOLS_PER_CONNECTION): an address's share is never less. */
  readonly maxPoolsPerConnection?: number;
  /** Rollback events at most one per this many ms (GATEWAY_ROLLBACK_WINDOW_MS; default ROLLBACK_WINDOW_MS). */
  readonly rollbackWindowMs?: number;
  /** Told when a rollback event is sent to the browsers (the gateway drops the held answers that carry prices). */
  readonly onRollbackSent?: (rollback: LiveRollback) => void;
  /** Told when a metadata event is sent (the gateway drops every answer it holds: names and prices may differ). */
  readonly onMetadataSent?: (metadata: LiveMetadata) => void;
}

/**
 * Fans upstream trade events out to browser connections (each gets only its pools), keeps the union
 * of pools for the upstream connection, tells browsers the upstream status, and keeps the last
 * events so a browser reconnecting with Last-Event-ID gets what it missed.
 */
export class LiveHub implements UpstreamListener {
  private readonly clients = new Set<LiveClient>();
  /**
   * Trades go out through this, per set of pools and per run; anything else written to a browser is
   * written after `fanout.flush()`, so that it follows the trades that came before it.
   */
  private readonly fanout = new TradeFanout<LiveClient>((written, dropped) => {
    this.delivered += written;
    this.dropped += dropped;
  });
  private readonly shares = new AddressShares();
  private readonly ring: Stored[] = [];
  private nextSeq = 1;
  /** Distinguishes this gateway process's event ids from an earlier one's (ids are `<boot>.<seq>`). */
  private readonly boot = Date.now().toString(36);
  private livePools: ReadonlySet<string> | undefined;
  private down = false;
  /** Sequence numbers after which events may be missing (the upstream went idle, down or was interrupted there). */
  private readonly gaps: number[] = [];
  /** The upstream plan's pool limit, once a refusal revealed it. */
  private planMaxPools: number | undefined;
  /** A switch to the wanted pools is failing (retried with backoff) while the current one runs. */
  private switchFailing = false;
  /** Browsers waiting for a failing switch that were told `reconnecting`. */
  private readonly toldWaiting = new WeakSet<LiveClient>();
  /** Trade events written to browsers, and those a browser could not take (dropped as too slow): totals since start. */
  delivered = 0;
  dropped = 0;
  /** Browsers dropped for not reading fast enough (counted by the live route). */
  slowConsumers = 0;
  /** Rollbacks sent lately, by `slot:id`: the upstream connections that brought each, and when it was sent (copies are dropped). */
  private readonly rollbacksSent = new Map<string, { readonly connections: Set<object>; readonly at: number }>();
  /** Metadata changes sent lately (by version), as `rollbacksSent`. */
  private readonly metadataSent = new Map<number, { readonly connections: Set<object>; readonly at: number }>();
  /** When the last rollback event went out (ms, Date.now), the one merged since, and its timer. */
  private rollbackSentAt = Number.NEGATIVE_INFINITY;
  private heldRollback: LiveRollback | undefined;
  private rollbackTimer: ReturnType<typeof setTimeout> | undefined;
  /** Rollback lines taken from the upstream (copies left out), and events sent for them (metrics, tests). */
  rollbacksReceived = 0;
  rollbackEvents = 0;

  constructor(
    private readonly onUnionChange: (pools: ReadonlySet<string>) => void,
    private readonly options: LiveHubOptions = {},
  ) {}

  /** Each followed pool (the keys: the union of every browser's pools). */
  private get byPool(): ReadonlyMap<string, unknown> {
    return this.fanout.byPool;
  }

  get size(): number {
    return this.clients.size;
  }

  connectionsOf(address: string): number {
    return this.shares.connectionsOf(address);
  }

  /** Distinct pools an address follows over its connections. */
  poolsOf(address: string): number {
    return this.shares.poolsOf(address);
  }

  /**
   * The id of the newest event: status and heartbeat frames carry it too, so a browser that saw no
   * trade can still resume from where it was with Last-Event-ID.
   */
  get lastEventId(): string {
    return `${this.boot}.${this.nextSeq - 1}`;
  }

  get union(): ReadonlySet<string> {
    return new Set(this.byPool.keys());
  }

  /** Pools the upstream subscription may carry: the configured maximum, or the upstream plan's limit once known. */
  get maxPools(): number {
    return Math.min(
      this.options.upstreamMaxPools ?? Number.POSITIVE_INFINITY,
      this.planMaxPools ?? Number.POSITIVE_INFINITY,
    );
  }

  /** Pools one client address may follow at once: its share of `maxPools` (address-shares.ts). */
  get addressMaxPools(): number {
    return this.addressMaxPoolsOf(this.maxPools);
  }

  private addressMaxPoolsOf(max: number): number {
    return addressCap(max, this.options.addressSharePercent ?? 100, this.options.maxPoolsPerConnection ?? max);
  }

  /** Whether adding these pools keeps the union within `max`. */
  fits(pools: ReadonlySet<string>, max = this.maxPools): boolean {
    let added = 0;
    for (const p of pools) if (!this.byPool.has(p)) added++;
    return this.byPool.size + added <= max;
  }

  /**
   * Why a browser at `address` asking for `pools` cannot be served, if so: past its address's share of
   * the upstream's pool limit, or past the limit itself.
   */
  refusal(pools: ReadonlySet<string>, address?: string): LiveError | undefined {
    const max = this.maxPools;
    if (pools.size > max) return this.limitError(pools, max, this.byPool.size);
    if (address !== undefined) {
      const share = this.shareError(pools, address, this.shares.poolsWith(address, pools), max);
      if (share) return share;
    }
    return this.fits(pools, max) ? undefined : this.limitError(pools, max, this.byPool.size);
  }

  /** The refusal of a browser that would take its address to `wouldFollow` pools, when past its share of `max`. */
  private shareError(
    pools: ReadonlySet<string>,
    address: string,
    wouldFollow: number,
    max: number,
  ): LiveError | undefined {
    const cap = this.addressMaxPoolsOf(max);
    if (wouldFollow <= cap) return undefined;
    const rule = `each client address may follow at most ${cap} of the gateway's ${max} pools`;
    // More than an address may follow at all: asking again cannot help.
    if (pools.size > cap)
      return { errmsg: `Too many pools for one client address: ${pools.size} requested, ${rule}`, retry: false };
    return {
      errmsg: `Too many pools from ${address}: its live connections follow ${this.shares.poolsOf(address)}, and ${rule}; close another or try again later`,
      retry: true,
    };
  }

  private limitError(pools: ReadonlySet<string>, max: number, followed: number): LiveError {
    const rule =
      this.planMaxPools === max
        ? `the gateway's upstream plan allows ${max} pools per stream`
        : `the gateway follows at most ${max} pools`;
    // More than the whole upstream subscription may carry: asking again cannot help.
    if (pools.size > max)
      return { errmsg: `Too many pools for the gateway: ${pools.size} requested, ${rule}`, retry: false };
    return {
      errmsg: `The gateway is at its limit: ${rule}, and other browsers follow ${followed}; try again later`,
      retry: true,
    };
  }

  /**
   * Adds a browser. With `lastEventId`, replays the events it missed for its pools when the ring still
   * holds them; otherwise its first `connected` status asks it to resync.
   */
  add(client: LiveClient, lastEventId?: string): void {
    // Trades queued before this browser came are not its own.
    this.fanout.flush();
    this.clients.add(client);
    this.shares.add(client.address, client.pools);
    const grew = this.fanout.add(client);
    if (lastEventId !== undefined) {
      const [boot, seqText] = lastEventId.split('.');
      const seq = Number(seqText);
      const oldest = this.ring[0]?.seq ?? this.nextSeq;
      if (boot === this.boot && Number.isSafeInteger(seq) && seq + 1 >= oldest) {
        for (const stored of this.ring)
          if (stored.seq > seq && (stored.poolId === EVERY_POOL || client.pools.has(stored.poolId)))
            client.write(stored.frame);
        // The ring has all the gateway received since then, but the gateway itself may have missed some.
        if (this.gaps.some((gap) => gap >= seq)) client.missedEvents = true;
      } else {
        client.missedEvents = true;
      }
    }
    if (this.down) client.write(statusFrame({ state: 'reconnecting', resync: false }, this.lastEventId));
    else if (this.covers(client)) this.markConnected(client);
    else if (this.switchFailing) this.tellWaiting(client);
    if (grew) this.onUnionChange(this.union);
  }

  /** Sends a browser an error event, then drops it (its pools leave the union). */
  private refuse(client: LiveClient, error: LiveError): void {
    client.write(errorFrame(error));
    this.remove(client);
    client.close();
  }

  remove(client: LiveClient): void {
    if (!this.clients.delete(client)) return;
    this.shares.remove(client.address, client.pools);
    if (!this.fanout.remove(client)) return;
    // The browsers a failing switch was for may all have left: what remains is live already.
    if (this.switchFailing && this.livePools && [...this.byPool.keys()].every((pool) => this.livePools?.has(pool)))
      this.switchFailing = false;
    this.onUnionChange(this.union);
  }

  private covers(client: LiveClient): boolean {
    if (!this.livePools) return false;
    for (const pool of client.pools) if (!this.livePools.has(pool)) return false;
    return true;
  }

  private markConnected(client: LiveClient): void {
    client.write(statusFrame({ state: 'connected', resync: client.missedEvents }, this.lastEventId));
    client.connected = true;
    client.missedEvents = false;
    this.toldWaiting.delete(client);
  }

  /** A browser whose pools the upstream does not carry yet, while the switch to them is failing. */
  private tellWaiting(client: LiveClient): void {
    if (this.toldWaiting.has(client)) return;
    this.toldWaiting.add(client);
    client.write(statusFrame({ state: 'reconnecting', resync: false }, this.lastEventId));
  }

  onLive(pools: ReadonlySet<string>, afterFailure: boolean): void {
    this.fanout.flush();
    this.livePools = pools;
    this.down = false;
    this.switchFailing = false;
    // Events may have been missed before this subscription: a browser resuming from before it resyncs.
    if (afterFailure) this.markGap();
    for (const client of this.clients) {
      if (afterFailure && client.connected) {
        client.connected = false;
        client.missedEvents = true;
      }
      if (!client.connected && this.covers(client)) this.markConnected(client);
    }
  }

  private markGap(): void {
    const at = this.nextSeq - 1;
    if (this.gaps.at(-1) === at) return;
    this.gaps.push(at);
    if (this.gaps.length > 64) this.gaps.shift();
  }

  onIdle(): void {
    this.fanout.flush();
    this.livePools = undefined;
    this.down = false;
    this.switchFailing = false;
    this.markGap();
  }

  onInterrupted(): void {
    this.fanout.flush();
    // Nothing is live until the next subscription is: browsers joining now wait for it.
    this.livePools = undefined;
    this.markGap();
    for (const client of this.clients) {
      if (client.connected) client.missedEvents = true;
      client.connected = false;
    }
  }

  onPoolLimit(limit: number): void {
    this.fanout.flush();
    this.planMaxPools = limit;
    // Keep the browsers that are live first, then the others in the order they came, while they fit,
    // each address within its share of the new limit.
    const max = this.maxPools;
    const ordered = [...this.clients].sort((a, b) => Number(b.connected) - Number(a.connected));
    const kept = new Set<string>();
    const keptOf = new Map<string, Set<string>>();
    const dropped: [LiveClient, () => LiveError][] = [];
    for (const client of ordered) {
      let added = 0;
      for (const pool of client.pools) if (!kept.has(pool)) added++;
      if (kept.size + added > max) {
        dropped.push([client, () => this.limitError(client.pools, max, kept.size)]);
        continue;
      }
      const own = keptOf.get(client.address) ?? new Set<string>();
      let ownAdded = 0;
      for (const pool of client.pools) if (!own.has(pool)) ownAdded++;
      const share = this.shareError(client.pools, client.address, own.size + ownAdded, max);
      if (share) {
        dropped.push([client, () => share]);
        continue;
      }
      for (const pool of client.pools) {
        kept.add(pool);
        own.add(pool);
      }
      keptOf.set(client.address, own);
    }
    for (const [client, error] of dropped) this.refuse(client, error());
  }

  onSwitchFailed(): void {
    this.fanout.flush();
    this.switchFailing = true;
    for (const client of this.clients) if (!client.connected) this.tellWaiting(client);
  }

  onDown(): void {
    this.fanout.flush();
    this.livePools = undefined;
    this.down = true;
    this.switchFailing = false;
    this.markGap();
    for (const client of this.clients) {
      if (client.connected) client.missedEvents = true;
      client.connected = false;
      client.write(statusFrame({ state: 'reconnecting', resync: false }, this.lastEventId));
    }
  }

  onEvent(event: TradeEvent): void {
    const seq = this.nextSeq++;
    const frame = sseFrame(LIVE_EVENTS.trade, event, `${this.boot}.${seq}`);
    this.ring.push({ seq, poolId: event.pool_id, frame });
    // Trimmed in steps, not per event.
    if (this.ring.length > RING_SIZE * 1.25) this.ring.splice(0, this.ring.length - RING_SIZE);
    if (this.byPool.has(event.pool_id)) this.fanout.publish(event.pool_id, frame, Buffer.byteLength(frame));
  }

  /**
   * The upstream's chain rolled back. Each connection open when the service sent it brings its own
   * copy: a line naming the block of a rollback just taken is a copy when its connection has not
   * brought that block yet; from a connection that has, it is a new rollback. Rollbacks are merged on
   * the way to the browsers: the first in a window (ROLLBACK_WINDOW_MS) is sent at once, those after it
   * become one event naming the deepest point, sent when the window ends (every trade after that point
   * was undone, which covers the others). Each event has an id and is kept for replay like trades.
   */
  onRollback(rollback: StreamRollback, connection: object): void {
    const now = Date.now();
    if (isCopy(this.rollbacksSent, `${rollback.slot}:${rollback.id}`, connection, now)) return;
    this.rollbacksReceived++;
    const payload: LiveRollback = { slot: rollback.slot, id: rollback.id, time: rollback.block_time };
    const held = this.heldRollback;
    this.heldRollback = held === undefined || payload.slot < held.slot ? payload : held;
    const window = this.options.rollbackWindowMs ?? ROLLBACK_WINDOW_MS;
    const wait = this.rollbackSentAt + window - now;
    if (wait <= 0 && this.rollbackTimer === undefined) {
      this.sendRollback();
      return;
    }
    this.rollbackTimer ??= setTimeout(
      () => {
        this.rollbackTimer = undefined;
        this.sendRollback();
      },
      Math.max(0, wait),
    );
    this.rollbackTimer.unref?.();
  }

  /** Sends the held (deepest) rollback to every browser, and starts a window. */
  private sendRollback(): void {
    const payload = this.heldRollback;
    if (payload === undefined) return;
    this.heldRollback = undefined;
    this.rollbackSentAt = Date.now();
    this.rollbackEvents++;
    const seq = this.nextSeq++;
    const frame = sseFrame(LIVE_EVENTS.rollback, payload, `${this.boot}.${seq}`);
    this.ring.push({ seq, poolId: EVERY_POOL, frame });
    this.broadcast(frame);
    this.options.onRollbackSent?.(payload);
  }

  /**
   * What the upstream knows of some tokens changed: every browser gets one `metadata` event, however many
   * upstream connections bring the line (copies told apart as rollbacks' are).
   */
  onMetadata(metadata: StreamMetadata, connection: object): void {
    if (isCopy(this.metadataSent, metadata.version, connection, Date.now())) return;
    const seq = this.nextSeq++;
    const payload: LiveMetadata = { units: metadata.units };
    // What the gateway holds is dropped before browsers hear of the change (they ask again at once).
    this.options.onMetadataSent?.(payload);
    const frame = sseFrame(LIVE_EVENTS.metadata, payload, `${this.boot}.${seq}`);
    this.ring.push({ seq, poolId: EVERY_POOL, frame });
    this.broadcast(frame);
  }

  /** Sends a frame to every browser (heartbeats). */
  broadcast(frame: string): void {
    this.fanout.flush();
    for (const client of [...this.clients]) client.write(frame);
  }

  closeAll(): void {
    clearTimeout(this.rollbackTimer);
    this.rollbackTimer = undefined;
    this.fanout.flush();
    for (const client of [...this.clients]) client.close();
  }
}

/**
 * Whether a line naming `key` is a copy of one sent in the last ROLLBACK_COPY_MS: while two upstream connections
 * overlap, each brings its own copy, so a line is a copy when its connection had not brought that key yet (from a
 * connection that had, it is a new line with the same key). Records the line when it is not a copy.
 */
function isCopy<K>(
  sent: Map<K, { readonly connections: Set<object>; readonly at: number }>,
  key: K,
  connection: object,
  now: number,
): boolean {
  for (const [seen, line] of sent) if (now - line.at > ROLLBACK_COPY_MS) sent.delete(seen);
  const line = sent.get(key);
  if (line && !line.connections.has(connection)) {
    line.connections.add(connection);
    return true;
  }
  sent.set(key, { connections: new Set([connection]), at: now });
  return false;
}
