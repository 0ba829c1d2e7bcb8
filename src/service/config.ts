import { z } from 'zod';
import { parseChainStart, type ChainStart } from './chain/start';
import { readVyFiPools, type VyFiPoolList } from './chain/dexes/vyfi-pools';
import { STREAM_PING_SECONDS } from '../shared/api/stream';
import { redactUrl } from '../shared/redact';
import { parseEnvKeys } from './auth/keys';
import { parsePlans, type Plans } from './auth/plans';
import { gatewayBase } from './identity/logos/logo-uri';
import { createAddressPolicy } from '../node/address-policy';

/** The service's configuration: from command-line flags, else environment variables, else defaults. */
export interface ServiceConfig {
  /** Directory of the SQLite store and the dev key; ':memory:' keeps everything in memory (tests). */
  readonly dataDir: string;
  readonly seed: number;
  /** Days of history to backfill on first start. */
  readonly days: number;
  /** DEX pools of the generated market (Aggregate pools come on top). */
  readonly pools: number;
  /** Mean traders' swaps per block (arbitrage comes on top); default scales with the market size. */
  readonly tradesPerBlock: number;
  readonly apiKeys: readonly { key: string; plan: string }[];
  readonly plans: Plans;
  readonly streamPingSeconds: number;
  readonly streamMaxBodyBytes: number;
  readonly streamMaxBufferedBytes: number;
  /**
   * `STREAM_HANDOVER_MS`: how long a new stream waits for its key's slot while every slot is held
   * (a client replacing its stream; default 2000, 0 refuses at once).
   */
  readonly streamHandoverMs: number;
  /**
   * Serve our extension routes under /api/x (docs/gateway.md). Off (`--spec-only`, SPEC_ONLY=1): the
   * spec's /api/v1 alone, like the hosted API, to try a gateway against an upstream that lacks them.
   */
  readonly extensions: boolean;
  /** Integrity check of an existing store at start: `quick` (PRAGMA quick_check) or `off`. */
  readonly storeCheck: 'quick' | 'off';
  /** `--role`: `all` (one process), `ingest` (the single writer) or `api` (a serving node of a cluster). */
  readonly role: 'all' | 'ingest' | 'api';
  /** `STREAM_LEASE_SECONDS`: how long a dead node's stream lease outlives it (cluster; default 30). */
  readonly streamLeaseSeconds: number;
  /** `REDIS_URL`: what the nodes of a cluster share (commit fan-out, rate limits, stream leases). */
  readonly redisUrl?: string;
  /** Where trades come from: the embedded simulator, the chain through Ogmios, or none (imports only). */
  readonly source: 'simulated' | 'chain' | 'none';
  /** `--ogmios` / `OGMIOS_URL`: Ogmios v6 WebSocket address (source `chain`). */
  readonly ogmiosUrl?: string;
  /** `--chain-start` / `CHAIN_START`: where a new chain-fed market starts (default: the node's tip). */
  readonly chainStart?: ChainStart;
  /** `--kupo` / `KUPO_URL`: a Kupo chain index beside Ogmios, to find the block `--chain-start <N>d` names. */
  readonly kupoUrl?: string;
  /**
   * `--token-registry` / `TOKEN_REGISTRY_URL`: a CIP-26 token metadata server (`POST /metadata/query`), asked for the
   * name, ticker, decimals and logo of every token of a chain-fed or imported market (docs/chain.md "Token identity").
   */
  readonly tokenRegistryUrl?: string;
  /**
   * `--token-registry-refresh` / `TOKEN_REGISTRY_REFRESH`: how often each token's entry is asked of the metadata server
   * again while the market runs, in seconds (default a day), so that a registry correction reaches the market.
   */
  readonly tokenRegistryRefreshSeconds?: number;
  /**
   * `--ipfs-gateway` / `IPFS_GATEWAY`: the IPFS gateway `ipfs://` token logos are fetched through (default: off, such
   * logos are not fetched); a base URL, no trailing slash (docs/chain.md "Logos").
   */
  readonly ipfsGateway?: string;
  /** `--arweave-gateway` / `ARWEAVE_GATEWAY`: the Arweave gateway `ar://` token logos are fetched through (default off). */
  readonly arweaveGateway?: string;
  /**
   * `--fetch-allow` / `FETCH_ALLOW`: private ranges (CIDR) logo fetches may reach besides public addresses (the
   * operator's own networks; default none).
   */
  readonly fetchAllow?: readonly string[];
  /** `--vyfi-pools` / `VYFI_POOLS`: VyFi's pools from the operator's file instead of the bundled list (source `chain`). */
  readonly vyFiPools?: VyFiPoolList;
  /** `DATABASE_URL`: the market lives in this PostgreSQL database instead of the data directory's SQLite file. */
  readonly databaseUrl?: string;
}

