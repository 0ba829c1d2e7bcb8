import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Registry } from 'prom-client';
import type { LogHook } from '../../src/node/log';
import { parseServiceConfig, type ServiceConfig } from '../../src/service/config';
import { createServiceRuntime } from '../../src/service/runtime';
import type { ServiceRuntime } from '../../src/service/service-runtime';
import { createTestClock, DEFAULT_START_MS, type TestClock } from './clock';
import { undescribed } from './openapi';
import { runtimeInternals } from '../../src/service/runtime-internals';

/** Every path of the spec lives under this prefix. */
export const API = '/api/v1';

/** The plans of DEFAULT_PLANS, each with a key of its own in every test service. */
export const PLAN_NAMES = ['free', 'pro', 'enterprise'] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

/** The configured keys (TOKEN_API_KEYS), one per plan; at least 8 characters each. */
export const TEST_KEYS: Readonly<Record<PlanName, string>> = {
  free: 'test-free-key-000000000001',
  pro: 'test-pro-key-0000000000001',
  enterprise: 'test-enterprise-key-000001',
};

/** Small market defaults: about 300 ms to build, ~13,000 trades over 2 days, 119 Aggregate pools. */
export const TEST_MARKET = { pools: 300, days: 2, seed: 7 } as const;

export interface TestServiceOptions {
  readonly pools?: number;
  readonly days?: number;
  readonly seed?: number;
  /** Start of the clock (ms) when no `clock` is given. */
  readonly startMs?: number;
  /** Share a clock (e.g. across a restart). */
  readonly clock?: TestClock;
  /** STREAM_PING_SECONDS (default: the spec's 20). */
  readonly pingSeconds?: number;
  /** Open this data directory instead of a fresh temp one (the caller keeps ownership of it). */
  readonly dataDir?: string;
  /** Extra environment variables for parseServiceConfig (e.g. TOKEN_API_PLANS). */
  readonly env?: Readonly<Record<string, string>>;
  /** Overrides applied to the parsed configuration (e.g. a small streamMaxBufferedBytes). */
  readonly config?: Partial<ServiceConfig>;
  /** Receives the runtime's log lines, with their level and fields (default: dropped). */
  readonly log?: LogHook;
  /** A Prometheus registry the runtime registers its metrics on. */
  readonly metrics?: Registry;
  /** The chain source's reconnect delays (default 0.5 s doubling to 30 s). */
  readonly chainBackoff?: { readonly initialMs: number; readonly maxMs: number };
}

/** RequestInit plus the key to send: a plan's key by default, `null` for no Authorization header. */
export type TestRequestInit = RequestInit & { readonly key?: string | null };

export interface TestService {
  readonly runtime: ServiceRuntime;
  readonly app: ServiceRuntime['app'];
  /** The key `request` sends by default (enterprise plan: 6,000 requests a minute). */
  readonly key: string;
  readonly keys: Readonly<Record<PlanName, string>>;
  readonly clock: TestClock;
  readonly dataDir: string;
  /** `app.request(path, init)` with `Authorization: Bearer <key>` added (unless the init sets one or `key: null`). */
  request(path: string, init?: TestRequestInit): Promise<Response>;
  /** GET (with the default key) and parse the JSON body; throws on a non-2xx status. */
  getJson(path: string, key?: string): Promise<unknown>;
  /** Makes the market trade one block at the clock's time (at least one trade); resolves with the trade count once committed. */
  trade(): Promise<number>;
  /** A fresh key of a plan (stored in the key store), for a rate-limit bucket of its own. */
  newKey(plan: PlanName): Promise<string>;
  /** Closes the runtime and opens a new one on the same data directory and clock. */
  restart(options?: Omit<TestServiceOptions, 'dataDir' | 'clock'>): Promise<TestService>;
  /** Closes the runtime and removes the temp directory (when this service created it). */
  close(): Promise<void>;
}

function envKeys(): string {
  return PLAN_NAMES.map((plan) => `${TEST_KEYS[plan]}:${plan}`).join(',');
}

/**
 * Builds the real service runtime (store, simulator, HTTP app) on a temp directory with a small
 * deterministic market and an injectable clock. Nothing is mocked.
 */
export function createTestService(options: TestServiceOptions = {}): Promise<TestService> {
  const ownsDir = options.dataDir === undefined;
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'token-price-test-'));
  const clock = options.clock ?? createTestClock(options.startMs ?? DEFAULT_START_MS);
  return open(dataDir, ownsDir, clock, options);
}

async function open(
  dataDir: string,
  ownsDir: boolean,
  clock: TestClock,
  options: TestServiceOptions,
): Promise<TestService> {
  const flags = {
    'data-dir': dataDir,
    pools: String(options.pools ?? TEST_MARKET.pools),
    days: String(options.days ?? TEST_MARKET.days),
    seed: String(options.seed ?? TEST_MARKET.seed),
  };
  const env: Record<string, string> = { TOKEN_API_KEYS: envKeys(), ...options.env };
  if (options.pingSeconds !== undefined) env.STREAM_PING_SECONDS = String(options.pingSeconds);
  let runtime: ServiceRuntime;
  try {
    const config = { ...parseServiceConfig(flags, env), ...options.config };
    runtime = await createServiceRuntime(config, {
      nowMs: clock.now,
      ...(options.log ? { log: options.log } : {}),
      ...(options.metrics ? { metrics: options.metrics } : {}),
      ...(options.chainBackoff ? { chainBackoff: options.chainBackoff } : {}),
    });
  } catch (error) {
    if (ownsDir) rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  const key = TEST_KEYS.enterprise;
  let handedOver = false;

  const request = async (path: string, init: TestRequestInit = {}): Promise<Response> => {
    const { key: chosen, ...rest } = init;
    const headers = new Headers(rest.headers);
    const sent = chosen === undefined ? key : chosen;
    if (sent !== null && !headers.has('Authorization')) headers.set('Authorization', `Bearer ${sent}`);
    const response = await runtime.app.request(path, { ...rest, headers });
    // Every answer must be one the OpenAPI document describes (streams: by status and content type).
    // Judged by the path the app saw: app.request parses it as a URL (dot segments resolved, no fragment).
    const problem = await undescribed(rest.method ?? 'GET', new URL(path, 'http://localhost').pathname, response);
    if (problem !== undefined) throw new Error(`Not described by /openapi.json: ${problem}`);
    return response;
  };

  const service: TestService = {
    runtime,
    app: runtime.app,
    key,
    keys: TEST_KEYS,
    clock,
    dataDir,
    request,
    getJson: async (path, chosen) => {
      const response = await request(path, chosen === undefined ? {} : { key: chosen });
      const text = await response.text();
      if (!response.ok) throw new Error(`GET ${path}: ${response.status} ${text}`);
      return JSON.parse(text) as unknown;
    },
    trade: () => runtime.simulator.forceBlock(clock.seconds()),
    newKey: async (plan) => (await runtimeInternals(runtime).keyStore.create(plan, 'test')).key,
    restart: async (next = {}) => {
      await runtime.close();
      handedOver = true;
      return open(dataDir, ownsDir, clock, { ...options, ...next });
    },
    close: async () => {
      await runtime.close();
      if (ownsDir && !handedOver) rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return service;
}
