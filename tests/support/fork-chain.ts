import { blake2b } from '@noble/hashes/blake2.js';
import { Encoder, Tag } from 'cbor-x';
import { uniformBigInt } from 'pure-rand/distribution/uniformBigInt';
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import type { RandomGenerator } from 'pure-rand/types/RandomGenerator';
import type { PlutusData } from '../../src/service/chain/plutus';
import { encodePlutus } from './plutus-cbor';
import type { OgmiosWireBlock } from './prise';

/**
 * Random fork trees of blocks shaped like real Ogmios v6 blocks, for the chain source's rollback
 * property (tests/service/chain/rollback-property.test.ts) and its soak run: pools of two real
 * layouts — Minswap V2 (inline datum holding the reserves) and WingRiders V1 (datum by hash in the
 * witness set, treasury and the 3 ADA every pool keeps set aside, unissued LP tokens held by the
 * pool) — created, swapped, deposited into, withdrawn from, zapped and re-output unchanged, several in
 * one block and across branches, among ordinary payment transactions. Pools of one pair on both DEXs
 * and twice on one, and a token/token pair, so Aggregates sum several pools.
 *
 * A `ForkChain` holds the current branch (blocks and each block's pool states after it), grows it
 * with `forward`, and cuts it with `back`; a new branch after a cut gets block and transaction ids of
 * its own, and may create the same pools with other states. Deterministic per seed.
 */

/** Minswap V2's LP policy and WingRiders V1's (the decoders in src/service/chain/dexes cite the sources). */
const MSV2_POLICY = 'f5808c2c990d86da54bfc97d89cee6efa20cd8461616359478d96b4c';
const WR_POLICY = '026a18d04a0c642759bb3d83b12e3344894e5c1c7b2aeb1a2113a570';
const WR_INT_MAX_64 = 9_223_372_036_854_775_807n;
const WR_MIN_LOVELACE = 3_000_000n;

const encoder = new Encoder({ useRecords: false });
const cbor = (value: unknown) => Buffer.from(encoder.encode(value)).toString('hex');
const constr = (fields: unknown[], n = 0) => new Tag(fields, 121 + n);
const asset = (unit: string) => constr([Buffer.from(unit.slice(0, 56), 'hex'), Buffer.from(unit.slice(56), 'hex')]);
const hex = (n: number, bytes: number) => n.toString(16).padStart(bytes * 2, '0');

type Dex = 'MinswapV2' | 'WingRiders';

interface PoolDef {
  readonly dex: Dex;
  /** The pool's LP token name (hex): its pool ID is the DEX's LP policy + this. */
  readonly lp: string;
  /** Units in the DEX's order ('' is ADA). */
  readonly assetA: string;
  readonly assetB: string;
}

interface PoolState {
  readonly a: bigint;
  readonly b: bigint;
  /** LP tokens issued. */
  readonly lp: bigint;
  /** WingRiders' treasury (set aside, not traded). */
  readonly ta: bigint;
  readonly tb: bigint;
}

/** CIP-67 labels as asset-name prefixes: a fungible token (333) and its reference NFT (100). */
const FUNGIBLE_LABEL = '0014df10';
const REFERENCE_LABEL = '000643b0';

/**
 * Five tokens; pools: ADA/T0 twice on Minswap V2 and once on WingRiders, ADA/T1, ADA/T2 on WingRiders, T0/T1, ADA/T3,
 * ADA/T4. T4 is a CIP-68 fungible token: its reference NFT passes through blocks with new metadata (before its pool
 * exists too), sometimes with a datum that is not CIP-68's.
 */
