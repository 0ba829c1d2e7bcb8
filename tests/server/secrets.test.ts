import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEFAULT_GATEWAY_CONFIG, parseGatewayConfig } from '../../src/gateway/config';
import { createPlatform, type Platform } from '../../src/server/platform';
import { readSettings } from '../../src/server/settings';
import { ChainIngest } from '../../src/service/chain/chain-ingest';
import { ChainFollower } from '../../src/service/chain/follower';
import { clusterUrls, parseServiceConfig } from '../../src/service/config';
import { createServiceRuntime } from '../../src/service/runtime';
import { openMarket } from '../../src/service/open-market';
import { startPostgres, type TestPostgres } from '../support/engines';
import { FakeOgmios } from '../support/fake-ogmios';
import {
  faultyEndpoint,
  FAULTS,
  resolveTestHosts,
  TEST_HOST_SUFFIX,
  type FaultyEndpoint,
} from '../support/faulty-endpoints';

/**
 * No key of an address the server connects to (Ogmios, the gateway's upstream, PostgreSQL, Redis) is
 * ever shown: with the key in the host, the path, the query or the user info, and the endpoint refusing
 * the connection, never answering, or answering garbage, nothing of it is in /healthz, /gw/v1/info, a
 * gateway error answer, a log line or an error thrown at start; configuration errors never repeat it.
 * Hosts under `.key.test` resolve to 127.0.0.1 (resolveTestHosts), so a key in the host reaches the
 * faulty endpoint too; a host under `.invalid` does not resolve at all.
 */

/** Every key used below: each one must be absent from everything shown. */
const KEYS: string[] = [];
const key = (name: string) => {
  const value = `${name}Key${KEYS.length}X7q`;
  KEYS.push(value);
  return value;
};

function expectNoKey(what: string, text: string): void {
  for (const secret of KEYS) {
    expect(text.toLowerCase(), `${what} shows ${secret}`).not.toContain(secret.toLowerCase());
  }
}

/** Key placements of a WebSocket or HTTP address on `port` (user info: see the configuration tests, which refuse it). */
function placements(scheme: 'ws' | 'http', port: number, name: string): Record<string, string> {
  return {
    host: `${scheme}://${key(`${name}Host`)}${TEST_HOST_SUFFIX}:${port}`,
    path: `${scheme}://127.0.0.1:${port}/${key(`${name}Path`)}`,
    query: `${scheme}://127.0.0.1:${port}/v6?dmtr-api-key=${key(`${name}Query`)}`,
    'unresolvable host': `${scheme}://${key(`${name}Dns`)}.nowhere.invalid:${port}`,
  };
}

