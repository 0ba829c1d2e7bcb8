import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ADA_UNIT } from '../../../src/shared/id-rules';
import { parseServiceConfig } from '../../../src/service/config';
import { importRegistry } from '../../../src/service/importers/registry';
import { isPng } from '../../../src/service/logos/identicon';
import { LOGO_NONE, LOGO_STORED, poolPrice } from '../../../src/service/market/model';
import { createServiceRuntime } from '../../../src/service/runtime';
import { openMarket, type MarketHandle } from '../../../src/service/open-market';
import {
  FIXTURE_PNG,
  REGISTRY_BAD_FILES,
  REGISTRY_UNITS,
  writeMapping,
  writeRegistryFixtures,
} from '../../support/registry-fixtures';

let root: string;
let dataDir: string;
let registryDir: string;
const handles: MarketHandle[] = [];

async function open(): Promise<MarketHandle> {
  const handle = await openMarket(dataDir, 'test');
  handles.push(handle);
  return handle;
}

/** Every stored token with its stored logo (hex), through the store's interface. */
async function tokenRows(handle: MarketHandle): Promise<unknown[]> {
  const { tokens } = await handle.store.market.load();
  return Promise.all(
    tokens.map(async (t) => ({ ...t, logo: (await handle.store.market.logo(t.id))?.toString('hex') ?? null })),
  );
}

beforeEach(async () => {
  root = mkdtempSync(join(tmpdir(), 'registry-import-'));
  dataDir = join(root, 'data');
  registryDir = join(root, 'registry');
});

afterEach(async () => {
  for (const handle of handles.splice(0)) await handle.close();
  rmSync(root, { recursive: true, force: true });
});

