import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { parseServiceConfig } from '../../../src/service/config';
import { kupoReferenceDatum } from '../../../src/service/identity/kupo-reference';
import { MarketIdentity } from '../../../src/service/identity/market-identity';
import { LOGO_NONE } from '../../../src/service/market/model';
import { runtimeInternals } from '../../../src/service/runtime-internals';
import { tokenLogoSchema, tokenStatsSchema } from '../../../src/shared/api/tokens';
import { ADA_UNIT } from '../../../src/shared/id-rules';
import { cip26ByTicker } from '../../support/cip26-sample';
import { CIP68_DATUMS } from '../../support/cip68-fixtures';
import { addUnknownTokenPool } from '../../support/ada-pools';
import { FakeKupo } from '../../support/fake-kupo';
import { FakeTokenRegistry } from '../../support/fake-token-registry';
import { createTestService, type TestService } from '../../support/service';

/**
 * `--token-registry` on a running market: a MIN/ADA pool seen before anything is known of MIN (decimals 0, the
 * asset name) is served at its real price once the metadata server answers, with no manual step. The pool holds the
 * reserves of Minswap V2's real MIN/ADA pool (prise: minswap/transactions_qualified_qty_swaps_multiple_tokens.json,
 * tx cb3e7f42…: 323,407,017,528,177 raw MIN against 13,772,047,147,984 lovelace); MIN's registry entry is the real one
 * (../shared/data/cip26-sample: Minswap, MIN, 6 decimals).
 */
const MIN = '29d222ce763455e3d7a09a665ce554f00ac89d2e99a1a83d267170c64d494e';
const RAW_MIN = 323_407_017_528_177;
const LOVELACE = 13_772_047_147_984;

describe('a market naming its tokens from a token metadata server', () => {
  let registry: FakeTokenRegistry;
  let service: TestService;
  beforeAll(async () => {
    registry = await FakeTokenRegistry.start([cip26ByTicker('MIN')]);
    service = await createTestService({
      startMs: 1_718_000_000_000,
      config: { source: 'none', tokenRegistryUrl: registry.url },
    });
    // What a server does once it serves: the market goes live (for this market: the resolver starts).
    service.runtime.startLive();
  }, 60_000);
  afterAll(async () => {
    await service?.close();
    await registry?.close();
  });

  it('serves a pool seen before its token was known at the real price once the registry answers', async () => {
    const { ingestor } = runtimeInternals(service.runtime);
    const pool = addUnknownTokenPool(ingestor, {
      unit: MIN,
      ticker: 'MIN',
      poolId: 'f5808c2c990d86da54bfc97d89cee6efa20cd8461616359478d96b4c',
      lovelace: LOVELACE,
      tokens: RAW_MIN,
    });
    await ingestor.commit();
    const price = async () =>
      tokenStatsSchema.parse(await service.getJson(`/api/v1/tokens/current?pool=${pool.poolId}`)).current_price;
    // Until the registry is asked: 10^6 off (0 decimals), the asset name.
    const wrong = await price();
    await vi.waitFor(async () => expect(await price()).toBeCloseTo((LOVELACE / RAW_MIN) * 1, 12), {
      timeout: 20_000,
      interval: 50,
    });
    expect((await price()) / wrong).toBeCloseTo(1e6, 3);
    expect(await price()).toBeCloseTo(0.042584, 5);
    expect(service.runtime.market.tokens.get(MIN)).toMatchObject({ name: 'Minswap', ticker: 'MIN', decimals: 6 });
    expect(registry.queries.flat()).toContain(MIN);
    // The registry's PNG is the token's logo now (made the served PNG off the ingest path, a moment later).
    const logo = async () =>
      Buffer.from(tokenLogoSchema.parse(await service.getJson(`/api/v1/tokens/logo/${MIN}`)) ?? '', 'base64');
    await vi.waitFor(async () => expect((await logo()).subarray(1, 4).toString()).toBe('PNG'), {
      timeout: 20_000,
      interval: 50,
    });
    const health = (await (await service.app.request('/healthz')).json()) as { identity?: unknown };
    expect(health.identity).toMatchObject({ known: 1, registry: 1, pending: 0, registryServer: 'on', lastError: null });
  });

  it('refuses a token registry for the simulated market, saying why', () => {
    expect(() => parseServiceConfig({ 'token-registry': 'https://tokens.cardano.org' }, {})).toThrow(
      /simulated market's tokens are its own/,
    );
    expect(() => parseServiceConfig({ source: 'none', 'token-registry': 'ftp://tokens.cardano.org' }, {})).toThrow(
      /token-registry must be an HTTP address/,
    );
    expect(parseServiceConfig({ source: 'none', 'token-registry': 'https://tokens.cardano.org' }, {})).toMatchObject({
      tokenRegistryUrl: 'https://tokens.cardano.org',
    });
  });
});

