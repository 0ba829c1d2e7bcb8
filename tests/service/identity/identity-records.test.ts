import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseServiceConfig } from '../../../src/service/config';
import { runtimeInternals } from '../../../src/service/runtime-internals';
import { tokenStatsSchema } from '../../../src/shared/api/tokens';
import { cip26ByTicker } from '../../support/cip26-sample';
import { FakeTokenRegistry } from '../../support/fake-token-registry';
import { addUnknownTokenPool } from '../../support/ada-pools';
import { createTestService, type TestService } from '../../support/service';

/**
 * Each source's answer is kept in the store (docs/chain.md "Token identity"): a restart starts from the records and
 * does not ask the metadata server again what it knows until the daily refresh is due. Real registry entries
 * (../shared/data/cip26-sample: MIN and INDY, 6 decimals each).
 */
const MIN = '29d222ce763455e3d7a09a665ce554f00ac89d2e99a1a83d267170c64d494e';
const INDY = '533bb94a8850ee3ccbe483106489399112b74c905342cb1792a797a0494e4459';
/** The reserves of Minswap V2's real MIN/ADA pool (prise tx cb3e7f42…). */
const LOVELACE = 13_772_047_147_984;
const RAW_MIN = 323_407_017_528_177;

interface Health {
  readonly identity?: { readonly known: number; readonly pending: number };
}

describe("a market's identity records across restarts", () => {
  let registry: FakeTokenRegistry;
  let service: TestService;
  beforeAll(async () => {
    registry = await FakeTokenRegistry.start([cip26ByTicker('MIN'), cip26ByTicker('INDY')]);
    service = await createTestService({
      startMs: 1_718_000_000_000,
      config: { source: 'none', tokenRegistryUrl: registry.url },
    });
    service.runtime.startLive();
  }, 60_000);
  afterAll(async () => {
    await service?.close();
    await registry?.close();
  });

  /** Adds a token with nothing known of it (its asset name, 0 decimals) in a pool against ADA. */
  async function addPool(unit: string, ticker: string, poolByte: string): Promise<void> {
    const { ingestor } = runtimeInternals(service.runtime);
    addUnknownTokenPool(ingestor, { unit, ticker, poolId: poolByte.repeat(28), lovelace: LOVELACE, tokens: RAW_MIN });
    await ingestor.commit();
  }

  const health = async () => (await (await service.app.request('/healthz')).json()) as Health;

  it('keeps the registry answer in the store, with the source and when it was learnt', async () => {
    await addPool(MIN, 'MIN', 'f5');
    await vi.waitFor(() => expect(service.runtime.market.tokens.get(MIN)?.decimals).toBe(6), {
      timeout: 20_000,
      interval: 50,
    });
    const { store } = runtimeInternals(service.runtime);
    await vi.waitFor(async () => expect((await store.market.load()).identities).toHaveLength(1), { timeout: 10_000 });
    const [record] = (await store.market.load()).identities ?? [];
    expect(record).toMatchObject({ unit: MIN, source: 'registry', name: 'Minswap', ticker: 'MIN', decimals: 6 });
    expect(record?.at).toBe(1_718_000_000);
    expect(record?.logo).toMatch(/^png:[0-9a-f]{64}$/);
    expect(registry.queries).toEqual([[MIN]]);
  });

  it('starts again from the records: the token keeps its identity and the server is not asked again', async () => {
    service.clock.advanceSeconds(3_600);
    service = await service.restart();
    service.runtime.startLive();
    // Nothing waits for a lookup: the record is an hour old, its refresh due in 23 hours.
    expect((await health()).identity).toMatchObject({ known: 1, pending: 0 });
    expect(service.runtime.market.tokens.get(MIN)).toMatchObject({ name: 'Minswap', decimals: 6 });
    // A token new to the market is asked, alone.
    await addPool(INDY, 'INDY', 'a1');
    await vi.waitFor(() => expect(service.runtime.market.tokens.get(INDY)?.decimals).toBe(6), {
      timeout: 20_000,
      interval: 50,
    });
    expect(registry.queries).toEqual([[MIN], [INDY]]);
  });

  it('asks again once the daily refresh is due', async () => {
    service.clock.advanceSeconds(86_400);
    service = await service.restart();
    service.runtime.startLive();
    await vi.waitFor(() => expect(registry.queries.length).toBe(3), { timeout: 20_000, interval: 50 });
    expect(registry.queries[2]?.toSorted()).toEqual([MIN, INDY].toSorted());
  });
});

