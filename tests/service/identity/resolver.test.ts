import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { IdentityRecord } from '../../../src/service/identity/identity';
import { queryRegistry } from '../../../src/service/identity/registry-server';
import { TokenIdentityResolver, type ReferenceDatumLookup } from '../../../src/service/identity/resolver';
import { cip26ByTicker } from '../../support/cip26-sample';
import { CIP68_DATUMS } from '../../support/cip68-fixtures';
import { ensureDefined } from '../../support/ensure';
import { FakeTokenRegistry } from '../../support/fake-token-registry';

/**
 * The resolver over real data: registry entries of ../shared/data/cip26-sample served by a local metadata server, and
 * real CIP-68 reference datums (tests/fixtures/identity) answered for Kupo. Expected values are the ones written by
 * hand in those fixtures' tests.
 */
const DATUMS = CIP68_DATUMS;

const MIN = '29d222ce763455e3d7a09a665ce554f00ac89d2e99a1a83d267170c64d494e';
const SNEK = '279c909f348e533da5808898f87f9a14bb2c3dfbbacccd631d927a3f534e454b';
const LOOK_ALIKE = `${'ab'.repeat(28)}${Buffer.from('MIN').toString('hex')}`;

describe('the token identity resolver', () => {
  let server: FakeTokenRegistry;
  beforeAll(async () => {
    server = await FakeTokenRegistry.start([cip26ByTicker('MIN'), cip26ByTicker('SNEK')]);
  });
  afterAll(async () => server.close());

  /** A resolver over the fake server and `kupo`, its stored records and logos, and a clock the test moves. */
  function resolver(kupo?: ReferenceDatumLookup) {
    const applied: IdentityRecord[][] = [];
    const logos = new Map<string, Buffer>();
    const clock = { now: 1_800_000_000 };
    const r = new TokenIdentityResolver({
      records: [],
      referenceDatum: kupo,
      registry: {
        lookup: async (units, signal) => (await queryRegistry(server.url, units, { signal })).entries,
        batch: 50,
      },
      apply: async (records, found) => {
        applied.push([...records]);
        for (const [hash, bytes] of found) logos.set(hash, bytes);
      },
      now: () => clock.now,
    });
    return { r, applied, logos, clock };
  }

  it('names registry tokens from the metadata server, off the ingest path, and leaves a look-alike unverified', async () => {
    server.behaviour = {};
    const { r, applied, logos } = resolver();
    const changed: string[][] = [];
    r.onChange((units) => changed.push([...units]));
    // Before any lookup: the asset name, unverified, decimals 0.
    expect(r.identity(MIN)).toMatchObject({ source: 'asset-name', ticker: 'MIN', decimals: 0 });
    r.observe([MIN, SNEK, LOOK_ALIKE]);
    expect(r.status().pending).toBe(3);
    await r.drain();
    expect(server.queries).toContainEqual([MIN, SNEK, LOOK_ALIKE]);
    expect(r.identity(MIN)).toMatchObject({
      source: 'registry',
      name: 'Minswap',
      ticker: 'MIN',
      decimals: 6,
      url: 'https://minswap.org/',
    });
    expect(r.identity(SNEK)).toMatchObject({ source: 'registry', name: 'Snek', ticker: 'SNEK', decimals: 0 });
    expect(r.identity(LOOK_ALIKE)).toMatchObject({ source: 'asset-name', ticker: 'MIN', decimals: 0 });
    // What was learnt was stored before it was served, with the logo's bytes under the hash its record names.
    expect(
      applied
        .flat()
        .map((a) => a.unit)
        .sort(),
    ).toEqual([MIN, SNEK].sort());
    const logo = r.identity(MIN).logo;
    expect(logo).toMatch(/^png:[0-9a-f]{64}$/);
    expect(
      logos
        .get(logo?.slice(4) ?? '')
        ?.subarray(1, 4)
        .toString(),
    ).toBe('PNG');
    expect(changed.flat().sort()).toEqual([MIN, SNEK].sort());
    expect(r.status()).toMatchObject({ known: 2, registry: 2, pending: 0, kupo: 'off', registryServer: 'on' });
  });

  it('asks the registry again only after a day, and retries a failing server with backoff', async () => {
    const { r, clock } = resolver();
    server.behaviour = { status: 503, body: 'down' };
    r.observe([MIN]);
    await r.drain();
    expect(r.identity(MIN).source).toBe('asset-name');
    expect(r.status().lastError).toMatch(/token registry/);
    expect(r.status().pending).toBe(1);
    const asked = server.queries.length;
    await r.drain(); // not due yet: nothing asked
    expect(server.queries.length).toBe(asked);
    server.behaviour = {};
    clock.now += 60; // past the first retry (30 s, jittered to 15-30 s)
    await r.drain();
    expect(r.identity(MIN)).toMatchObject({ source: 'registry', decimals: 6 });
    r.observe([MIN]);
    expect(r.status().pending).toBe(0);
    clock.now += 86_400;
    r.observe([MIN]);
    expect(r.status().pending).toBe(1);
  });

  it('while it runs, asks the registry again as refreshes fall due, and Kupo only for tokens new to it', async () => {
    server.behaviour = {};
    const kupoAsked: string[] = [];
    // A CIP-68 token (label 333) whose reference NFT Kupo does not hold, and MIN.
    const cip68 = ensureDefined(DATUMS[0]).ftUnit;
    const registryAsked: string[][] = [];
    const r = new TokenIdentityResolver({
      records: [],
      referenceDatum: async (unit) => (kupoAsked.push(unit), undefined),
      registry: {
        lookup: async (units, signal) => (
          registryAsked.push([...units]),
          (await queryRegistry(server.url, units, { signal })).entries
        ),
        batch: 50,
      },
      apply: async () => undefined,
      registryRefreshSeconds: 1,
    });
    r.observe([MIN, cip68]);
    r.start();
    try {
      await vi.waitFor(() => expect(registryAsked.length).toBeGreaterThanOrEqual(3), { timeout: 10_000, interval: 50 });
    } finally {
      await r.close();
    }
    expect(registryAsked.every((units) => units.toSorted().join() === [MIN, cip68].toSorted().join())).toBe(true);
    expect(kupoAsked).toHaveLength(1);
  });

  it('reads CIP-68 tokens from their reference NFT through Kupo (six real mainnet datums)', async () => {
    server.behaviour = {};
    const byReference = new Map(DATUMS.map((d) => [d.unit, d.datum]));
    const asked: string[] = [];
    const { r } = resolver(async (referenceUnit) => {
      asked.push(referenceUnit);
      return byReference.get(referenceUnit);
    });
    r.observe(DATUMS.map((d) => d.ftUnit));
    await r.drain();
    expect(asked.sort()).toEqual(DATUMS.map((d) => d.unit).sort());
    for (const { ftUnit, expected } of DATUMS)
      expect(r.identity(ftUnit), expected.ticker).toMatchObject({
        source: 'cip68',
        name: expected.name,
        ticker: expected.ticker,
        decimals: expected.decimals,
      });
    expect(r.status()).toMatchObject({ cip68: DATUMS.length, kupo: 'on' });
    // A token that is not CIP-68 is never asked of Kupo.
    r.observe([MIN]);
    await r.drain();
    expect(asked).toHaveLength(DATUMS.length);
  });
});