const DATUMS = CIP68_DATUMS;

describe('CIP-68 tokens named from their reference NFTs through Kupo', () => {
  let kupo: FakeKupo;
  let service: TestService;
  beforeAll(async () => {
    kupo = await FakeKupo.start([]);
    kupo.setReferences(new Map(DATUMS.map((d) => [d.unit, d.datum])));
    service = await createTestService({ startMs: 1_718_000_000_000, config: { source: 'none' } });
  }, 60_000);
  afterAll(async () => {
    await service?.close();
    await kupo?.close();
  });

  it('gives each of six real tokens its on-chain name, ticker and decimals, and its pools their prices', async () => {
    const { ingestor } = runtimeInternals(service.runtime);
    const { market } = service.runtime;
    const identity = new MarketIdentity({ market, ingestor, kupoUrl: kupo.url });
    try {
      const ada = ingestor.addToken({
        unit: ADA_UNIT,
        ticker: 'ADA',
        name: 'Cardano',
        decimals: 6,
        logoKind: LOGO_NONE,
      });
      const pools = DATUMS.map((d, i) => {
        const token = ingestor.addToken({
          unit: d.ftUnit,
          ticker: `T${i}`,
          name: `T${i}`,
          decimals: 0,
          logoKind: LOGO_NONE,
        });
        return ingestor.addPool(ingestor.ensurePair(ada, token), {
          poolId: `${'cd'.repeat(27)}${i.toString(16).padStart(2, '0')}`,
          group: 'MinswapV2',
          baseReserve: 5e12,
          quoteReserve: 2e13,
          feeBps: 30,
          simulated: false,
        });
      });
      await ingestor.commit();
      identity.start();
      await vi.waitFor(() => expect(market.tokens.get(DATUMS.at(-1)?.ftUnit ?? '')?.decimals).toBe(8), {
        timeout: 20_000,
        interval: 50,
      });
      await identity.drain();
      for (const [i, d] of DATUMS.entries()) {
        const { name, ticker, decimals } = d.expected;
        expect(market.tokens.get(d.ftUnit), ticker).toMatchObject({ name, ticker, decimals });
        const current = tokenStatsSchema.parse(
          await service.getJson(`/api/v1/tokens/current?pool=${pools[i]?.poolId ?? ''}`),
        );
        // 5,000,000 ADA against 2 * 10^13 raw units: whole units of the token's decimals.
        expect(current.current_price).toBeCloseTo((5e6 / 2e13) * 10 ** d.expected.decimals, 12);
      }
      expect(identity.status()).toMatchObject({ cip68: DATUMS.length, kupo: 'on', registryServer: 'off' });
      // Kupo was asked for the reference NFTs (label 100), each once, and their datums.
      const asked = kupo.requests.filter((r) => r.startsWith('/matches/'));
      expect(asked.map((r) => r.replace(/^\/matches\/|\.|\?unspent$/g, '')).sort()).toEqual(
        DATUMS.map((d) => d.unit).sort(),
      );
    } finally {
      await identity.close();
    }
  });

  it('refuses Kupo answers outside the documented shape or bounds, naming the call (the token keeps what it had)', async () => {
    const lookup = kupoReferenceDatum(kupo.url, 2_000);
    const unit = DATUMS[0]?.unit ?? '';
    const signal = new AbortController().signal;
    try {
      kupo.answer = { status: 200, body: JSON.stringify(Array.from({ length: 17 }, () => ({ datum_hash: null }))) };
      await expect(lookup(unit, signal)).rejects.toThrow(/matches/);
      kupo.answer = { status: 200, body: '[{"datum_hash":"zz","created_at":{"slot_no":1}}]' };
      await expect(lookup(unit, signal)).rejects.toThrow(/datum_hash/);
      kupo.answer = { status: 500, body: 'down' };
      await expect(lookup(unit, signal)).rejects.toThrow(/500/);
      kupo.answer = undefined;
      await expect(lookup(`${'ef'.repeat(28)}000643b0`, signal)).resolves.toBeUndefined();
      await expect(lookup(unit, signal)).resolves.toBe(DATUMS[0]?.datum);
    } finally {
      kupo.answer = undefined;
    }
  });
});