describe('a registry correction reaching a running market (--token-registry-refresh)', () => {
  let registry: FakeTokenRegistry;
  let service: TestService;
  beforeAll(async () => {
    registry = await FakeTokenRegistry.start([cip26ByTicker('MIN')]);
    service = await createTestService({
      startMs: 1_718_000_000_000,
      config: { source: 'none', tokenRegistryUrl: registry.url, tokenRegistryRefreshSeconds: 2 },
    });
    service.runtime.startLive();
  }, 60_000);
  afterAll(async () => {
    await service?.close();
    await registry?.close();
  });

  it('asks each token again as its refresh falls due, without a restart, and prices follow the corrected decimals', async () => {
    const { ingestor } = runtimeInternals(service.runtime);
    const pool = addUnknownTokenPool(ingestor, {
      unit: MIN,
      ticker: 'MIN',
      poolId: 'c1'.repeat(28),
      lovelace: LOVELACE,
      tokens: RAW_MIN,
    });
    await ingestor.commit();
    const price = async () =>
      tokenStatsSchema.parse(await service.getJson(`/api/v1/tokens/current?pool=${pool.poolId}`)).current_price;
    await vi.waitFor(() => expect(service.runtime.market.tokens.get(MIN)?.decimals).toBe(6), {
      timeout: 20_000,
      interval: 50,
    });
    const right = await price();
    expect(right).toBeCloseTo(0.042584, 5);
    expect(registry.queries).toEqual([[MIN]]);

    // The registry corrects MIN's decimals (6 → 4). Before the refresh is due nothing is asked again.
    const entry = cip26ByTicker('MIN');
    registry.set([{ ...entry, decimals: { ...(entry.decimals as object), value: 4 } }]);
    service.clock.advanceSeconds(1);
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(registry.queries).toHaveLength(1);
    // Two seconds after it was asked: asked again, alone, and every answer follows the new decimals.
    service.clock.advanceSeconds(1.5);
    await vi.waitFor(() => expect(service.runtime.market.tokens.get(MIN)?.decimals).toBe(4), {
      timeout: 20_000,
      interval: 100,
    });
    expect(registry.queries).toEqual([[MIN], [MIN]]);
    expect((await price()) / right).toBeCloseTo(0.01, 6);
  }, 60_000);

  it('refuses a refresh that is not a duration from 1s to 30d, or without a registry', () => {
    const flags = { source: 'none', 'token-registry': 'https://tokens.cardano.org' };
    expect(parseServiceConfig({ ...flags, 'token-registry-refresh': '6h' }, {})).toMatchObject({
      tokenRegistryRefreshSeconds: 21_600,
    });
    expect(parseServiceConfig(flags, { TOKEN_REGISTRY_REFRESH: '30s' })).toMatchObject({
      tokenRegistryRefreshSeconds: 30,
    });
    for (const bad of ['0s', '31d', 'daily', '10', '-1h'])
      expect(() => parseServiceConfig({ ...flags, 'token-registry-refresh': bad }, {})).toThrow(
        /token-registry-refresh must be a duration from 1s to 30d/,
      );
    expect(() => parseServiceConfig({ source: 'none', 'token-registry-refresh': '1h' }, {})).toThrow(
      /pass --token-registry too/,
    );
  });
});