describe('registry importer', () => {
  it('imports the valid mappings and reports every bad file by name with its reason', async () => {
    writeRegistryFixtures(registryDir);
    const handle = await open();
    const report = await importRegistry(handle, registryDir);

    expect(report.files).toBe(8);
    expect(report.added.sort()).toEqual(Object.values(REGISTRY_UNITS).sort());
    expect(report.updated).toEqual([]);
    expect(report.logosStored).toBe(2);
    expect(report.skipped.map((s) => s.file).sort()).toEqual(Object.keys(REGISTRY_BAD_FILES).sort());
    for (const [file, reason] of Object.entries(REGISTRY_BAD_FILES)) {
      expect(report.skipped.find((s) => s.file === file)?.reason).toContain(reason);
    }

    const token = (unit: string) => handle.market.tokens.get(unit);
    expect(token(REGISTRY_UNITS.withLogo)).toMatchObject({
      ticker: 'TKA',
      name: 'Token A',
      decimals: 6,
      logoKind: LOGO_STORED,
    });
    expect(token(REGISTRY_UNITS.withoutLogo)).toMatchObject({
      ticker: 'TOKB',
      name: 'Token B',
      decimals: 0,
      logoKind: LOGO_NONE,
    });
    expect(token(REGISTRY_UNITS.barePolicy)).toMatchObject({ ticker: 'Bare Policy', name: 'Bare Policy', decimals: 3 });
    expect(token(REGISTRY_UNITS.cip68)).toMatchObject({
      ticker: 'CIPSIX',
      name: 'CIP-68 Six',
      decimals: 6,
      logoKind: LOGO_STORED,
    });
    const withLogo = token(REGISTRY_UNITS.withLogo);
    expect(withLogo && (await handle.store.market.logo(withLogo.id))?.equals(FIXTURE_PNG)).toBe(true);
  });

  it("keeps each imported entry as the token's registry record, durably; a token with on-chain metadata keeps its name", async () => {
    writeRegistryFixtures(registryDir);
    const first = await open();
    // What the token's CIP-68 reference datum said, stored before the import.
    first.ingestor.setIdentity({ unit: REGISTRY_UNITS.cip68, source: 'cip68', name: 'On Chain', ticker: 'OC', at: 1 });
    await first.ingestor.commit();
    await importRegistry(first, registryDir, 1_718_000_000);
    await first.close();
    const handle = await open();
    const records = (await handle.store.market.load()).identities ?? [];
    expect(records.filter((r) => r.source === 'registry').map((r) => r.unit)).toEqual(
      Object.values(REGISTRY_UNITS).sort(),
    );
    expect(records.find((r) => r.unit === REGISTRY_UNITS.withLogo)).toEqual({
      description: 'Token A for tests',
      unit: REGISTRY_UNITS.withLogo,
      source: 'registry',
      name: 'Token A',
      ticker: 'TKA',
      decimals: 6,
      logo: expect.stringMatching(/^png:[0-9a-f]{64}$/),
      at: 1_718_000_000,
    });
    expect(
      handle.market
        .identityRecords(REGISTRY_UNITS.cip68)
        .map((r) => r.source)
        .sort(),
    ).toEqual(['cip68', 'registry']);
    expect(handle.market.tokens.get(REGISTRY_UNITS.cip68)).toMatchObject({
      name: 'On Chain',
      ticker: 'OC',
      decimals: 0,
    });
  });

  it('reports a logo that is not a PNG and keeps the rest of that token', async () => {
    writeRegistryFixtures(registryDir);
    const handle = await open();
    const report = await importRegistry(handle, registryDir);

    expect(report.logosRejected).toEqual([
      { file: `${REGISTRY_UNITS.jpegLogo}.json`, reason: expect.stringContaining('not a PNG') },
    ]);
    expect(report.logosRejected[0]?.reason).toContain('JPEG');
    expect(handle.market.tokens.get(REGISTRY_UNITS.jpegLogo)).toMatchObject({
      ticker: 'JPG',
      name: 'Jpeg Token',
      decimals: 2,
      logoKind: LOGO_NONE,
    });
  });

  it('stores what it imported durably (one transaction, readable after reopening)', async () => {
    writeRegistryFixtures(registryDir);
    const first = await open();
    await importRegistry(first, registryDir);
    await first.close();
    const again = await open();
    expect(again.market.tokens.get(REGISTRY_UNITS.withLogo)?.ticker).toBe('TKA');
    expect(again.market.tokens.size).toBe(5);
  });

  it('changes nothing when run again with the same files', async () => {
    writeRegistryFixtures(registryDir);
    const handle = await open();
    await importRegistry(handle, registryDir);
    const before = await tokenRows(handle);
    const version = handle.market.version;

    const report = await importRegistry(handle, registryDir);
    expect(report.added).toEqual([]);
    expect(report.updated).toEqual([]);
    expect(report.logosStored).toBe(0);
    expect(report.unchanged).toBe(5);
    expect(await tokenRows(handle)).toEqual(before);
    expect(handle.market.version).toBe(version);
  });

  it('updates the ticker, name, decimals and logo of a known token that is in no pool', async () => {
    writeMapping(registryDir, { subject: REGISTRY_UNITS.withoutLogo, name: 'Token B', decimals: 0 });
    const handle = await open();
    await importRegistry(handle, registryDir);
    writeMapping(registryDir, {
      subject: REGISTRY_UNITS.withoutLogo,
      name: 'Token Bee',
      ticker: 'BEE',
      decimals: 4,
      logo: FIXTURE_PNG,
    });

    const report = await importRegistry(handle, registryDir);
    expect(report.updated).toEqual([REGISTRY_UNITS.withoutLogo]);
    expect(report.logosStored).toBe(1);
    expect(handle.market.tokens.get(REGISTRY_UNITS.withoutLogo)).toMatchObject({
      ticker: 'BEE',
      name: 'Token Bee',
      decimals: 4,
      logoKind: LOGO_STORED,
    });
  });

  it("takes the registry's decimals for a token already in a pool: its prices read in them at once, nothing stored rewritten", async () => {
    writeMapping(registryDir, { subject: REGISTRY_UNITS.withLogo, name: 'Token A', ticker: 'TKA', decimals: 6 });
    const handle = await open();
    await importRegistry(handle, registryDir);
    const { ingestor, market } = handle;
    const ada = ingestor.addToken({ unit: ADA_UNIT, ticker: 'ADA', name: 'Cardano', decimals: 6, logoKind: LOGO_NONE });
    const tokenA = market.tokens.get(REGISTRY_UNITS.withLogo);
    if (!tokenA) throw new Error('token A was not imported');
    const pair = ingestor.ensurePair(ada, tokenA);
    // 1,000,000 ADA against 5 * 10^12 raw units of token A.
    const pool = ingestor.addPool(pair, {
      poolId: 'abcd01',
      group: 'MinswapV2',
      baseReserve: 1e12,
      quoteReserve: 5e12,
      feeBps: 30,
      simulated: false,
    });
    await ingestor.commit();
    expect(poolPrice(pool)).toBeCloseTo(0.2, 12); // 5,000,000 whole A
    const stored = await handle.store.market.load();

    writeMapping(registryDir, {
      subject: REGISTRY_UNITS.withLogo,
      name: 'Token A (renamed)',
      ticker: 'TKA2',
      decimals: 8,
    });
    const report = await importRegistry(handle, registryDir);
    expect(report.updated).toEqual([REGISTRY_UNITS.withLogo]);
    expect(tokenA).toMatchObject({ ticker: 'TKA2', name: 'Token A (renamed)', decimals: 8 });
    expect(poolPrice(pool)).toBeCloseTo(20, 10); // 50,000 whole A
    // The reserves stay as stored (raw units); only the token's row changed.
    const after = await handle.store.market.load();
    expect(after.pools).toEqual(stored.pools);
    expect(after.tokens.find((t) => t.unit === REGISTRY_UNITS.withLogo)).toMatchObject({ decimals: 8 });
    // A re-run changes nothing.
    const rerun = await importRegistry(handle, registryDir);
    expect(rerun.updated).toEqual([]);
  });

  it('skips a second file with a subject already imported in the same run', async () => {
    writeMapping(registryDir, { subject: REGISTRY_UNITS.withLogo, name: 'First', ticker: 'ONE' }, 'a.json');
    writeMapping(
      registryDir,
      { subject: REGISTRY_UNITS.withLogo.toUpperCase(), name: 'Second', ticker: 'TWO' },
      'b.json',
    );
    const handle = await open();
    const report = await importRegistry(handle, registryDir);
    expect(report.added).toEqual([REGISTRY_UNITS.withLogo]);
    expect(report.skipped).toEqual([
      { file: 'b.json', reason: expect.stringContaining('already imported from a.json') },
    ]);
    expect(handle.market.tokens.get(REGISTRY_UNITS.withLogo)?.ticker).toBe('ONE');
  });

  it('rejects wrong types and out-of-range decimals with a reason naming the field', async () => {
    writeMapping(registryDir, { subject: REGISTRY_UNITS.withLogo, name: 'Wide', decimals: 20 }, 'wide.json');
    writeFileSync(join(registryDir, 'array.json'), '[]');
    writeFileSync(
      join(registryDir, 'types.json'),
      JSON.stringify({ subject: REGISTRY_UNITS.withoutLogo, name: { value: 'T' }, ticker: { value: 7 } }),
    );
    const report = await importRegistry(await open(), registryDir);
    const reason = (file: string) => report.skipped.find((s) => s.file === file)?.reason;
    expect(reason('wide.json')).toContain('decimals.value must be at most 19');
    expect(reason('array.json')).toContain('expected a JSON object');
    expect(reason('types.json')).toContain('ticker.value must be a string');
    expect(report.added).toEqual([]);
  });
});

