import type { LogFields } from '../../node/log';
import type { Ingestor } from '../market/ingest';
import { LOGO_STORED, type Market } from '../market/model';
import type { MarketStore } from '../store/ports';
import { identityOf, type IdentityRecord } from './identity';
import { kupoReferenceDatum } from './kupo-reference';
import { MarketLogos, type LogoStatus, type MarketLogosOptions } from './logos/market-logos';
import { queryRegistry } from './registry-server';
import { TokenIdentityResolver, type ResolverStatus } from './resolver';

/** Subjects asked of a metadata server at once (its batch limit, registry-server.ts). */
const REGISTRY_BATCH = 50;
/** How often learnt metadata waiting for a quiet write path is tried again (ms). */
const RETRY_APPLY_MS = 1_000;

export interface MarketIdentityOptions {
  readonly market: Market;
  readonly ingestor: Ingestor;
  /** `--token-registry`: a token metadata server (CIP-26), asked for every token of the market, then daily. */
  readonly registryUrl?: string | undefined;
  /** How often each token's entry is asked of the metadata server again (seconds; default a day). */
  readonly registryRefreshSeconds?: number | undefined;
  /** `--kupo`: a Kupo beside Ogmios, asked for the reference NFT of every CIP-68 token of the market. */
  readonly kupoUrl?: string | undefined;
  /**
   * Logos (docs/chain.md "Logos"): fetched from where each token's metadata says, through the operator's gateways,
   * and kept in the store (`store`: what each token's stored logo was made from). Without it, logos are left alone.
   */
  readonly logos?:
    | (Pick<MarketLogosOptions, 'gateways' | 'allowCidrs' | 'queue'> & { readonly store: Pick<MarketStore, 'logoKey'> })
    | undefined;
  readonly log?: ((line: string, fields?: LogFields) => void) | undefined;
  /** Seconds since the epoch (tests move it). */
  readonly now?: () => number;
}

/**
 * The token identity resolver of a running market (docs/chain.md "Token identity"): every token of the market, and
 * each new one as a commit brings it, is looked up off the ingest path — a CIP-68 token's reference NFT through Kupo,
 * any token in the token metadata server; what is learnt
 * becomes the token's name, ticker, decimals and PNG logo through the one write path, in a commit of its own — which
 * makes every answer right at once (raw units in the store) and tells the clients (a metadata event). A source in the
 * middle of a multi-block batch (a chain catch-up) is never interrupted: learnt metadata waits until the write path
 * has nothing pending.
 */
export class MarketIdentity {
  private readonly resolver: TokenIdentityResolver;
  private readonly stopWatching: () => void;
  private readonly stopListening: () => void;
  private readonly logos: MarketLogos | undefined;
  /** Inline logo bytes (a registry's base64 PNG) by the hash their records name, until the record is applied. */
  private readonly inline = new Map<string, Buffer>();
  private waiting:
    { records: IdentityRecord[]; logos: { unit: string; png: Buffer; key: string }[]; units: Set<string> } | undefined;
  private flushing: Promise<void> | undefined;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;

  constructor(private readonly options: MarketIdentityOptions) {
    const { registryUrl, kupoUrl, log } = options;
    this.resolver = new TokenIdentityResolver({
      // What the sources said before (the store's records): not asked again until a refresh is due.
      records: [...options.market.identities.values()].flatMap((bySource) => [...bySource.values()]),
      ...(options.registryRefreshSeconds !== undefined
        ? { registryRefreshSeconds: options.registryRefreshSeconds }
        : {}),
      ...(kupoUrl !== undefined ? { referenceDatum: kupoReferenceDatum(kupoUrl) } : {}),
      ...(registryUrl !== undefined
        ? {
            registry: {
              lookup: async (units: readonly string[], signal: AbortSignal) => {
                const answer = await queryRegistry(registryUrl, units, { signal });
                for (const skip of answer.skipped) log?.(`identity: token registry: ${skip}`, { level: 'warn' });
                return answer.entries;
              },
              batch: REGISTRY_BATCH,
            },
          }
        : {}),
      apply: (records, logos) => this.apply(records, logos),
      log: (line, level) => log?.(line, { level: level ?? 'info' }),
      ...(options.now ? { now: options.now } : {}),
    });
    this.stopWatching = options.ingestor.onBatch((batch) => {
      // Records any writer stored (the chain source's reference NFTs, a rollback putting one back, this class's own).
      const { remove = [], set = [] } = batch.identities ?? {};
      if (remove.length + set.length > 0)
        this.resolver.accept([...remove.map(([unit, source]) => ({ unit, source, removed: true as const })), ...set]);
      const units = (batch.tokens ?? []).map((t) => t.unit);
      if (units.length > 0) {
        this.resolver.observe(units);
        this.reconcile(units);
      }
    });
    this.logos = options.logos
      ? new MarketLogos({
          ...options.logos,
          save: (unit, png, key) => this.saveLogo(unit, png, key),
          log: (line, fields) => log?.(line, fields),
        })
      : undefined;
    // Whatever changed a token's identity (a lookup, a record the writer stored), its logo follows.
    this.stopListening = this.resolver.onChange((units) => this.wantLogos(units));
  }

