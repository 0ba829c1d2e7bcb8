import { createHash } from 'node:crypto';
import type { LogFields } from '../../../node/log';
import type { Token } from '../../market/model';
import type { MarketStore } from '../../store/ports';
import { createLogoLoader, type LogoLoader } from './logo-loader';
import { LogoQueue, type LogoQueueOptions } from './logo-queue';
import { logoSource, type LogoGateways, type LogoInput } from './logo-uri';

/**
 * The logos of a running market (docs/chain.md "Logos"): each token whose metadata names a logo (a URI, or a
 * registry's inline image) gets it fetched and made a PNG off the ingest path (the queue), stored through the write
 * path with what it was made from (the logo cache's key: the SHA-256 of the logo as named). A restart finds the key
 * stored and fetches nothing; a token whose logo changes fetches the new one (latest wins). A logo that cannot be had
 * leaves the token the logo it had (a generated picture, or none), and the log says why once per logo (not once per
 * retry).
 */

/** The logo cache's key of a logo as token metadata names it (a URI, or `png:<hash>` of inline bytes). */
export function logoKey(reference: string): string {
  return createHash('sha256').update(reference).digest('hex');
}

/** What the logos are doing, for /healthz. */
export interface LogoStatus {
  readonly ipfsGateway: 'on' | 'off';
  readonly arweaveGateway: 'on' | 'off';
  /** Logos fetched (or read inline) and stored since the start. */
  readonly fetched: number;
  /** Logos found already stored at a start or a lookup (not fetched again). */
  readonly cached: number;
  /** Tokens whose logo waits, loads or waits for a retry. */
  readonly pending: number;
  /** Tokens whose current logo could not be had (they keep the logo they had), gateways missing included. */
  readonly failed: number;
  readonly lastError: string | undefined;
}

export interface MarketLogosOptions {
  readonly store: Pick<MarketStore, 'logoKey'>;
  /** The operator's gateways (`--ipfs-gateway`, `--arweave-gateway`). */
  readonly gateways: LogoGateways;
  /** `--fetch-allow`: private ranges fetches may reach. */
  readonly allowCidrs?: readonly string[] | undefined;
  /** Stores a token's PNG, made from the logo whose cache key is `key`, through the write path. */
  readonly save: (unit: string, png: Buffer, key: string) => Promise<void>;
  readonly log?: ((line: string, fields?: LogFields) => void) | undefined;
  /** The queue's timing (tests). */
  readonly queue?: Partial<Pick<LogoQueueOptions, 'baseDelayMs' | 'maxAttempts' | 'concurrency' | 'clock' | 'random'>>;
}

/** Longest part of a logo reference shown in the log (a `data:` URI can be megabytes). */
const SHOWN = 120;
const shown = (reference: string) => (reference.length > SHOWN ? `${reference.slice(0, SHOWN)}…` : reference);

const GATEWAY_FLAGS = {
  ipfs: 'ipfs:// logos are not fetched: no IPFS gateway is configured (--ipfs-gateway / IPFS_GATEWAY, default off)',
  arweave:
    'ar:// logos are not fetched: no Arweave gateway is configured (--arweave-gateway / ARWEAVE_GATEWAY, default off)',
} as const;

export class MarketLogos {
  private readonly loader: LogoLoader;
  private readonly queue: LogoQueue;
  /** Each token's current logo: its reference and cache key (latest wins). */
  private readonly wanted = new Map<string, { readonly key: string; readonly reference: string }>();
  /** The key of the logo each token was last queued with (what a PNG the queue delivers was made from). */
  private readonly queued = new Map<string, string>();
  private readonly failed = new Set<string>();
  /** Logos (keys) whose failure was logged, and gateways whose absence was. */
  private readonly told = new Set<string>();
  private readonly checks = new Set<Promise<void>>();
  private fetched = 0;
  private cached = 0;
  private lastError: string | undefined;
  private closed = false;

  constructor(private readonly options: MarketLogosOptions) {
    this.loader = createLogoLoader({
      gateways: options.gateways,
      ...(options.allowCidrs ? { fetch: { allowCidrs: options.allowCidrs } } : {}),
    });
    this.queue = new LogoQueue({
      ...options.queue,
      load: (logo, signal) => this.loader.load(logo, signal),
      onLogo: (unit, png) => this.stored(unit, png),
      onFailure: (unit, reason, retryAt) => this.failure(unit, reason, retryAt),
      onCallbackError: (unit, error) =>
        options.log?.(`identity: the logo of ${unit} could not be stored: ${String(error)}`, { level: 'warn' }),
    });
  }

