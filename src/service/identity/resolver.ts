import { createHash } from 'node:crypto';
import { ADA_UNIT } from '../../shared/id-rules';
import { DatumError } from '../chain/plutus';
import { decodeCip68Datum, referenceUnitOf } from './cip68';
import { identityOf, registryRecord, type IdentityRecord, type RecordSource, type TokenIdentity } from './identity';
import { siteUrl, type RegistryEntry } from '../importers/registry';

/**
 * The one place that knows who a token is (docs/chain.md "Token identity"). It holds what each source said of every
 * token (`IdentityRecord`s, loaded from the store), answers `identity(unit)` at once for anyone (the chain source
 * naming a token it meets, the importers, the API), and finds out what it does not know yet **off the ingest path**:
 * a CIP-68 token's reference NFT through Kupo, a token's registry entry through a metadata server, in batches, with
 * retries; registry entries again once a day. What it learns is handed to `apply` (the writer stores it with the
 * market and tells clients); a CIP-68 reference NFT that passes through chain-sync is read by the chain source in its
 * block (`fromDatum`), so that a rollback can undo it.
 */

/** What the resolver asks of Kupo: the datum (CBOR hex) of the unspent output holding `referenceUnit`, or undefined. */
export type ReferenceDatumLookup = (referenceUnit: string, signal: AbortSignal) => Promise<string | undefined>;
/** What it asks of a metadata server: the registry entries of `units` (at most `batch` of them). */
export type RegistryLookup = (
  units: readonly string[],
  signal: AbortSignal,
) => Promise<ReadonlyMap<string, RegistryEntry>>;

export interface ResolverOptions {
  readonly records: readonly IdentityRecord[];
  /** Kupo's lookup (`--kupo`); without it CIP-68 tokens are known only once chain-sync meets their reference NFT. */
  readonly referenceDatum?: ReferenceDatumLookup | undefined;
  /** A metadata server's batch query (`--token-registry`). */
  readonly registry?: { readonly lookup: RegistryLookup; readonly batch: number } | undefined;
  /**
   * Stores what was learnt (records replacing any of the same unit and source), before it is served; `logos` holds
   * the bytes of the logos sources gave inline (a registry's base64 PNG), by the hash their records name (`png:`).
   */
  readonly apply: (records: readonly IdentityRecord[], logos: ReadonlyMap<string, Buffer>) => Promise<void>;
  readonly log?: (line: string, level?: 'info' | 'warn') => void;
  /** Seconds since the epoch (tests move it). */
  readonly now?: () => number;
  /** Kupo lookups at once. */
  readonly concurrency?: number;
  /** How often each token's registry entry is asked again (seconds; default a day, `--token-registry-refresh`). */
  readonly registryRefreshSeconds?: number;
}

/** How often a token's registry entry is asked again by default (seconds). */
export const REGISTRY_REFRESH_SECONDS = 86_400;
/** The longest the running loop sleeps before it looks for refreshes due (seconds). */
const LOOP_MAX_WAIT_SECONDS = 60;
/** First retry of a failed lookup (seconds), doubling to RETRY_MAX_SECONDS. */
const RETRY_FIRST_SECONDS = 30;
const RETRY_MAX_SECONDS = 6 * 3_600;

interface Pending {
  /** When it may be tried next (seconds). */
  due: number;
  failures: number;
}

/** What the resolver has done, for /healthz and the logs. */
export interface ResolverStatus {
  readonly known: number;
  readonly cip68: number;
  readonly registry: number;
  readonly pending: number;
  readonly kupo: 'on' | 'off';
  readonly registryServer: 'on' | 'off';
  readonly lastError: string | undefined;
}

export class TokenIdentityResolver {
  private readonly records = new Map<string, Map<RecordSource, IdentityRecord>>();
  private readonly kupoQueue = new Map<string, Pending>();
  private readonly registryQueue = new Map<string, Pending>();
  /** When each unit's registry entry was last asked (seconds), to ask again a refresh later. */
  private readonly registryAsked = new Map<string, number>();
  /** Every unit observed: their registry entries are asked again as their refresh falls due, while the market runs. */
  private readonly watched = new Set<string>();
  private readonly refreshSeconds: number;
  private readonly listeners = new Set<(units: readonly string[]) => void>();
  private readonly now: () => number;
  private lastError: string | undefined;
  private running: Promise<void> | undefined;
  private readonly abort = new AbortController();
  /** Ends the running loop's wait (a unit to look up was observed). */
  private wake: (() => void) | undefined;