// The real registry sample lives outside the repository (it may not be committed, and CI may not have
// it): these tests run only where the directory exists.
const SAMPLE_DIR = '/work/shared/data/cip26-sample';
const VOL_FILE = '8d94085182fb206c28850f194defe748e455a104d5ff7466d90f537c566f6c756d65.json';
const WELL_KNOWN = {
  SNEK: ['279c909f348e533da5808898f87f9a14bb2c3dfbbacccd631d927a3f534e454b', 0],
  MIN: ['29d222ce763455e3d7a09a665ce554f00ac89d2e99a1a83d267170c64d494e', 6],
  INDY: ['533bb94a8850ee3ccbe483106489399112b74c905342cb1792a797a0494e4459', 6],
  HOSKY: ['a0028f350aaabe0545fdcb56b039bfb08e4bb4d8c4d7c3c7d481c235484f534b59', 0],
  iUSD: ['f66d78b4a3cb3d37afa0ec36461e51ecbde00f26c8f0a68f94b6988069555344', 6],
  DJED: ['8db269c3ec630e06ae29f74bc39edd1f87c819f1056206e879a1cd61446a65644d6963726f555344', 6],
  WMT: ['1d7f33bd23d85e1a25d87d86fac4f199c3197a2f7afeb662a0f34e1e776f726c646d6f62696c65746f6b656e', 6],
  AGIX: ['f43a62fdc3965df486de8a0d32fe800963589c41b38946602a0dc53541474958', 8],
  SUNDAE: ['9a9693a9a37912a5097918f97918d15240c92ab729a0b7c4aa144d7753554e444145', 6],
  WRT: ['c0ee29a85b13209423b10447d3c2e6a50641a15c57770e27cb9d507357696e67526964657273', 6],
} as const;