let restoreHosts: () => void;
const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'secrets-'));
  dirs.push(dir);
  return dir;
};
beforeAll(() => {
  restoreHosts = resolveTestHosts();
});
afterAll(() => {
  restoreHosts();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('Ogmios (--ogmios / OGMIOS_URL)', () => {
  describe.each(FAULTS)('answering %s', (fault) => {
    let endpoint: FaultyEndpoint;
    beforeAll(async () => {
      endpoint = await faultyEndpoint(fault);
    });
    afterAll(() => endpoint.close());

    it.each(['host', 'path', 'query', 'unresolvable host'])(
      'with the key in the %s: /healthz, the log and /gw/v1/info show none of it',
      async (where) => {
        const address = placements('ws', endpoint.port, `og${fault}`)[where] ?? '';
        const lines: string[] = [];
        const service = parseServiceConfig(
          { 'data-dir': tempDir(), source: 'chain', ogmios: address },
          { TOKEN_API_KEYS: 'secrets-key-0001:free' },
        );
        const platform = await createPlatform({
          service,
          gateway: DEFAULT_GATEWAY_CONFIG,
          hooks: { log: (line) => lines.push(line), chainBackoff: { initialMs: 20, maxMs: 100 } },
        });
        try {
          platform.startLive();
          const health = async () => (await platform.app.request('/healthz')).text();
          const chain = async () =>
            (JSON.parse(await health()) as { chain: { state: string; reconnects: number; lastError: string | null } })
              .chain;
          if (fault === 'timeout' && where !== 'unresolvable host') {
            // The node accepts and says nothing: the source waits, and says so (no error text yet).
            await new Promise((resolve) => setTimeout(resolve, 1_000));
            expect((await chain()).state).toBe('connecting');
          } else {
            await vi.waitUntil(async () => (await chain()).reconnects >= 2, { timeout: 10_000, interval: 20 });
            const { lastError } = await chain();
            expect(lastError).not.toBeNull();
            // The error text is there (what failed, and where in redacted form), only not the key.
            expect(lastError).toMatch(
              where === 'unresolvable host' ? /ENOTFOUND <redacted>/ : /ECONNREFUSED|invalid json|<redacted>/,
            );
            expect(
              lines.some((line) => line.startsWith(`chain: connection to ws://<redacted>:${endpoint.port} lost (`)),
            ).toBe(true);
          }
          expectNoKey('/healthz', await health());
          expectNoKey('/gw/v1/info', await (await platform.app.request('/gw/v1/info')).text());
          expectNoKey('the log', lines.join('\n'));
        } finally {
          // A node that never answers holds the source's connection attempt until its 30 s limit: ended here at once.
          endpoint.dropConnections();
          await platform.close();
        }
      },
    );
  });

  it('with the key in the path or query of a node that goes silent or sends garbage once followed: status and log show none of it', async () => {
    const fake = await FakeOgmios.start([
      {
        type: 'praos',
        era: 'babbage',
        id: 'ee'.repeat(32),
        height: 0,
        slot: 120_000_000,
        ancestor: 'genesis',
        transactions: [],
      },
    ]);
    const dir = tempDir();
    const handle = await openMarket(dir, 'test');
    try {
      for (const address of [`${fake.url}/${key('liveOgPath')}`, `${fake.url}/v6?dmtr-api-key=${key('liveOgQuery')}`]) {
        const lines: string[] = [];
        const ingest = await ChainIngest.open(handle.ingestor, handle.store.market, (line) => lines.push(line));
        const follower = new ChainFollower(ingest, {
          url: address,
          start: { kind: 'point', point: { slot: 120_000_000, id: 'ee'.repeat(32) } },
          backoff: { initialMs: 20, maxMs: 100 },
          heartbeatMs: 100,
          log: (line) => lines.push(line),
        });
        follower.start();
        try {
          await vi.waitUntil(() => lines.some((line) => line.startsWith('chain: following ws://<redacted>:')), {
            timeout: 10_000,
            interval: 20,
          });
          fake.sendGarbage();
          await vi.waitUntil(() => follower.status().garbage >= 1, { timeout: 10_000, interval: 20 });
          await vi.waitUntil(() => lines.filter((line) => line.startsWith('chain: following')).length >= 2, {
            timeout: 10_000,
            interval: 20,
          });
          fake.silent = true;
          await vi.waitUntil(() => /did not answer a ping/.test(follower.status().lastError ?? ''), {
            timeout: 10_000,
            interval: 20,
          });
          fake.resume();
          expectNoKey('the status', JSON.stringify(follower.status()));
          expectNoKey('the log', lines.join('\n'));
        } finally {
          await follower.stop();
        }
      }
    } finally {
      await handle.close();
      await fake.close();
    }
  });
});

describe("the gateway's upstream (UPSTREAM_URL)", () => {
  describe.each(FAULTS)('answering %s', (fault) => {
    let endpoint: FaultyEndpoint;
    beforeAll(async () => {
      endpoint = await faultyEndpoint(fault);
    });
    afterAll(() => endpoint.close());

    it.each(['host', 'path', 'unresolvable host'])(
      'with the key in the %s: /gw/v1/info, error answers and the log show none of it',
      async (where) => {
        const address = placements('http', endpoint.port, `up${fault}`)[where] ?? '';
        const lines: string[] = [];
        const gateway = parseGatewayConfig({
          UPSTREAM_URL: address,
          UPSTREAM_API_KEY: 'upstream-key-0001',
          GATEWAY_UPSTREAM_TIMEOUT_MS: '300',
          GATEWAY_UPSTREAM_SILENCE_SECONDS: '1',
          GATEWAY_BACKOFF_INITIAL_MS: '20',
          GATEWAY_BACKOFF_MAX_MS: '100',
        });
        const platform: Platform = await createPlatform({
          service: parseServiceConfig({ 'data-dir': tempDir() }, {}),
          gateway,
          testControls: true,
          hooks: { log: (line) => lines.push(line) },
        });
        try {
          const info = JSON.parse(await (await platform.app.request('/gw/v1/info')).text()) as { upstream?: string };
          expect(info.upstream).toBe(`http://<redacted>:${endpoint.port}`);
          const answers: string[] = [JSON.stringify(info)];
          for (const path of [
            '/gw/v1/groups',
            `/gw/v1/tokens/current?pool=${'ab'.repeat(28)}`,
            '/gw/v1/liquidity?group=Minswap',
            '/gw/v1/history?symbol=x&resolution=1min&from=0&to=1',
          ]) {
            answers.push(await (await platform.app.request(path)).text());
          }
          // An upstream failure says what happened, in the family's error shape (garbage is passed on as it came).
          if (fault !== 'garbage')
            expect(answers[1]).toMatch(
              fault === 'timeout' && where !== 'unresolvable host'
                ? /did not answer within 300 ms/
                : /Upstream unavailable: /,
            );
          // The test control passed to the upstream fails too (against a silent one, only after its 15 s: not waited for).
          if (fault !== 'timeout')
            answers.push(await (await platform.app.request('/__test__/block', { method: 'POST' })).text());
          // The live stream's upstream connection fails and is retried: logged.
          platform.gateway.upstreamStream.setPools([`${'cd'.repeat(28)}`]);
          await vi.waitUntil(() => lines.some((line) => line.startsWith('gateway: upstream stream: ')), {
            timeout: 10_000,
            interval: 20,
          });
          for (const answer of answers) expectNoKey('a gateway answer', answer);
          expectNoKey('the log', lines.join('\n'));
        } finally {
          endpoint.dropConnections();
          await platform.close();
        }
      },
    );
  });
});

describe('PostgreSQL (DATABASE_URL)', () => {
  it.each(FAULTS)(
    'answering %s, with the key in the host, path, query or user info: the start fails and neither its error nor the log shows it',
    async (fault) => {
      const endpoint = await faultyEndpoint(fault);
      try {
        const p = endpoint.port;
        const addresses = [
          `postgres://app@${key('dbHost')}${TEST_HOST_SUFFIX}:${p}/prices`,
          `postgres://app@127.0.0.1:${p}/${key('dbPath')}`,
          `postgres://app@127.0.0.1:${p}/prices?password=${key('dbQuery')}`,
          `postgres://${key('dbUser')}:${key('dbPassword')}@127.0.0.1:${p}/prices`,
          `postgres://app@${key('dbDns')}.nowhere.invalid:${p}/prices`,
        ];
        // All at once: a connection that never answers takes the driver's 3 s timeout.
        await Promise.all(
          addresses.map(async (address) => {
            const lines: string[] = [];
            const config = parseServiceConfig({ 'data-dir': tempDir() }, { DATABASE_URL: address });
            const error = await createServiceRuntime(config, { log: (line) => lines.push(line) }).then(
              async (runtime) => {
                await runtime.close();
                return new Error('started');
              },
              (failure: unknown) => failure as Error,
            );
            expect(error.message).not.toBe('started');
            expectNoKey('the error', `${error.message}\n${error.stack ?? ''}`);
            expectNoKey('the log', lines.join('\n'));
          }),
        );
      } finally {
        await endpoint.close();
      }
    },
  );
});

describe('Redis (REDIS_URL)', () => {
  let pg: TestPostgres;
  beforeAll(async () => {
    pg = await startPostgres();
  }, 60_000);
  afterAll(() => pg.destroy());

  it.each(FAULTS)(
    'answering %s, with the key in the host, query or user info: an ingest and an API node run, and neither /healthz nor the log shows it',
    async (fault) => {
      const endpoint = await faultyEndpoint(fault);
      try {
        const p = endpoint.port;
        const addresses = [
          `redis://${key('rdHost')}${TEST_HOST_SUFFIX}:${p}`,
          `redis://127.0.0.1:${p}/?password=${key('rdQuery')}`,
          `redis://${key('rdUser')}:${key('rdPassword')}@127.0.0.1:${p}/0`,
          `redis://${key('rdDns')}.nowhere.invalid:${p}`,
        ];
        await Promise.all(
          addresses.map(async (address, n) => {
            const lines: string[] = [];
            const log = (line: string) => lines.push(line);
            const database = await pg.createDatabase(`redis_${fault}_${n}`);
            const env = { DATABASE_URL: database, REDIS_URL: address };
            // The ingest node waits up to 5 s for Redis, then carries on (its publishes fail, logged).
            const ingest = await createServiceRuntime(
              parseServiceConfig({ role: 'ingest', 'data-dir': tempDir(), pools: '40', days: '0.2' }, env),
              { log },
            );
            try {
              const api = await createServiceRuntime(parseServiceConfig({ role: 'api', 'data-dir': tempDir() }, env), {
                log,
              });
              try {
                // Refused or garbage: the client libraries' errors are logged. Silent: the writer's first publish times out.
                await vi.waitUntil(() => lines.some((line) => /^(redis \(|commit bus: publish failed)/.test(line)), {
                  timeout: 20_000,
                  interval: 50,
                });
                expectNoKey('/healthz (ingest)', await (await ingest.app.request('/healthz')).text());
                expectNoKey('/healthz (api)', await (await api.app.request('/healthz')).text());
              } finally {
                await api.close();
              }
            } finally {
              await ingest.close();
            }
            expectNoKey('the log', lines.join('\n'));
          }),
        );
      } finally {
        await endpoint.close();
      }
    },
    60_000,
  );
});

describe('configuration errors', () => {
  it('never repeat a key of an address given in any part', () => {
    const attempts: (() => unknown)[] = [
      () =>
        parseServiceConfig(
          { source: 'chain', ogmios: `http://${key('cfgOgHost')}.example.com/${key('cfgOgPath')}` },
          {},
        ),
      () => parseServiceConfig({ source: 'chain', ogmios: `ws://user:${key('cfgOgPassword')}@host:1337` }, {}),
      () => parseServiceConfig({ source: 'chain', ogmios: `ws://:${key('cfgOgPasswordOnly')}@host:1337/` }, {}),
      () => parseServiceConfig({}, { SOURCE: 'chain', OGMIOS_URL: `ws://host:1337/#${key('cfgOgFragment')}` }),
      () => parseServiceConfig({}, { SOURCE: 'chain', OGMIOS_URL: `not a url ${key('cfgOgText')}` }),
      () => parseGatewayConfig({ UPSTREAM_URL: `not a url ${key('cfgUpText')}`, UPSTREAM_API_KEY: 'k-0000001' }),
      () =>
        parseGatewayConfig({
          UPSTREAM_URL: `https://u:${key('cfgUpPassword')}@api.example.com`,
          UPSTREAM_API_KEY: 'k-0000001',
        }),
      () =>
        parseGatewayConfig({
          UPSTREAM_URL: `https://api.example.com/?key=${key('cfgUpQuery')}`,
          UPSTREAM_API_KEY: 'k-0000001',
        }),
      () =>
        parseGatewayConfig({ UPSTREAM_URL: `ftp://${key('cfgUpHost')}.example.com`, UPSTREAM_API_KEY: 'k-0000001' }),
      () => parseGatewayConfig({ UPSTREAM_URL: `https://${key('cfgUpNoKey')}.example.com` }),
      () => clusterUrls({ DATABASE_URL: `mysql://${key('cfgDbUser')}:${key('cfgDbPassword')}@host/db` }),
      () => clusterUrls({ DATABASE_URL: `not a url ${key('cfgDbText')}` }),
      () => clusterUrls({ DATABASE_URL: `${key('cfgDbScheme')}://host/db` }),
      () => clusterUrls({ REDIS_URL: `http://:${key('cfgRdPassword')}@cache:6379` }),
      () => parseServiceConfig({ role: 'api' }, { DATABASE_URL: `postgres://u:${key('cfgDbAlone')}@host/db` }),
      () =>
        readSettings(
          { source: 'chain', ogmios: `wss://${key('cfgSettings')}.example.com/?k=${key('cfgSettingsQuery')}#x` },
          {},
        ),
    ];
    for (const attempt of attempts) {
      let message = '';
      try {
        attempt();
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message, 'the configuration was accepted').not.toBe('');
      expectNoKey('a configuration error', message);
    }
  });
});
