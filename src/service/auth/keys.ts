import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { KeyStore as KeyRows, StoredKey } from '../store/ports';
import type { Plan, Plans } from './plans';

/**
 * API keys. Keys come from TOKEN_API_KEYS (`key:plan,...`) and from the SQLite key store managed by
 * `npm run keys`. Only SHA-256 hashes are kept. A presented key is hashed and compared in constant time
 * (`timingSafeEqual`) with every in-memory key's hash, and with the hashes of the stored keys that share
 * its prefix (the first 12 characters, which `keys list` shows anyway): nothing is looked up by a
 * secret value, so response times tell nothing about how close a guess came.
 */

export interface Principal {
  /** Stable identity of the key (its hash): rate limits and stream slots are per key. */
  readonly id: string;
  readonly plan: string;
}

export type { StoredKey };

export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** A new random API key. */
export function generateKey(): string {
  return `cdx_${randomBytes(32).toString('base64url')}`;
}

/** Characters of a key kept in clear (the store's lookup column and `keys list`'s prefix). */
const PREFIX_LENGTH = 12;

function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

/** The plan of the candidate whose hash equals `hash`, comparing with every candidate (no early exit). */
function matchHash(
  candidates: Iterable<{ readonly hash: string; readonly plan: string }>,
  hash: string,
): string | undefined {
  let plan: string | undefined;
  for (const candidate of candidates) if (sameHash(candidate.hash, hash) && plan === undefined) plan = candidate.plan;
  return plan;
}

/** Parses TOKEN_API_KEYS: comma-separated `key:plan` (plan defaults to free). */
export function parseEnvKeys(value: string | undefined, plans: Plans): { key: string; plan: string }[] {
  if (!value) return [];
  return value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0)
    .map((entry) => {
      const colon = entry.lastIndexOf(':');
      const key = colon === -1 ? entry : entry.slice(0, colon);
      const plan = colon === -1 ? 'free' : entry.slice(colon + 1);
      if (key.length < 8) throw new Error('TOKEN_API_KEYS: every key must be at least 8 characters');
      if (!Object.hasOwn(plans, plan)) {
        throw new Error(`TOKEN_API_KEYS: unknown plan "${plan}" (known: ${Object.keys(plans).join(', ')})`);
      }
      return { key, plan };
    });
}

/** Creates, lists and revokes stored keys (their rows are the store's; keys themselves are never stored). */
export class KeyStore {
  constructor(private readonly rows: KeyRows) {}

  async create(plan: string, label = '', now = Date.now()): Promise<{ key: string; stored: StoredKey }> {
    const key = generateKey();
    const stored = await this.rows.create(hashKey(key), key.slice(0, PREFIX_LENGTH), plan, label, now);
    return { key, stored };
  }

  list(): Promise<StoredKey[]> {
    return this.rows.list();
  }

  /** Revokes by id or key prefix; returns how many keys were revoked. */
  revoke(idOrPrefix: string, now = Date.now()): Promise<number> {
    return this.rows.revoke(idOrPrefix, now);
  }

  count(): Promise<number> {
    return this.rows.count();
  }

  /** The active stored keys whose clear prefix is that of `key` (candidates to compare hashes with). */
  candidates(key: string): Promise<{ hash: string; plan: string }[]> {
    return this.rows.candidates(key.slice(0, PREFIX_LENGTH));
  }
}

/** Resolves presented keys to principals, over the environment's keys and the key store. */
export class KeyRing {
  /** Hashes of the keys held in memory: configured ones, then this process's internal ones. */
  private readonly memoryKeys: { readonly hash: string; readonly plan: string }[] = [];
  private readonly configured: number;

  constructor(
    private readonly store: KeyStore,
    envKeys: readonly { key: string; plan: string }[],
    private readonly plans: Plans,
  ) {
    for (const { key, plan } of envKeys) this.memoryKeys.push({ hash: hashKey(key), plan });
    this.configured = new Set(this.memoryKeys.map((k) => k.hash)).size;
  }

  /** Keys configured or stored (not counting internal ones). */
  async size(): Promise<number> {
    return this.configured + (await this.store.count());
  }

  /**
   * Registers an in-memory key of this process (the embedded gateway's), with its own plan. It is
   * never stored or printed, so no API user can take its stream slot.
   */
  addInternal(key: string, planName: string, plan: Plan): void {
    this.internalPlans.set(planName, plan);
    this.memoryKeys.push({ hash: hashKey(key), plan: planName });
  }

  private readonly internalPlans = new Map<string, Plan>();

  async authenticate(key: string): Promise<Principal | undefined> {
    if (key.length === 0 || key.length > 512) return undefined;
    const hash = hashKey(key);
    const plan = matchHash(this.memoryKeys, hash) ?? matchHash(await this.store.candidates(key), hash);
    if (plan === undefined) return undefined;
    if (!Object.hasOwn(this.plans, plan) && !this.internalPlans.has(plan)) return undefined;
    return { id: hash, plan };
  }

  plan(name: string): Plan {
    const plan = this.internalPlans.get(name) ?? this.plans[name];
    if (!plan) throw new Error(`unknown plan ${name}`);
    return plan;
  }
}

/** The bearer token of an Authorization header value, or undefined when missing or malformed. */
export function bearerToken(header: string | undefined): string | undefined {
  if (!header) return undefined;
  const match = /^\s*Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}