  /** Looks up every token of the market now, then each new one, until `close`. */
  start(): void {
    const units = [...this.options.market.tokens.keys()];
    this.wantLogos(units);
    this.resolver.observe(units);
    this.reconcile(units);
    this.resolver.start();
  }

  /** Runs the lookups due now and writes what they found, logos included (tests). */
  async drain(): Promise<void> {
    await this.resolver.drain();
    await this.flushing;
    await this.logos?.idle();
    await this.flushing;
  }

  status(): ResolverStatus & { readonly logos?: LogoStatus } {
    return { ...this.resolver.status(), ...(this.logos ? { logos: this.logos.status() } : {}) };
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stopWatching();
    this.stopListening();
    clearTimeout(this.timer);
    await this.resolver.close();
    await this.logos?.close();
    await this.flushing;
  }

  /** Stores what the resolver learnt: as soon as the write path has nothing pending, in a commit of its own. */
  private apply(
    records: readonly IdentityRecord[],
    logos: ReadonlyMap<string, Buffer>,
    units: Iterable<string> = [],
  ): Promise<void> {
    for (const [hash, bytes] of logos) this.inline.set(hash, bytes);
    const waiting = this.wait();
    waiting.records.push(...records);
    for (const unit of units) waiting.units.add(unit);
    this.flushing ??= this.flush().finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  private wait(): NonNullable<MarketIdentity['waiting']> {
    return (this.waiting ??= { records: [], logos: [], units: new Set<string>() });
  }

  /**
   * Tokens whose row is not what the stored records make of them (a token that entered the market after its records
   * were learnt, through a writer that did not name it from them): named from the records in a commit of their own.
   */
  private reconcile(units: readonly string[]): void {
    const { market } = this.options;
    const stale = units.filter((unit) => {
      const token = market.tokens.get(unit);
      if (!token || !market.identities.has(unit)) return false;
      const identity = identityOf(unit, market.identityRecords(unit));
      return identity.ticker !== token.ticker || identity.name !== token.name || identity.decimals !== token.decimals;
    });
    if (stale.length > 0) void this.apply([], new Map(), stale);
  }

  /** A logo made a PNG: stored like learnt metadata, in a commit of its own once the write path is quiet. */
  private saveLogo(unit: string, png: Buffer, key: string): Promise<void> {
    this.wait().logos.push({ unit, png, key });
    this.flushing ??= this.flush().finally(() => (this.flushing = undefined));
    return this.flushing;
  }

  /** Each token's logo as its identity names it now, to the logos (fetched unless stored already). */
  private wantLogos(units: readonly string[]): void {
    for (const unit of units) {
      const token = this.options.market.tokens.get(unit);
      const logo = this.resolver.identity(unit).logo;
      const hash = logo?.startsWith('png:') ? logo.slice(4) : undefined;
      if (token) this.logos?.want(token, logo, hash !== undefined ? this.inline.get(hash) : undefined);
      for (const record of this.resolver.recordsOf(unit))
        if (record.logo?.startsWith('png:')) this.inline.delete(record.logo.slice(4));
    }
  }

  private async flush(): Promise<void> {
    while (this.waiting && !this.closed) {
      const { ingestor } = this.options;
      if (ingestor.dirty) {
        await new Promise<void>((resolve) => (this.timer = setTimeout(resolve, RETRY_APPLY_MS)));
        continue;
      }
      const { records, logos, units } = this.waiting;
      this.waiting = undefined;
      // Synchronous from here to the commit, which takes the batch at once: nothing of a source's can slip in.
      const named = this.write(records, units);
      for (const { unit, png, key } of logos) {
        const token = this.options.market.tokens.get(unit);
        if (token) ingestor.setLogo(token, LOGO_STORED, png, key);
      }
      if (records.length + named + logos.length > 0) {
        await ingestor.commit();
        if (named > 0) this.options.log?.(`identity: ${named} token(s) named from their metadata`);
      }
    }
  }

  /**
   * The records (kept in the store, each source's apart) and the tokens' rows as the records make them, for the
   * records' tokens and `units` (logos aside: `wantLogos`); returns how many tokens changed.
   */
  private write(records: readonly IdentityRecord[], units: Set<string>): number {
    const { market, ingestor } = this.options;
    for (const record of records) {
      ingestor.setIdentity(record);
      units.add(record.unit);
    }
    let changed = 0;
    for (const unit of units) {
      const token = market.tokens.get(unit);
      if (!token) continue;
      const identity = identityOf(unit, market.identityRecords(unit));
      if (identity.ticker !== token.ticker || identity.name !== token.name || identity.decimals !== token.decimals) {
        ingestor.updateToken(token, { ticker: identity.ticker, name: identity.name, decimals: identity.decimals });
        changed++;
      }
    }
    return changed;
  }
}