  constructor(private readonly options: ResolverOptions) {
    this.now = options.now ?? (() => Date.now() / 1000);
    this.refreshSeconds = options.registryRefreshSeconds ?? REGISTRY_REFRESH_SECONDS;
    for (const record of options.records) this.put(record);
  }

  /** The identity of `unit` as known now (the asset name's when no source has spoken). */
  identity(unit: string): TokenIdentity {
    return identityOf(unit, this.recordsOf(unit));
  }

  /** Every record of `unit`, most trusted first. */
  recordsOf(unit: string): IdentityRecord[] {
    const bySource = this.records.get(unit);
    return bySource ? [...bySource.values()] : [];
  }

  /** Told the units whose identity changed, after it is stored. */
  onChange(listener: (units: readonly string[]) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Units that entered the market: each is looked up where it is not known yet — through Kupo when it is a CIP-68
   * token without a record from chain, through the metadata server when it has no registry record (or one older than
   * the refresh, a day by default) — and again each time its refresh falls due while the market runs. Never waits:
   * the lookups run in `run`.
   */
  observe(units: Iterable<string>): void {
    const now = this.now();
    for (const unit of units) {
      if (unit === ADA_UNIT) continue;
      this.watched.add(unit);
      const known = this.records.get(unit);
      if (this.options.referenceDatum && referenceUnitOf(unit) && !known?.has('cip68') && !this.kupoQueue.has(unit))
        this.kupoQueue.set(unit, { due: now, failures: 0 });
      this.queueRegistry(unit, now);
    }
    if (this.kupoQueue.size + this.registryQueue.size > 0) this.wake?.();
  }

  /** Queues `unit`'s registry lookup when it has no entry yet or its refresh is due (and it is not asked already). */
  private queueRegistry(unit: string, now: number): void {
    const registry = this.records.get(unit)?.get('registry');
    if (
      this.options.registry &&
      !this.registryQueue.has(unit) &&
      (registry === undefined || registry.at + this.refreshSeconds <= now) &&
      (this.registryAsked.get(unit) ?? -Infinity) + this.refreshSeconds <= now
    )
      this.registryQueue.set(unit, { due: now, failures: 0 });
  }

  /**
   * The record a CIP-68 reference NFT's datum gives its fungible token (`ftUnit`), or why it gives none: what the
   * chain source calls for a reference NFT output in a block (and journals), and Kupo's answers go through.
   */
  fromDatum(ftUnit: string, datumHex: string, at: number): { record: IdentityRecord } | { error: string } {
    const result = cip68Record(ftUnit, datumHex, at);
    if ('error' in result) return result;
    if (result.ignored.length > 0)
      this.options.log?.(`identity: ${ftUnit}'s reference datum: ${result.ignored.join('; ')} (ignored)`, 'warn');
    return { record: result.record };
  }

  /** Takes records the writer stored (chain sightings, imports, a rollback putting one back); undefined removes one. */
  accept(
    changes: readonly (
      IdentityRecord | { readonly unit: string; readonly source: RecordSource; readonly removed: true }
    )[],
  ): void {
    const units = new Set<string>();
    for (const change of changes) {
      if ('removed' in change) {
        const bySource = this.records.get(change.unit);
        bySource?.delete(change.source);
        if (bySource?.size === 0) this.records.delete(change.unit);
      } else {
        this.put(change);
        if (change.source === 'cip68') this.kupoQueue.delete(change.unit);
      }
      units.add(change.unit);
    }
    if (units.size > 0) this.tell([...units]);
  }

  /** Runs the lookups due now, then again as they fall due, until `close`. */
  start(): void {
    if (this.running || (!this.options.referenceDatum && !this.options.registry)) return;
    this.running = this.loop();
  }

  /** Runs every lookup due now, once (tests and benchmarks; `start` does it in a loop). */
  async drain(): Promise<void> {
    await Promise.all([this.kupoRound(), this.registryRound()]);
  }

  async close(): Promise<void> {
    this.abort.abort();
    await this.running;
  }

  status(): ResolverStatus {
    let cip68 = 0;
    let registry = 0;
    for (const bySource of this.records.values()) {
      if (bySource.has('cip68')) cip68++;
      if (bySource.has('registry')) registry++;
    }
    return {
      known: this.records.size,
      cip68,
      registry,
      pending: this.kupoQueue.size + this.registryQueue.size,
      kupo: this.options.referenceDatum ? 'on' : 'off',
      registryServer: this.options.registry ? 'on' : 'off',
      lastError: this.lastError,
    };
  }

  private put(record: IdentityRecord): void {
    let bySource = this.records.get(record.unit);
    if (!bySource) this.records.set(record.unit, (bySource = new Map()));
    bySource.set(record.source, record);
  }

  private tell(units: readonly string[]): void {
    for (const listener of this.listeners) listener(units);
  }

  private async loop(): Promise<void> {
    const signal = this.abort.signal;
    while (!signal.aborted) {
      // Registry entries whose refresh fell due while the market ran are asked again (a correction reaches it); Kupo
      // is asked only for tokens new to the market (chain-sync tells of a reference NFT that moves).
      if (this.options.registry) {
        const now = this.now();
        for (const unit of this.watched) this.queueRegistry(unit, now);
      }
      try {
        await this.drain();
      } catch (error) {
        this.lastError = error instanceof Error ? error.message : String(error);
      }
      const next = Math.min(
        ...[...this.kupoQueue.values(), ...this.registryQueue.values()].map((p) => p.due),
        this.now() + Math.min(LOOP_MAX_WAIT_SECONDS, this.options.registry ? this.refreshSeconds : Infinity),
      );
      const wait = Math.max(0.05, next - this.now());
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, wait * 1000);
        // A unit observed meanwhile is looked up at once, not after the wait.
        this.wake = () => (clearTimeout(timer), resolve());
        signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true });
      });
      this.wake = undefined;
    }
  }

  private due(queue: Map<string, Pending>): string[] {
    const now = this.now();
    return [...queue].filter(([, pending]) => pending.due <= now).map(([unit]) => unit);
  }

  private failed(queue: Map<string, Pending>, unit: string, reason: string): void {
    const pending = queue.get(unit);
    if (!pending) return;
    pending.failures++;
    const backoff = Math.min(RETRY_MAX_SECONDS, RETRY_FIRST_SECONDS * 2 ** (pending.failures - 1));
    pending.due = this.now() + backoff * (0.5 + Math.random() / 2);
    this.lastError = reason;
  }

  private async store(records: IdentityRecord[], logos: ReadonlyMap<string, Buffer> = new Map()): Promise<void> {
    if (records.length === 0) return;
    await this.options.apply(records, logos);
    this.accept(records);
  }

  private async kupoRound(): Promise<void> {
    const lookup = this.options.referenceDatum;
    if (!lookup) return;
    const units = this.due(this.kupoQueue);
    const concurrency = this.options.concurrency ?? 8;
    const found: IdentityRecord[] = [];
    let next = 0;
    const worker = async () => {
      while (next < units.length && !this.abort.signal.aborted) {
        const unit = units[next++] as string;
        const referenceUnit = referenceUnitOf(unit) as string;
        try {
          const datum = await lookup(referenceUnit, this.abort.signal);
          this.kupoQueue.delete(unit);
          if (datum === undefined) continue;
          const result = this.fromDatum(unit, datum, this.now());
          if ('error' in result)
            this.options.log?.(`identity: ${unit}'s reference NFT through Kupo: ${result.error}`, 'warn');
          else found.push(result.record);
        } catch (error) {
          this.failed(this.kupoQueue, unit, `Kupo: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, units.length) }, worker));
    await this.store(found);
  }

  private async registryRound(): Promise<void> {
    const registry = this.options.registry;
    if (!registry) return;
    const units = this.due(this.registryQueue);
    for (let i = 0; i < units.length && !this.abort.signal.aborted; i += registry.batch) {
      const batch = units.slice(i, i + registry.batch);
      let entries: ReadonlyMap<string, RegistryEntry>;
      try {
        entries = await registry.lookup(batch, this.abort.signal);
      } catch (error) {
        for (const unit of batch)
          this.failed(
            this.registryQueue,
            unit,
            `token registry: ${error instanceof Error ? error.message : String(error)}`,
          );
        continue;
      }
      const now = this.now();
      const found: IdentityRecord[] = [];
      const logos = new Map<string, Buffer>();
      for (const unit of batch) {
        this.registryQueue.delete(unit);
        this.registryAsked.set(unit, now);
        const entry = entries.get(unit);
        if (!entry) continue;
        // A registry logo is base64 PNG by CIP-26; some entries name a URI instead, fetched like a CIP-68 logo.
        const uri = uriLogo(entry.logo);
        const logo = uri === undefined ? inlineLogo(entry.logo) : undefined;
        const record = { ...registryRecord(entry, now, logo?.hash), ...(uri !== undefined ? { logo: uri } : {}) };
        if (logo) logos.set(logo.hash, logo.bytes);
        const known = this.records.get(unit)?.get('registry');
        if (!known || !sameRecord(known, record)) found.push(record);
      }
      await this.store(found, logos);
    }
  }
}

/**
 * The record a CIP-68 reference NFT's datum gives its fungible token (`ftUnit`), with the fields it ignored (of the
 * wrong type), or why it gives none (a datum breaking the rules of docs/chain.md "Hostile datums").
 */
export function cip68Record(
  ftUnit: string,
  datumHex: string,
  at: number,
): { record: IdentityRecord; ignored: readonly string[] } | { error: string } {
  try {
    const { metadata, ignored } = decodeCip68Datum(datumHex, referenceUnitOf(ftUnit));
    const logo = metadata.logo ? logoReference(metadata.logo) : undefined;
    return {
      record: {
        unit: ftUnit,
        source: 'cip68',
        name: metadata.name,
        ticker: metadata.ticker,
        decimals: metadata.decimals,
        description: metadata.description,
        url: siteUrl(metadata.url),
        logo,
        at,
      },
      ignored,
    };
  } catch (error) {
    if (error instanceof DatumError) return { error: error.message };
    throw error;
  }
}

/** A registry logo's bytes (base64 in the entry) and their SHA-256, or undefined for none or bad base64. */
export function inlineLogo(base64: string | undefined): { bytes: Buffer; hash: string } | undefined {
  if (base64 === undefined) return undefined;
  const compact = base64.replace(/\s+/g, '');
  if (compact === '' || !/^[A-Za-z0-9+/]*={0,2}$/.test(compact)) return undefined;
  const bytes = Buffer.from(compact, 'base64');
  return { bytes, hash: createHash('sha256').update(bytes).digest('hex') };
}

/** A registry logo given as a URI (`ipfs://`, `https://`, `ar://`, `data:`) rather than base64 bytes, or undefined. */
function uriLogo(text: string | undefined): string | undefined {
  const trimmed = text?.trim();
  return trimmed !== undefined && /^(ipfs|https?|ar|data):/i.test(trimmed) ? trimmed : undefined;
}

/** Whether two records say the same (their times aside). */
export function sameRecord(a: IdentityRecord, b: IdentityRecord): boolean {
  return (
    a.name === b.name &&
    a.ticker === b.ticker &&
    a.decimals === b.decimals &&
    a.description === b.description &&
    a.url === b.url &&
    a.logo === b.logo
  );
}

/** A logo as a reference datum gives it: a URI as text, else the bytes themselves as a data URI (image data inline). */
export function logoReference(bytes: Buffer): string {
  const text = bytes.toString('utf8');
  if (/^(ipfs|https?|ar|data):/i.test(text) && !text.includes('\uFFFD')) return text.trim();
  // A bare CID (some tokens write one without `ipfs://`).
  if (/^(Qm[1-9A-HJ-NP-Za-km-z]{44}|b[a-z2-7]{58,})$/.test(text.trim())) return `ipfs://${text.trim()}`;
  return `data:application/octet-stream;base64,${bytes.toString('base64')}`;
}