const TOKENS = [
  ...[0, 1, 2, 3].map((i) => `${hex(0xf0 + i, 28)}${Buffer.from(`TOK${i}`).toString('hex')}`),
  `${hex(0xf4, 28)}${FUNGIBLE_LABEL}${Buffer.from('TOK4').toString('hex')}`,
] as [string, string, string, string, string];
const T4_REFERENCE = TOKENS[4].slice(0, 56) + REFERENCE_LABEL + TOKENS[4].slice(64);
const POOLS: readonly PoolDef[] = [
  { dex: 'MinswapV2', lp: hex(1, 32), assetA: '', assetB: TOKENS[0] },
  { dex: 'MinswapV2', lp: hex(2, 32), assetA: '', assetB: TOKENS[0] },
  { dex: 'WingRiders', lp: hex(3, 28), assetA: '', assetB: TOKENS[0] },
  { dex: 'MinswapV2', lp: hex(4, 32), assetA: '', assetB: TOKENS[1] },
  { dex: 'WingRiders', lp: hex(5, 28), assetA: '', assetB: TOKENS[2] },
  { dex: 'MinswapV2', lp: hex(6, 32), assetA: TOKENS[0], assetB: TOKENS[1] },
  { dex: 'MinswapV2', lp: hex(7, 32), assetA: '', assetB: TOKENS[3] },
  { dex: 'MinswapV2', lp: hex(8, 32), assetA: '', assetB: TOKENS[4] },
];

/** The pool IDs of the generator's pools (created or not on a given branch). */
export const FORK_POOL_IDS: readonly string[] = POOLS.map(
  (p) => (p.dex === 'MinswapV2' ? MSV2_POLICY : WR_POLICY) + p.lp,
);
/** The token units the generator's pools hold. */
export const FORK_TOKEN_UNITS: readonly string[] = TOKENS;
/** The pairs (base, quote units) its pools make: ADA first where a pool holds ADA. */
export const FORK_PAIRS: readonly (readonly [string, string])[] = [
  ...new Map(POOLS.map((p) => [`${p.assetA}|${p.assetB}`, [p.assetA, p.assetB] as const])).values(),
];

function minswapV2Output(def: PoolDef, s: PoolState): unknown {
  const datum = cbor(
    constr([
      constr([constr([Buffer.alloc(28, 1)], 1)]),
      asset(def.assetA),
      asset(def.assetB),
      s.lp,
      s.a,
      s.b,
      30n,
      30n,
      constr([], 1),
      constr([], 1),
    ]),
  );
  const value: Record<string, Record<string, bigint>> = {
    ada: { lovelace: 2_000_000n + (def.assetA === '' ? s.a : 0n) },
    [MSV2_POLICY]: { '4d5350': 1n, [def.lp]: 9_000_000_000n },
  };
  for (const [unit, amount] of [
    [def.assetA, s.a],
    [def.assetB, s.b],
  ] as const)
    if (unit !== '') (value[unit.slice(0, 56)] ??= {})[unit.slice(56)] = amount;
  return {
    output: {
      address:
        'addr1z8snz7c4974vzdpxu65ruphl3zjdvtxw8strf2c2tmqnxz2j2c79gy9l76sdg0xwhd7r0c0kna0tycz4y5s6mlenh8pq0xmsha',
      value,
      datum,
    },
    datums: {},
  };
}

function wingRidersOutput(def: PoolDef, s: PoolState): unknown {
  const datum = cbor(
    constr([
      Buffer.alloc(28, 2),
      constr([constr([asset(def.assetA), asset(def.assetB)]), 1_700_000_000_000n, s.ta, s.tb]),
    ]),
  );
  const datumHash = Buffer.from(blake2b(Uint8Array.from(Buffer.from(datum, 'hex')), { dkLen: 32 })).toString('hex');
  const held = WR_INT_MAX_64 - s.lp;
  const value: Record<string, Record<string, bigint>> = {
    ada: { lovelace: def.assetA === '' ? s.a + s.ta + WR_MIN_LOVELACE : 2_000_000n },
    [WR_POLICY]: { '4c': 1n, [def.lp]: held },
  };
  for (const [unit, amount] of [
    [def.assetA, s.a + s.ta],
    [def.assetB, s.b + s.tb],
  ] as const)
    if (unit !== '') (value[unit.slice(0, 56)] ??= {})[unit.slice(56)] = amount;
  return {
    output: { address: 'addr1wxr2a8htmzuhj39y2gq7ftkpxv98y2g67tg8zezthgq4jkg0a4ul4', value, datumHash },
    datums: { [datumHash]: datum },
  };
}