  /**
   * The logo `token`'s metadata names now (`reference`: a URI, or `png:<hash>` with the `inline` bytes), or none. A
   * logo already stored is not fetched again; a new one is queued, replacing the token's earlier one.
   */
  want(token: Token, reference: string | undefined, inline?: Buffer): void {
    if (this.closed) return;
    const { unit } = token;
    if (reference === undefined || (reference.startsWith('png:') && inline === undefined)) {
      // Nothing to fetch (no logo, or inline bytes this process no longer holds): the token keeps what it has.
      if (reference === undefined) this.forget(unit);
      return;
    }
    const key = logoKey(reference);
    if (this.wanted.get(unit)?.key === key) return;
    this.wanted.set(unit, { key, reference });
    this.failed.delete(unit);
    const check = this.check(token, key, reference, inline ?? reference).finally(() => this.checks.delete(check));
    this.checks.add(check);
  }

  /** Resolves once every logo wanted so far was checked and none waits or loads (retries scheduled later aside). */
  async idle(): Promise<void> {
    while (this.checks.size > 0) await Promise.all(this.checks);
    await this.queue.idle();
  }

  status(): LogoStatus {
    return {
      ipfsGateway: this.options.gateways.ipfs ? 'on' : 'off',
      arweaveGateway: this.options.gateways.arweave ? 'on' : 'off',
      fetched: this.fetched,
      cached: this.cached,
      pending: this.queue.pending + this.checks.size,
      failed: this.failed.size,
      lastError: this.lastError,
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.queue.close();
    await Promise.all(this.checks);
    await this.loader.close();
  }

  private forget(unit: string): void {
    this.wanted.delete(unit);
    this.failed.delete(unit);
  }

  private current(unit: string, key: string): boolean {
    return !this.closed && this.wanted.get(unit)?.key === key;
  }

  /** Queues the logo unless it is stored already or cannot be fetched at all (then says why, once). */
  private async check(token: Token, key: string, reference: string, input: LogoInput): Promise<void> {
    let stored: string | null = null;
    try {
      stored = await this.options.store.logoKey(token.id);
    } catch {
      // Unknown: fetched again, which costs a fetch and nothing else.
    }
    if (!this.current(token.unit, key)) return;
    if (stored === key) {
      this.cached++;
      return;
    }
    const source = await logoSource(input, this.options.gateways);
    if (!this.current(token.unit, key)) return;
    if (source.kind === 'unusable') {
      this.failed.add(token.unit);
      this.lastError = source.reason;
      if (source.needs)
        this.tellOnce(
          `gateway:${source.needs}`,
          `identity: ${GATEWAY_FLAGS[source.needs]}; those tokens keep the logo they had (docs/chain.md "Logos")`,
        );
      else
        this.tellOnce(
          key,
          `identity: the logo of ${token.unit} (${shown(reference)}) is not used: ${source.reason}; the token keeps the logo it had`,
        );
      return;
    }
    this.queued.set(token.unit, key);
    this.queue.enqueue(token.unit, input);
  }

  private async stored(unit: string, png: Buffer): Promise<void> {
    const key = this.queued.get(unit);
    // A PNG of a logo the token no longer names (it changed while this one loaded or was checked): dropped.
    if (key === undefined || !this.current(unit, key)) return;
    await this.options.save(unit, png, key);
    this.fetched++;
    this.options.log?.(`identity: the logo of ${unit} is stored (${shown(this.wanted.get(unit)?.reference ?? '')})`);
  }

  private failure(unit: string, reason: string, retryAt: number | undefined): void {
    const key = this.queued.get(unit);
    if (key === undefined || !this.current(unit, key)) return;
    this.lastError = reason;
    if (retryAt === undefined) this.failed.add(unit);
    const reference = shown(this.wanted.get(unit)?.reference ?? '');
    const then =
      retryAt === undefined
        ? 'the token keeps the logo it had'
        : `it is tried again with backoff (next at ${new Date(retryAt).toISOString()}); the token keeps the logo it had meanwhile`;
    this.tellOnce(key, `identity: the logo of ${unit} (${reference}) could not be had: ${reason}; ${then}`);
  }

  private tellOnce(what: string, line: string): void {
    if (this.told.has(what)) return;
    this.told.add(what);
    this.options.log?.(line, { level: 'warn' });
  }
}