export const DEFAULT_POOLS = 17_600;
/**
 * How long a stream waits for its key's slot by default: a client's abort reaches the server within
 * milliseconds on a healthy connection (Chromium's 5-11 refusals in 20 switches were all races of that
 * size); two seconds also covers a slow network without holding a truly concurrent stream long.
 */
export const STREAM_HANDOVER_MS = 2_000;
export const DEFAULT_SEED = 1;

const int = (name: string, min: number, max: number) =>
  z.coerce
    .number({ error: `${name} must be a number` })
    .int(`${name} must be a whole number`)
    .min(min, `${name} must be at least ${min}`)
    .max(max, `${name} must be at most ${max}`);

const positive = (name: string) =>
  z.coerce.number({ error: `${name} must be a number` }).positive(`${name} must be positive`);

/**
 * Flags of `npm run serve` and the environment variables that stand for them. A `secret` one (an
 * address that may carry a key) is echoed in errors only as `redactUrl` shows it.
 */
export const SERVICE_SETTINGS = {
  dataDir: { flag: 'data-dir', env: 'DATA_DIR' },
  seed: { flag: 'seed', env: 'SEED' },
  days: { flag: 'days', env: 'DAYS' },
  pools: { flag: 'pools', env: 'POOLS' },
  tradesPerBlock: { flag: 'trades-per-block', env: 'TRADES_PER_BLOCK' },
  storeCheck: { flag: 'store-check', env: 'STORE_CHECK' },
  source: { flag: 'source', env: 'SOURCE' },
  role: { flag: 'role', env: 'ROLE' },
  ogmios: { flag: 'ogmios', env: 'OGMIOS_URL', secret: true },
  chainStart: { flag: 'chain-start', env: 'CHAIN_START' },
  kupo: { flag: 'kupo', env: 'KUPO_URL' },
  tokenRegistry: { flag: 'token-registry', env: 'TOKEN_REGISTRY_URL', secret: true },
  tokenRegistryRefresh: { flag: 'token-registry-refresh', env: 'TOKEN_REGISTRY_REFRESH' },
  ipfsGateway: { flag: 'ipfs-gateway', env: 'IPFS_GATEWAY' },
  arweaveGateway: { flag: 'arweave-gateway', env: 'ARWEAVE_GATEWAY' },
  fetchAllow: { flag: 'fetch-allow', env: 'FETCH_ALLOW' },
  vyFiPools: { flag: 'vyfi-pools', env: 'VYFI_POOLS' },
} as const;

export type Flags = Readonly<Record<string, string | boolean | undefined>>;
export type Env = Readonly<Record<string, string | undefined>>;

function pick(flags: Flags, env: Env, setting: { flag: string; env: string }): string | undefined {
  const fromFlag = flags[setting.flag];
  if (typeof fromFlag === 'string') return fromFlag;
  const fromEnv = env[setting.env];
  return fromEnv === undefined || fromEnv === '' ? undefined : fromEnv;
}

/** A PostgreSQL URL, or an Error naming the variable. */
function databaseUrlOf(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error('DATABASE_URL must be a URL such as postgres://user:password@host:5432/database');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:')
    throw new Error(`DATABASE_URL must be a postgres:// URL (got ${redactUrl(raw)})`);
  return raw;
}

/**
 * `DATABASE_URL` and `REDIS_URL`, checked (throws an Error naming the variable): where a cluster's
 * market lives and what its nodes share. The server and the store CLIs read them the same way.
 */