/** A block on the chain and every created pool's state after it. */
interface Entry {
  readonly block: OgmiosWireBlock;
  readonly states: ReadonlyMap<number, PoolState>;
}

export interface ForkPoint {
  readonly slot: number;
  readonly id: string;
}

export class ForkChain {
  readonly start: ForkPoint;
  private entries: Entry[] = [];
  private readonly rng: RandomGenerator;
  /** Counts every block and transaction made, on any branch: ids never repeat. */
  private made = 0;
  /** Reference NFT outputs made (T4's metadata), on any branch. */
  references = 0;

  constructor(seed: number) {
    this.rng = xoroshiro128plus(seed);
    this.start = { slot: 120_000_000, id: hex(seed, 28) + 'ffffffff' };
  }

  /** A random integer in [min, max]. */
  int(min: number, max: number): number {
    return uniformInt(this.rng, min, max);
  }

  private big(min: bigint, max: bigint): bigint {
    return uniformBigInt(this.rng, min, max);
  }

  get length(): number {
    return this.entries.length;
  }

  /** The current branch's blocks, oldest first. */
  get blocks(): OgmiosWireBlock[] {
    return this.entries.map((e) => e.block);
  }

  /** The point of the block `back` blocks below the tip (0: the tip), or the start point. */
  pointBack(back: number): ForkPoint {
    const entry = this.entries[this.entries.length - 1 - back];
    return entry ? { slot: entry.block.slot, id: entry.block.id } : this.start;
  }

  /** Cuts the branch back to the point `back` blocks below the tip (all of it: the start point). */
  back(back: number): ForkPoint {
    const keep = Math.max(0, this.entries.length - back);
    this.entries = this.entries.slice(0, keep);
    return this.pointBack(0);
  }

  /** Makes `count` blocks on the tip of the current branch and returns them. */
  forward(count: number): OgmiosWireBlock[] {
    return Array.from({ length: count }, () => this.next());
  }

  private next(): OgmiosWireBlock {
    const tip = this.entries.at(-1);
    const states = new Map(tip?.states ?? []);
    const transactions: unknown[] = [];
    const updates = this.int(0, 10) < 2 ? 0 : this.int(1, 4);
    for (let u = 0; u < updates; u++) {
      const index = this.int(0, POOLS.length - 1);
      const def = POOLS[index] as PoolDef;
      const state = this.change(states.get(index), def.assetA !== '');
      states.set(index, state);
      const { output, datums } = (
        def.dex === 'MinswapV2' ? minswapV2Output(def, state) : wingRidersOutput(def, state)
      ) as { output: unknown; datums: Record<string, string> };
      transactions.push({
        id: hex(++this.made, 32),
        spends: 'inputs',
        outputs: [{ address: 'addr1qxvk9lv2ht7kptfhar5x9h2p0', value: { ada: { lovelace: 1_500_000n } } }, output],
        datums,
      });
    }
    if (this.int(0, 5) === 0) transactions.push(this.referenceUpdate());
    for (let i = this.int(0, 2); i > 0; i--) {
      transactions.push({
        id: hex(++this.made, 32),
        spends: 'inputs',
        outputs: [
          {
            address: 'addr1qxvk9lv2ht7kptfhar5x9h2p0',
            value: { ada: { lovelace: BigInt(this.int(1_000_000, 9_000_000)) } },
          },
        ],
      });
    }
    const parent = tip?.block ?? { id: this.start.id, slot: this.start.slot, height: 0 };
    const block: OgmiosWireBlock = {
      type: 'praos',
      era: 'babbage',
      id: hex(++this.made, 28) + hex(this.entries.length, 4),
      height: parent.height + 1,
      // Some blocks share a minute (one bucket), others are minutes apart.
      slot: parent.slot + this.int(1, 100),
      ancestor: parent.id,
      transactions,
    };
    this.entries.push({ block, states });
    return block;
  }

