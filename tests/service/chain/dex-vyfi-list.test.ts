import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import type { ChainOutput, ChainTx } from '../../../src/service/chain/block';
import { ChainIngest } from '../../../src/service/chain/chain-ingest';
import { chainDecoders, DECODERS, poolOutputs } from '../../../src/service/chain/dexes';
import { vyFi, vyFiDecoder } from '../../../src/service/chain/dexes/vyfi';
import { BUNDLED_VYFI_POOLS, parseVyFiPools, readVyFiPools } from '../../../src/service/chain/dexes/vyfi-pools';
import { DatumError } from '../../../src/service/chain/plutus';
import { openMarket } from '../../../src/service/open-market';
import { shelleyAddress } from '../../support/addresses';
import {
  fixtureBlock,
  fixtureOutput,
  fixtureTx,
  readChainFixture,
  type FixtureOutput,
} from '../../support/chain-fixtures';
import { ensureDefined } from '../../support/ensure';
import { FakeOgmios } from '../../support/fake-ogmios';
import type { OgmiosWireBlock } from '../../support/prise';
import { createTestService, type TestService } from '../../support/service';

/**
 * VyFi pools recognised by their validator (the payment script hash of the pool's address) in a list
 * of VyFi's pools: the bundled one (cardananium/cquisitor's copy of VyFi's pool list) or an operator's
 * (`--vyfi-pools`). What an output at a listed validator must hold, and what happens when it does not,
 * on the real ADA/VYFI pool output (maestro's 39d10447…#0; tests/fixtures/chain/README.md) altered.
 */
const fixture = readChainFixture('vyfi.json');
const real = (tx: string): FixtureOutput =>
  ensureDefined(
    fixture.outputs.find((o) => o.tx.startsWith(tx)),
    `fixture output ${tx}`,
  );
const ADA_VYFI = real('39d10447');
const ADA_SNEK = real('b3caf96c');
const NFT = 'c285d6d7e61163b7f7a918f28e450e37d55dc684450d87b96750d8db';
const VYFI = '804f5544c1962a40546827cab750a88404dc7108c0f588b72964754f56594649';
const SNEK = '279c909f348e533da5808898f87f9a14bb2c3dfbbacccd631d927a3f534e454b';
/** The payment script hashes of ADA/VYFI's and ADA/SNEK's addresses (dex-vyfi.test.ts checks them against the list). */
const ADA_VYFI_VALIDATOR = '730d04da38ffb7756072340338098c04413e75fedfb5669289e7c7bf';
const ADA_SNEK_VALIDATOR = '232c10966ce4d8e67c2eae17bb57c2cf4854a57509a752fbb3c02bd1';
/** A stake key hash (VyFi's pool addresses share this stake part: cquisitor's `poolStakeKey`). */
const STAKE_KEY = 'b6811a70cfdddcc753a33d5bc895bf9912793cf7e225517fbf1d206b';

/** ADA/VYFI's real output with another address or value (its datum and witness kept). */
function altered(change: { readonly address?: string; readonly value?: Readonly<Record<string, string>> }): {
  output: ChainOutput;
  tx: ChainTx;
} {
  const copy: FixtureOutput = { ...ADA_VYFI, ...change };
  return { output: fixtureOutput(copy), tx: fixtureTx(copy) };
}

/** The DatumError `decoder` throws on an output (and that poolOutputs reports it, undecoded). */
function datumError(decoder: typeof vyFi, { output, tx }: { output: ChainOutput; tx: ChainTx }): string {
  expect(decoder.isPool(output)).toBe(true);
  let error: unknown;
  try {
    decoder.decode(output, tx);
  } catch (caught) {
    error = caught;
  }
  expect(error).toBeInstanceOf(DatumError);
  const message = (error as Error).message;
  expect(poolOutputs(tx, [decoder])).toEqual([{ index: output.index, group: 'VyFi', error: message }]);
  return message;
}