export function clusterUrls(env: Env): { readonly databaseUrl?: string; readonly redisUrl?: string } {
  const redisUrl = env.REDIS_URL === undefined || env.REDIS_URL === '' ? undefined : env.REDIS_URL;
  if (redisUrl !== undefined && !/^rediss?:\/\//.test(redisUrl))
    throw new Error('REDIS_URL must be a redis:// URL such as redis://127.0.0.1:6379');
  return {
    ...(env.DATABASE_URL ? { databaseUrl: databaseUrlOf(env.DATABASE_URL) } : {}),
    ...(redisUrl !== undefined ? { redisUrl } : {}),
  };
}

/**
 * The addresses a configuration connects to (Ogmios, PostgreSQL, Redis): what `textRedactor` removes
 * from everything the service logs or answers, since each may carry a key.
 */
export function configuredAddresses(
  config: Pick<ServiceConfig, 'ogmiosUrl' | 'databaseUrl' | 'redisUrl'>,
): (string | undefined)[] {
  return [config.ogmiosUrl, config.databaseUrl, config.redisUrl];
}

/** Parses the service's configuration; throws an Error naming the bad flag or variable. */
export function parseServiceConfig(flags: Flags, env: Env): ServiceConfig {
  const read = <T>(key: keyof typeof SERVICE_SETTINGS, schema: z.ZodType<T>, fallback: T): T => {
    const setting = SERVICE_SETTINGS[key];
    const raw = pick(flags, env, setting);
    if (raw === undefined) return fallback;
    const parsed = schema.safeParse(raw);
    if (!parsed.success) {
      throw new Error(
        `--${setting.flag} / ${setting.env}: ${parsed.error.issues[0]?.message ?? 'invalid value'} (got "${'secret' in setting ? redactUrl(raw) : raw}")`,
      );
    }
    return parsed.data;
  };
  const pools = read('pools', int('pools', 1, 200_000), DEFAULT_POOLS);
  const plans = parsePlans(env.TOKEN_API_PLANS);
  const pingRaw = env.STREAM_PING_SECONDS;
  const ping = positive('STREAM_PING_SECONDS').safeParse(pingRaw ?? STREAM_PING_SECONDS);
  if (!ping.success)
    throw new Error(`STREAM_PING_SECONDS: ${ping.error.issues[0]?.message ?? 'invalid'} (got "${pingRaw}")`);
  const source = read(
    'source',
    z.enum(['simulated', 'chain', 'none'], { error: 'source must be simulated, chain or none' }),
    'simulated',
  );
  // A hosted Ogmios may take its key in the host, path or query: all are kept, and shown only as redactUrl shows them.
  const ogmios = read(
    'ogmios',
    z.string().refine((value) => {
      try {
        const url = new URL(value);
        return (
          (url.protocol === 'ws:' || url.protocol === 'wss:') &&
          url.hostname !== '' &&
          url.hash === '' &&
          url.username === '' &&
          url.password === '' &&
          !/\s/.test(value)
        );
      } catch {
        return false;
      }
    }, 'ogmios must be a WebSocket address such as ws://127.0.0.1:1337 or wss://host/path?key=… (no credentials or fragment)'),
    undefined as unknown as string,
  ) as string | undefined;
  // An API node of a cluster follows nothing itself (the ingest node does).
  if (source === 'chain' && ogmios === undefined && pick(flags, env, SERVICE_SETTINGS.role) !== 'api')
    throw new Error('--source chain needs --ogmios ws://host:1337 (or OGMIOS_URL)');
  const chainStart = read(
    'chainStart',
    z.string().transform((value, ctx) => {
      try {
        return parseChainStart(value);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: error instanceof Error ? error.message : String(error) });
        return z.NEVER;
      }
    }),
    undefined as unknown as ChainStart,
  ) as ChainStart | undefined;
  const kupo = read(
    'kupo',
    z.string().refine((value) => {
      try {
        const url = new URL(value);
        return (
          (url.protocol === 'http:' || url.protocol === 'https:') &&
          url.hostname !== '' &&
          url.hash === '' &&
          url.username === ''
        );
      } catch {
        return false;
      }
    }, 'kupo must be an HTTP address such as http://127.0.0.1:1442 (no credentials or fragment)'),
    undefined as unknown as string,
  ) as string | undefined;
  const tokenRegistry = read(
    'tokenRegistry',
    z.string().refine((value) => {
      try {
        const url = new URL(value);
        return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '' && url.hash === '';
      } catch {
        return false;
      }
    }, 'token-registry must be an HTTP address such as https://tokens.cardano.org (no fragment)'),
    undefined as unknown as string,
  ) as string | undefined;
  if (tokenRegistry !== undefined && source === 'simulated')
    throw new Error(
      "--token-registry names real tokens: the simulated market's tokens are its own. Use it with --source chain or none.",
    );
  const tokenRegistryRefresh = read(
    'tokenRegistryRefresh',
    z.string().transform((value, ctx) => {
      const seconds = durationSeconds(value);
      if (seconds === undefined || seconds < 1 || seconds > 30 * 86_400) {
        ctx.addIssue({
          code: 'custom',
          message: 'token-registry-refresh must be a duration from 1s to 30d, such as 30s, 15m, 6h or 1d',
        });
        return z.NEVER;
      }
      return seconds;
    }),
    undefined as unknown as number,
  ) as number | undefined;
  if (tokenRegistryRefresh !== undefined && tokenRegistry === undefined)
    throw new Error(
      '--token-registry-refresh says how often the --token-registry is asked again: pass --token-registry too',
    );
  const logoFetching = readLogoFetching(read, source);
  if (source === 'chain' && chainStart?.kind === 'days' && kupo === undefined) {
    throw new Error(
      `--chain-start ${chainStart.days}d starts about ${chainStart.days} days back, and chain synchronisation cannot seek by time: ` +
        'the block there is looked up in a chain index beside Ogmios. Pass --kupo http://127.0.0.1:1442 (Kupo, or KUPO_URL), ' +
        "or start at a block: --chain-start <slot>.<block hash> (any block's slot and hash, from an explorer).",
    );
  }
  const vyFiPoolsFile = pick(flags, env, SERVICE_SETTINGS.vyFiPools);
  let vyFiPools: VyFiPoolList | undefined;
  try {
    vyFiPools = vyFiPoolsFile === undefined ? undefined : readVyFiPools(vyFiPoolsFile);
  } catch (error) {
    throw new Error(`--vyfi-pools / VYFI_POOLS: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  const role = read('role', z.enum(['all', 'ingest', 'api'], { error: 'role must be all, ingest or api' }), 'all');
  const { databaseUrl, redisUrl } = clusterUrls(env);
  if (role !== 'all' && (databaseUrl === undefined || redisUrl === undefined)) {
    throw new Error(
      `--role ${role} is a node of a cluster: it needs DATABASE_URL (postgres://…) and REDIS_URL (redis://…), shared by every node`,
    );
  }
  const handover = int('STREAM_HANDOVER_MS', 0, 30_000).safeParse(env.STREAM_HANDOVER_MS ?? STREAM_HANDOVER_MS);
  if (!handover.success)
    throw new Error(
      `STREAM_HANDOVER_MS: ${handover.error.issues[0]?.message ?? 'invalid'} (got "${env.STREAM_HANDOVER_MS}")`,
    );
  const lease = positive('STREAM_LEASE_SECONDS').safeParse(env.STREAM_LEASE_SECONDS ?? 30);
  if (!lease.success)
    throw new Error(
      `STREAM_LEASE_SECONDS: ${lease.error.issues[0]?.message ?? 'invalid'} (got "${env.STREAM_LEASE_SECONDS}")`,
    );
  return {
    role,
    streamLeaseSeconds: lease.data,
    ...(redisUrl !== undefined ? { redisUrl } : {}),
    source,
    ...(ogmios !== undefined ? { ogmiosUrl: ogmios } : {}),
    ...(chainStart !== undefined ? { chainStart } : {}),
    ...(kupo !== undefined ? { kupoUrl: kupo } : {}),
    ...(tokenRegistry !== undefined ? { tokenRegistryUrl: tokenRegistry } : {}),
    ...(tokenRegistryRefresh !== undefined ? { tokenRegistryRefreshSeconds: tokenRegistryRefresh } : {}),
    ...logoFetching,
    ...(vyFiPools !== undefined ? { vyFiPools } : {}),
    dataDir: read('dataDir', z.string().min(1, 'data-dir must not be empty'), './data'),
    seed: read('seed', int('seed', 0, 2 ** 31 - 1), DEFAULT_SEED),
    days: read(
      'days',
      z.coerce
        .number({ error: 'days must be a number' })
        .min(0, 'days must be at least 0')
        .max(400, 'days must be at most 400'),
      30,
    ),
    pools,
    tradesPerBlock: read('tradesPerBlock', positive('trades-per-block'), Math.max(1, pools / DEFAULT_POOLS)),
    apiKeys: parseEnvKeys(env.TOKEN_API_KEYS, plans),
    plans,
    streamPingSeconds: ping.data,
    streamMaxBodyBytes: 256 * 1024,
    streamMaxBufferedBytes: 1024 * 1024,
    streamHandoverMs: handover.data,
    extensions: !(flags['spec-only'] === true || env.SPEC_ONLY === '1'),
    ...(databaseUrl !== undefined ? { databaseUrl } : {}),
    storeCheck: read('storeCheck', z.enum(['quick', 'off'], { error: 'store-check must be quick or off' }), 'quick'),
  };
}

