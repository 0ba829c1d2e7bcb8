import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_GATEWAY_CONFIG, type GatewayConfig } from '../../src/gateway/config';
import type { LogHook } from '../../src/node/log';
import { createPlatform, type Platform } from '../../src/server/platform';
import { parseServiceConfig } from '../../src/service/config';
import type { ServiceRuntime } from '../../src/service/service-runtime';
import { TestEventSource } from './event-source';

export interface TestPlatformOptions {
  readonly pools?: number;
  readonly days?: number;
  readonly seed?: number;
  readonly gateway?: Partial<GatewayConfig>;
  /** Clock in ms for the market (defaults to Date.now). */
  readonly nowMs?: () => number;
  readonly dataDir?: string;
  /** Extra environment for the service's configuration (e.g. SOURCE, OGMIOS_URL). */
  readonly env?: Readonly<Record<string, string>>;
  /** Receives the platform's log lines (requests included), with their level and fields. */
  readonly log?: LogHook;
}

export interface TestPlatform {
  readonly platform: Platform;
  /** The embedded service (market, store, simulator), for the helpers of support/market.ts. */
  readonly runtime: ServiceRuntime;
  readonly dataDir: string;
  /** The market's clock, whole Unix seconds (what forceTradesOn takes as the blocks' time). */
  nowSeconds(): number;
  /** fetch against the in-process platform (relative URLs welcome). */
  fetch(input: string, init?: RequestInit): Promise<Response>;
  /** An EventSource on the in-process platform. */
  eventSource(url: string): TestEventSource;
  /** Makes the embedded market trade one block now (at least one trade); resolves once committed. */
  trade(): Promise<number>;
  close(): Promise<void>;
}

/**
 * The whole server in-process (embedded service + gateway), on a temp data dir with a small market:
 * what browser-side code (datafeed, app) talks to in tests, without sockets.
 */
export async function createTestPlatform(options: TestPlatformOptions = {}): Promise<TestPlatform> {
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'platform-'));
  const service = parseServiceConfig(
    {
      'data-dir': dataDir,
      pools: String(options.pools ?? 300),
      days: String(options.days ?? 2),
      seed: String(options.seed ?? 7),
    },
    { TOKEN_API_KEYS: 'test-free-key-0001:free', ...options.env },
  );
  const platform = await createPlatform({
    service,
    // Short debounce and reconnect hint: tests need not wait seconds for a browser to come back.
    gateway: {
      ...DEFAULT_GATEWAY_CONFIG,
      resubscribeDebounceMs: 5,
      retryMs: 250,
      handoverMs: 100,
      idleLingerMs: 1500,
      ...options.gateway,
    },
    hooks: { ...(options.nowMs ? { nowMs: options.nowMs } : {}), ...(options.log ? { log: options.log } : {}) },
  });
  const fetchImpl = async (input: string, init?: RequestInit) =>
    platform.app.fetch(new Request(new URL(input, 'http://platform.test'), init));
  const runtime = platform.runtime;
  if (!runtime) throw new Error('no embedded market');
  const nowSeconds = () => Math.floor((options.nowMs ?? Date.now)() / 1000);
  return {
    platform,
    runtime,
    dataDir,
    nowSeconds,
    fetch: fetchImpl,
    eventSource: (url) => new TestEventSource(url, fetchImpl),
    trade: () => runtime.simulator.forceBlock(nowSeconds()),
    close: async () => {
      await platform.close();
      if (options.dataDir === undefined) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