describe('the bundled VyFi pool list', () => {
  it("is cquisitor's 307 pools, one per validator, and names its repository, path, commit, licence and date", () => {
    const file = JSON.parse(
      readFileSync(new URL('../../../src/service/chain/dexes/vyfi-pools.json', import.meta.url), 'utf8'),
    ) as { source: Record<string, string> };
    expect(file.source).toMatchObject({
      repository: 'cardananium/cquisitor',
      path: 'src/utils/protocols/vyfinance/pools.generated.ts',
      commit: '0ad8f0f3a3cada8fb0f7cefde4bf526b0899e8ab',
      licence: 'Apache-2.0',
      extracted: expect.stringMatching(/^\d{4}-\d\d-\d\d$/),
    });
    const { pools } = BUNDLED_VYFI_POOLS;
    expect(pools).toHaveLength(307);
    expect(new Set(pools.map((p) => p.validator)).size).toBe(307);
    // ADA is always A when a pool has it (VyFi's order); the rest are token/token pools such as VYFI/xVYFI.
    expect(pools.filter((p) => p.assetA === '')).toHaveLength(241);
    expect(pools.filter((p) => p.assetB === '')).toHaveLength(0);
    expect(BUNDLED_VYFI_POOLS.origin).toMatch(
      /^the bundled list \(cardananium\/cquisitor .* at 0ad8f0f3, extracted \d{4}-\d\d-\d\d\)$/,
    );
  });

  it("decodes a pool of every entry at its validator's address, whatever the stake part, with the entry's pair", () => {
    // Datum Constr 0 [barFeeA 1,000, barFeeB 2,000, totalLpTokens 123,456].
    const datum = 'd8799f1903e81907d01a0001e240ff';
    for (const [i, pool] of BUNDLED_VYFI_POOLS.pools.entries()) {
      const nft = i.toString(16).padStart(56, 'e');
      const assets = new Map<string, bigint>([[nft, 1n]]);
      if (pool.assetA !== '') assets.set(pool.assetA, 5_000_000_000n);
      assets.set(pool.assetB, 7_000_000n);
      const lovelace = pool.assetA === '' ? 5_000_000_000n : 2_000_000n;
      for (const where of [
        shelleyAddress(0x11, pool.validator + STAKE_KEY),
        shelleyAddress(0x31, pool.validator + pool.validator),
        shelleyAddress(0x71, pool.validator),
      ]) {
        const output: ChainOutput = { index: 0, address: where, lovelace, assets, datum };
        expect(vyFi.isPool(output), where).toBe(true);
        expect(poolOutputs({ id: 'ab'.repeat(32), outputs: [output], datums: new Map() })).toEqual([
          {
            index: 0,
            state: {
              group: 'VyFi',
              poolId: nft,
              assetA: pool.assetA,
              assetB: pool.assetB,
              // A less its Bar fee (and, for ADA, the 2 ADA kept); B less its Bar fee.
              reserveA: pool.assetA === '' ? 5_000_000_000n - 1_000n - 2_000_000n : 5_000_000_000n - 1_000n,
              reserveB: 7_000_000n - 2_000n,
              liquidity: 123_456n,
              feeBps: 30,
            },
          },
        ]);
      }
    }
  });
});