/**
 * `--ipfs-gateway`, `--arweave-gateway` and `--fetch-allow`: where token logos are fetched from (docs/chain.md
 * "Logos"). Each is checked (a gateway is an http(s) base URL without credentials, query or fragment; the ranges are
 * CIDRs), and refused with the simulated market, whose tokens have no logos to fetch.
 */
/** Seconds of a duration such as `30s`, `15m`, `6h` or `1d`, or undefined for anything else. */
function durationSeconds(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)(s|m|h|d)$/.exec(text.trim());
  if (!match) return undefined;
  const unit = { s: 1, m: 60, h: 3_600, d: 86_400 }[match[2] as 's' | 'm' | 'h' | 'd'];
  return Number(match[1]) * unit;
}

function readLogoFetching(
  read: <T>(key: keyof typeof SERVICE_SETTINGS, schema: z.ZodType<T>, fallback: T) => T,
  source: ServiceConfig['source'],
): Pick<ServiceConfig, 'ipfsGateway' | 'arweaveGateway' | 'fetchAllow'> {
  const gateway = (flag: string) =>
    z.string().transform((value, ctx) => {
      try {
        return gatewayBase(value, flag);
      } catch (error) {
        ctx.addIssue({ code: 'custom', message: error instanceof Error ? error.message : String(error) });
        return z.NEVER;
      }
    });
  const ipfs = read('ipfsGateway', gateway('ipfs-gateway'), undefined as unknown as string) as string | undefined;
  const arweave = read('arweaveGateway', gateway('arweave-gateway'), undefined as unknown as string) as
    string | undefined;
  const allow = read(
    'fetchAllow',
    z.string().transform((value, ctx) => {
      const ranges = value
        .split(',')
        .map((range) => range.trim())
        .filter((range) => range !== '');
      try {
        createAddressPolicy(ranges);
      } catch (error) {
        ctx.addIssue({
          code: 'custom',
          message: `fetch-allow: ${error instanceof Error ? error.message : String(error)}`,
        });
        return z.NEVER;
      }
      return ranges;
    }),
    undefined as unknown as string[],
  ) as string[] | undefined;
  if (source === 'simulated') {
    const given = [
      ipfs !== undefined && '--ipfs-gateway',
      arweave !== undefined && '--arweave-gateway',
      allow !== undefined && '--fetch-allow',
    ].filter((flag) => flag !== false);
    if (given.length > 0)
      throw new Error(
        `${given.join(', ')} fetch real tokens' logos: the simulated market's tokens are its own. Use ${given.length > 1 ? 'them' : 'it'} with --source chain or none.`,
      );
  }
  return {
    ...(ipfs !== undefined ? { ipfsGateway: ipfs } : {}),
    ...(arweave !== undefined ? { arweaveGateway: arweave } : {}),
    ...(allow !== undefined && allow.length > 0 ? { fetchAllow: allow } : {}),
  };
}