describe.skipIf(!existsSync(SAMPLE_DIR))('registry importer on the real CIP-26 sample', () => {
  it('imports every valid mapping, keeps the real tickers and reports the JPEG logo of VOL', async () => {
    const handle = await open();
    const report = await importRegistry(handle, SAMPLE_DIR);

    expect(report.files).toBe(65);
    expect(report.added.length + report.skipped.length).toBe(65);
    expect(report.skipped).toEqual([]);
    expect(report.logosRejected).toEqual([
      { file: VOL_FILE, reason: expect.stringContaining('VOL: logo is not a PNG') },
    ]);
    expect(
      handle.market.tokens.get('8d94085182fb206c28850f194defe748e455a104d5ff7466d90f537c566f6c756d65'),
    ).toMatchObject({
      ticker: 'VOL',
      logoKind: LOGO_NONE,
    });
    for (const [ticker, [unit, decimals]] of Object.entries(WELL_KNOWN)) {
      const token = handle.market.tokens.get(unit);
      expect(token, ticker).toMatchObject({ ticker, decimals });
      const png = token && (await handle.store.market.logo(token.id));
      expect(png && isPng(png), `${ticker} logo`).toBe(true);
    }
    // Tokens without a ticker fall back to their decoded asset name.
    expect(
      handle.market.tokens.get('ae682843a303866b7eed51d672156f5cdbf94aa61079d4dfaaafc29544454d4f4352414359')?.ticker,
    ).toBe('DEMOCRACY');

    const rerun = await importRegistry(handle, SAMPLE_DIR);
    expect(rerun.added).toEqual([]);
    expect(rerun.updated).toEqual([]);
    expect(rerun.unchanged).toBe(65);
  });

  it('updates the tokens of a market the service created, without decimals conflicts', async () => {
    const config = parseServiceConfig({ 'data-dir': dataDir, pools: '40', days: '0' }, {});
    const runtime = await createServiceRuntime(config, { nowMs: () => 1_718_000_000_000 });
    const known = runtime.market.tokens.size;
    await runtime.close();

    const handle = await open();
    const report = await importRegistry(handle, SAMPLE_DIR);
    expect(report.added.length + report.updated.length + report.unchanged).toBe(65);
    expect(handle.market.tokens.size).toBe(known + report.added.length);
    const snek = handle.market.tokens.get(WELL_KNOWN.SNEK[0]);
    expect(snek).toMatchObject({ ticker: 'SNEK', decimals: 0, logoKind: LOGO_STORED });
  });
});