describe('an output at a listed validator that is not the listed pool', () => {
  it('is a DatumError without its NFT, with two of it, or with another token of quantity 1 beside it', () => {
    const { [NFT]: _nft, ...withoutNft } = ADA_VYFI.value;
    expect(datumError(vyFi, altered({ value: withoutNft }))).toBe(
      'VyFi pool without its pool NFT (no token of quantity 1 beside its two assets)',
    );
    expect(datumError(vyFi, altered({ value: { ...ADA_VYFI.value, [NFT]: '2' } }))).toMatch(
      /^VyFi pool holds 2 of c285d6d7\w+, neither of the assets its list gives it/,
    );
    const stray = `${'ab'.repeat(28)}4e4654`;
    expect(datumError(vyFi, altered({ value: { ...ADA_VYFI.value, [stray]: '1' } }))).toBe(
      `VyFi pool NFT ambiguous: 2 tokens of quantity 1 beside its two assets (${NFT}, ${stray})`,
    );
    // What anyone may send to the pool's address: a few tokens and no datum.
    const plain: ChainOutput = {
      index: 0,
      address: ADA_VYFI.address,
      lovelace: 2_000_000n,
      assets: new Map([[VYFI, 5n]]),
    };
    expect(datumError(vyFi, { output: plain, tx: { id: ADA_VYFI.tx, outputs: [plain], datums: new Map() } })).toMatch(
      /without its pool NFT/,
    );
  });

  it("is a DatumError when it holds another pair than the list's, never a state of the wrong pair", () => {
    // A list that gives ADA/VYFI's validator the pair ADA/SNEK: the output's 3,807,417,460,645 VYFI are no asset of it.
    const wrongPair = vyFiDecoder([{ validator: ADA_VYFI_VALIDATOR, assetA: '', assetB: SNEK, feeBps: 30 }]);
    expect(datumError(wrongPair, altered({}))).toBe(
      `VyFi pool holds 3807417460645 of ${VYFI}, neither of the assets its list gives it (ADA, ${SNEK})`,
    );
    // The list's token absent while LP tokens are out (the datum's 3,180,143,242,084): a pool with liquidity holds both sides.
    const { [VYFI]: _vyfi, ...adaOnly } = ADA_VYFI.value;
    expect(datumError(wrongPair, altered({ value: adaOnly }))).toBe(
      `VyFi pool with LP tokens out holds none of its listed asset ${SNEK}`,
    );
    expect(datumError(vyFi, altered({ value: adaOnly }))).toBe(
      `VyFi pool with LP tokens out holds none of its listed asset ${VYFI}`,
    );
  });

  it('is counted undecodable by the chain source and creates no pool; the rest of its block is applied', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vyfi-list-'));
    const handle = await openMarket(dir, 'test');
    try {
      const ingest = await ChainIngest.open(handle.ingestor, handle.store.market);
      const { [NFT]: _nft, ...withoutNft } = ADA_VYFI.value;
      const broken = fixtureOutput({ ...ADA_VYFI, value: withoutNft });
      const good = { ...fixtureOutput(ADA_SNEK), index: 1 };
      const datums = new Map([...fixtureTx(ADA_VYFI).datums, ...fixtureTx(ADA_SNEK).datums]);
      const report = await ingest.applyBlock({
        slot: 160_000_000,
        id: '01'.repeat(32),
        height: 1,
        transactions: [{ id: ADA_VYFI.tx, outputs: [broken, good], datums }],
      });
      expect(report).toMatchObject({ undecodable: 1, created: 1 });
      expect(ingest.undecodableOutputs.get('VyFi')).toBe(1);
      const vyFiPools = [...handle.ingestor.market.pools.values()]
        .filter((p) => p.group === 'VyFi')
        .map((p) => p.poolId);
      expect(vyFiPools).toEqual(['96c31772282e6ae5c629120471c5bbcdef538226b31b97d74c50ca3c']);
    } finally {
      await handle.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('an output at an address that is not a listed validator', () => {
  it("is not taken, though it holds the pool's NFT, pair and datum", () => {
    const elsewhere = [
      shelleyAddress(0x01, STAKE_KEY + STAKE_KEY), // paying to a key
      shelleyAddress(0x71, 'e628bfd68c07a7a38fcd7d8df650812a9dfdbee54b1ed4c25c87ffbf'), // another script (Spectrum's V1 pool)
      shelleyAddress(0x71, `${ADA_VYFI_VALIDATOR.slice(0, 54)}be`), // a script one byte away from ADA/VYFI's
      shelleyAddress(0x70, ADA_VYFI_VALIDATOR, 'addr_test'), // ADA/VYFI's validator on a testnet
    ];
    for (const where of elsewhere) {
      const { output, tx } = altered({ address: where });
      expect(vyFi.isPool(output), where).toBe(false);
      expect(poolOutputs(tx), where).toEqual([]);
    }
  });
});

describe("an operator's list (--vyfi-pools / VYFI_POOLS)", () => {
  const dir = mkdtempSync(join(tmpdir(), 'vyfi-pools-'));
  let service: TestService | undefined;
  let fake: FakeOgmios | undefined;
  afterAll(async () => {
    await service?.close();
    await fake?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };
  const entry = { validator: ADA_SNEK_VALIDATOR, assetA: '', assetB: SNEK };

  it('is read in the bundled shape: units in any case, the fee optional (0.3 %), a source note allowed', () => {
    const path = file(
      'good.json',
      JSON.stringify({
        source: { note: 'from api.vyfi.io/lp today' },
        pools: [
          { ...entry, validator: ADA_SNEK_VALIDATOR.toUpperCase() },
          { validator: ADA_VYFI_VALIDATOR, assetA: '', assetB: VYFI, feeBps: 25 },
        ],
      }),
    );
    expect(readVyFiPools(path)).toEqual({
      pools: [
        { ...entry, feeBps: 30 },
        { validator: ADA_VYFI_VALIDATOR, assetA: '', assetB: VYFI, feeBps: 25 },
      ],
      origin: path,
    });
  });

  it('is refused with the file, the entry and what is wrong with it', () => {
    const cases: [string, string, string][] = [
      ['not JSON', '{"pools": [', 'not JSON'],
      ['no pools', '{"pools": []}', 'pools: must list at least one pool'],
      ['pools not a list', '{"pools": {}}', 'pools: must be a list of pools'],
      [
        'a short validator',
        JSON.stringify({ pools: [{ ...entry, validator: 'ab12' }] }),
        'pools[0].validator: must be a script hash (56 hex digits)',
      ],
      [
        'an asset that is no unit',
        JSON.stringify({ pools: [entry, { ...entry, validator: ADA_VYFI_VALIDATOR, assetB: 'SNEK' }] }),
        "pools[1].assetB: must be '' (ADA) or a policy id (56 hex digits) and an asset name (0 to 32 bytes in hex)",
      ],
      [
        'a missing asset',
        JSON.stringify({ pools: [{ validator: ADA_SNEK_VALIDATOR, assetA: '' }] }),
        'pools[0].assetB: must be a string',
      ],
      ['a misspelt field', JSON.stringify({ pools: [{ ...entry, fee: 30 }] }), 'pools[0]: Unrecognized key: "fee"'],
      [
        'an entry that is no object',
        JSON.stringify({ pools: [entry, ADA_VYFI_VALIDATOR] }),
        'pools[1]: must be an object { "validator", "assetA", "assetB", "feeBps"? }',
      ],
      [
        'a fee out of range',
        JSON.stringify({ pools: [{ ...entry, feeBps: 20_000 }] }),
        'pools[0].feeBps: must be at most 10000',
      ],
      [
        'one validator twice',
        JSON.stringify({ pools: [entry, { ...entry, assetB: VYFI }] }),
        `pools[1].validator: ${ADA_SNEK_VALIDATOR} is pools[0]'s already (one pool a validator)`,
      ],
      [
        'one asset twice',
        JSON.stringify({ pools: [{ ...entry, assetA: SNEK }] }),
        'pools[0]: assetA and assetB are the same asset',
      ],
    ];
    for (const [what, text, message] of cases) {
      const path = file(`${what.replace(/\W/g, '-')}.json`, text);
      expect(() => readVyFiPools(path), what).toThrow(`${path}: ${message}`);
    }
    const missing = join(dir, 'missing.json');
    expect(() => readVyFiPools(missing)).toThrow(`${missing}: cannot be read (ENOENT`);
    expect(() => parseVyFiPools([entry])).toThrow('the list: must be an object { "source"?, "pools": [...] }');
  });

  it('replaces the bundled list in the decoders, and nothing else', () => {
    const decoders = chainDecoders([{ ...entry, feeBps: 30 }]);
    expect(decoders.map((d) => d.group)).toEqual(DECODERS.map((d) => d.group));
    expect(decoders.filter((d, i) => d !== DECODERS[i]).map((d) => d.group)).toEqual(['VyFi']);
    expect(poolOutputs(fixtureTx(ADA_VYFI), decoders)).toEqual([]);
    expect(poolOutputs(fixtureTx(ADA_SNEK), decoders)).toEqual(poolOutputs(fixtureTx(ADA_SNEK)));
  });

  it('is what a chain-fed runtime decodes with: the pools the list lacks are not taken', async () => {
    const anchor: OgmiosWireBlock = {
      type: 'praos',
      era: 'babbage',
      id: 'ee'.repeat(32),
      height: 0,
      slot: 160_000_000,
      ancestor: 'genesis',
      transactions: [],
    };
    const chain = [anchor, fixtureBlock(anchor, [ADA_VYFI, ADA_SNEK])];
    fake = await FakeOgmios.start(chain);
    const lines: string[] = [];
    const path = file('snek-only.json', JSON.stringify({ pools: [entry] }));
    service = await createTestService({
      env: { SOURCE: 'chain', OGMIOS_URL: fake.url, CHAIN_START: `${anchor.slot}.${anchor.id}`, VYFI_POOLS: path },
      log: (line) => lines.push(line),
    });
    service.runtime.startLive();
    const health = async () =>
      (await (await ensureDefined(service).request('/healthz', { key: null })).json()) as {
        chain: { tipSlot: number; undecodable: number };
      };
    await vi.waitUntil(async () => (await health()).chain.tipSlot === chain.at(-1)?.slot, { timeout: 20_000 });
    expect(lines).toContain(`chain: VyFi pools: 1 from ${path}`);
    const listed = (await service.getJson('/api/v1/symbol_info?group=VyFi')) as { ticker: string[] };
    // ADA/SNEK's NFT only: ADA/VYFI's output is not at a validator of this list (not taken, not undecodable).
    expect(listed.ticker).toEqual(['96c31772282e6ae5c629120471c5bbcdef538226b31b97d74c50ca3c']);
    expect((await health()).chain.undecodable).toBe(0);
  }, 30_000);
});
