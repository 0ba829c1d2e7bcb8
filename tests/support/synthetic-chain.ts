import { Encoder, Tag } from 'cbor-x';
import type { OgmiosWireBlock } from './prise';

/**
 * Blocks shaped like real Ogmios v6 blocks, for tests and the chain benchmark: Minswap V2 pool outputs
 * (the validity token, the pool's LP token, an inline datum in Minswap V2's layout) among ordinary
 * payment outputs, each block linked to the one before by `ancestor`. Deterministic: the same calls
 * give the same chain. The pools trade constant-product swaps, ADA in and the token out.
 */

/** Minswap V2's LP policy (src/service/chain/dexes/minswap-v2.ts cites the source). */
const LP_POLICY = 'f5808c2c990d86da54bfc97d89cee6efa20cd8461616359478d96b4c';
const encoder = new Encoder({ useRecords: false });
const hex = (n: number, bytes: number) => n.toString(16).padStart(bytes * 2, '0');

export interface SyntheticPool {
  /** The pool's LP token name (hex): its pool ID is LP_POLICY + this. */
  readonly lp: string;
  /** The token's unit (policy + name). */
  readonly token: string;
  /** ADA reserve (lovelace) and token reserve. */
  a: bigint;
  b: bigint;
  readonly liquidity: bigint;
}

/** A Minswap V2 pool datum: Constr 0 [stake credential, asset A (ADA), asset B, total liquidity, reserve A, reserve B, fee A, fee B, none, false]. */
function poolDatum(pool: SyntheticPool): string {
  const c = (fields: unknown[], n = 0) => new Tag(fields, 121 + n);
  const asset = (unit: string) => c([Buffer.from(unit.slice(0, 56), 'hex'), Buffer.from(unit.slice(56), 'hex')]);
  const datum = c([
    c([c([Buffer.alloc(28, 1)], 1)]),
    asset(''),
    asset(pool.token),
    pool.liquidity,
    pool.a,
    pool.b,
    30n,
    30n,
    c([], 1),
    c([], 1),
  ]);
  return Buffer.from(encoder.encode(datum)).toString('hex');
}

/** `count` pools with distinct tokens and LP tokens, starting at `first`. */
export function syntheticPools(count: number, first = 1): SyntheticPool[] {
  return Array.from({ length: count }, (_, i) => ({
    lp: hex(first + i, 32),
    token: `${hex(first + i, 28)}544f4b`,
    a: 50_000_000_000n + BigInt(i) * 1_000_000n,
    b: 1_000_000_000_000n,
    liquidity: 7_000_000_000n,
  }));
}

/** The pool ID (Minswap V2's LP token unit) of a synthetic pool. */
export function syntheticPoolId(pool: SyntheticPool): string {
  return `${LP_POLICY}${pool.lp}`;
}

export interface ChainCursor {
  slot: number;
  id: string;
  height: number;
}

/**
 * The next block after `cursor` (which it advances): `updates` pool outputs (pools picked in turn, or
 * spread pseudo-randomly over `pools`), each a swap of 1/500 of the pool's ADA, and `noise` payment
 * transactions. `fork` changes the block ids, for a chain that branches from the same point.
 */
export function nextSyntheticBlock(
  cursor: ChainCursor,
  pools: readonly SyntheticPool[],
  options: { updates: number; noise?: number; sequential?: boolean; fork?: number; slotStep?: number },
): OgmiosWireBlock {
  const height = cursor.height + 1;
  const slot = cursor.slot + (options.slotStep ?? 20);
  const tag = options.fork ?? 0;
  const transactions: unknown[] = [];
  for (let i = 0; i < options.updates; i++) {
    const pool = pools[options.sequential ? i % pools.length : (height * 7919 + i * 104729) % pools.length];
    if (!pool) continue;
    // A swap: ADA in, the token out, constant product.
    const dA = pool.a / 500n + BigInt(i);
    pool.b = (pool.a * pool.b) / (pool.a + dA);
    pool.a += dA;
    transactions.push({
      id: hex(height * 1000 + i, 28) + hex(tag, 4),
      spends: 'inputs',
      outputs: [
        {
          address: 'addr1z84q0denmyep98ph3tmzwsmw0',
          value: {
            ada: { lovelace: pool.a + 2_000_000n },
            [LP_POLICY]: { '4d5350': 1n, [pool.lp]: 9_000_000_000n },
            [pool.token.slice(0, 56)]: { [pool.token.slice(56)]: pool.b },
          },
          datum: poolDatum(pool),
        },
        { address: 'addr1qxvk9lv2ht7kptfhar5x9h2p0', value: { ada: { lovelace: 5_000_000n } } },
      ],
    });
  }
  for (let i = 0; i < (options.noise ?? 0); i++) {
    transactions.push({
      id: hex(height * 1000 + 500 + i, 28) + hex(tag, 4),
      spends: 'inputs',
      outputs: [
        {
          address: 'addr1qxvk9lv2ht7kptfhar5x9h2p0',
          value: { ada: { lovelace: 1_000_000n }, [hex(7, 28)]: { '41': 5n } },
        },
      ],
    });
  }
  const block: OgmiosWireBlock = {
    type: 'praos',
    era: 'babbage',
    id: hex(height, 28) + hex(tag, 4),
    height,
    slot,
    ancestor: cursor.id,
    transactions,
  };
  cursor.slot = slot;
  cursor.id = block.id;
  cursor.height = height;
  return block;
}

/** `count` blocks after `cursor` (advanced), each with `updates` pool outputs. */
export function syntheticBlocks(
  cursor: ChainCursor,
  pools: readonly SyntheticPool[],
  count: number,
  options: { updates: number; noise?: number; sequential?: boolean; fork?: number; slotStep?: number },
): OgmiosWireBlock[] {
  return Array.from({ length: count }, () => nextSyntheticBlock(cursor, pools, options));
}

/** An empty block for a synthetic chain to follow: where a test's source starts (`--chain-start <slot>.<id>`). */
export function anchorBlock(slot = 120_000_000, id = 'ee'.repeat(32)): OgmiosWireBlock {
  return { type: 'praos', era: 'babbage', id, height: 0, slot, ancestor: 'genesis', transactions: [] };
}