  /**
   * A transaction moving T4's reference NFT to an output with new metadata in its inline datum (CIP-68's
   * `Constr 0 [metadata, version, extra]`): a name, ticker and decimals drawn at random, sometimes only some of them;
   * one time in eight a datum that is not CIP-68's (the token keeps what it had).
   */
  private referenceUpdate(): unknown {
    this.references++;
    const version = this.int(0, 99);
    const text = (value: string) => Buffer.from(value).toString('hex');
    const fields = new Map<PlutusData, PlutusData>([[text('name'), text(`Token four v${version}`)]]);
    if (this.int(0, 3) > 0) fields.set(text('ticker'), text(`TF${version}`));
    if (this.int(0, 3) > 0) fields.set(text('decimals'), BigInt(this.int(0, 8)));
    const datum = Buffer.from(
      encodePlutus(
        this.int(0, 7) === 0
          ? { constructor: 3, fields: [BigInt(version)] }
          : { constructor: 0, fields: [fields, 1n, { constructor: 0, fields: [] }] },
      ),
    ).toString('hex');
    return {
      id: hex(++this.made, 32),
      spends: 'inputs',
      outputs: [
        {
          address: 'addr1qxvk9lv2ht7kptfhar5x9h2p0',
          value: { ada: { lovelace: 2_000_000n }, [T4_REFERENCE.slice(0, 56)]: { [T4_REFERENCE.slice(56)]: 1n } },
          datum,
        },
      ],
    };
  }

  /**
   * The pool's next state: created, or swapped, deposited, withdrawn, zapped, or unchanged. Reserves
   * of a pool whose base is a token (decimals 0) stay small enough that a bar's volume, in millionths
   * of a whole base unit, stays below 2^53 (docs/chain.md: beyond it a bar's volume is a float sum).
   */
  private change(s: PoolState | undefined, tokenBase: boolean): PoolState {
    if (!s) {
      const a = tokenBase ? this.big(1_000_000n, 90_000_000n) : this.big(1_000_000_000n, 900_000_000_000n);
      const b = this.big(1_000_000_000n, 90_000_000_000_000n);
      return { a, b, lp: a / 3n + 1_000n, ta: 0n, tb: 0n };
    }
    const kind = this.int(0, 9);
    const k = BigInt(this.int(1, 300));
    if (kind <= 4) {
      // A swap, either way, constant product; WingRiders' treasury takes a share of the fee.
      const fee = this.int(0, 1) === 1 ? this.big(0n, 1_000n) : 0n;
      if (this.int(0, 1) === 0) {
        const dA = (s.a * k) / 1_000n + 1n;
        return { ...s, a: s.a + dA, b: (s.a * s.b) / (s.a + dA) + 1n, ta: s.ta + fee };
      }
      const dB = (s.b * k) / 1_000n + 1n;
      return { ...s, b: s.b + dB, a: (s.a * s.b) / (s.b + dB) + 1n, tb: s.tb + fee };
    }
    if (kind <= 6) {
      // A proportional deposit (k/1,000 of each side and of the shares), or a withdrawal.
      const sign = kind === 5 ? 1n : -1n;
      return {
        ...s,
        a: s.a + sign * ((s.a * k) / 1_000n),
        b: s.b + sign * ((s.b * k) / 1_000n),
        lp: s.lp + sign * ((s.lp * k) / 1_000n),
      };
    }
    if (kind <= 8) {
      // A one-sided zap: only A comes in, shares are minted.
      const dA = (s.a * k) / 1_000n + 1n;
      return { ...s, a: s.a + dA, lp: s.lp + (s.lp * k) / 2_000n + 1n };
    }
    // The pool output again, unchanged (a batch that filled no order).
    return s;
  }
}
