import { describe, expect, it } from 'vitest';
import { classifyChange } from '../../../src/service/chain/classify';
import { poolOutputs, type PoolState } from '../../../src/service/chain/dexes';
import { BlockShapeError, FrameError, fromOgmiosBlock, fromOgmiosPoint } from '../../../src/service/chain/ogmios-block';
import { hasPrise, qualifiedTransactions, toChainTxs } from '../../support/prise';

/**
 * What a pool change is (docs/decisions.md "Chain trades"): a swap (a trade event), a proportional
 * deposit or withdrawal (no event), or a deposit or withdrawal with a swap inside (a trade for the
 * price move). On every real pool change of the data set, against an independent reading: by the
 * pool's LP shares, a deposit or withdrawal changes both reserves by the same fraction as the shares.
 */

const abs = (v: bigint) => (v < 0n ? -v : v);

/** Every pool change of the data set: the pool's state in the spent input and in the new output. */
function realChanges(): { before: PoolState; after: PoolState; tx: string }[] {
  const changes: { before: PoolState; after: PoolState; tx: string }[] = [];
  for (const [hash, tx] of qualifiedTransactions()) {
    const { outputs, inputs } = toChainTxs(tx);
    const spent = poolOutputs(inputs);
    for (const out of poolOutputs(outputs)) {
      if (!('state' in out)) continue;
      const input = spent.find((i) => 'state' in i && i.state.poolId === out.state.poolId);
      if (input && 'state' in input) changes.push({ before: input.state, after: out.state, tx: hash });
    }
  }
  return changes;
}

describe.skipIf(!hasPrise)('pool changes of real mainnet transactions', () => {
  it('are liquidity exactly when the LP shares change by the fraction both reserves change by; swaps keep the shares', () => {
    const changes = realChanges();
    const counts = { liquidity: 0, trade: 0, zap: 0, none: 0 };
    for (const { before, after, tx } of changes) {
      const change = classifyChange(
        { base: before.reserveA, quote: before.reserveB },
        { base: after.reserveA, quote: after.reserveB },
        before.liquidity !== after.liquidity,
      );
      const shares = Number(after.liquidity - before.liquidity) / Number(before.liquidity);
      const fractionA = Number(after.reserveA - before.reserveA) / Number(before.reserveA);
      const fractionB = Number(after.reserveB - before.reserveB) / Number(before.reserveB);
      // One raw unit of rounding on the smaller reserve, relative.
      const rounding = 2 / Math.min(Number(before.reserveA), Number(before.reserveB));
      if (after.reserveA === before.reserveA && after.reserveB === before.reserveB) {
        expect(change.kind, tx).toBe('none');
        counts.none++;
      } else if (shares !== 0 && Math.abs(fractionA - fractionB) <= rounding) {
        expect(change.kind, tx).toBe('liquidity');
        counts.liquidity++;
      } else if (shares === 0) {
        expect(change, tx).toEqual({ kind: 'trade', volume: abs(after.reserveA - before.reserveA) });
        counts.trade++;
      } else {
        // Shares and price both moved: a trade for the swapped part, which is less than the whole deposit.
        expect(change.kind, tx).toBe('trade');
        if (change.kind === 'trade') {
          expect(change.volume, tx).toBeGreaterThan(0n);
          expect(change.volume, tx).toBeLessThanOrEqual(
            abs(after.reserveA - before.reserveA) +
              abs(((after.reserveB - before.reserveB) * before.reserveA) / before.reserveB),
          );
        }
        counts.zap++;
      }
    }
    // The data set holds every kind: 949 changes, 53 of them deposits or withdrawals (MinswapV2, WingRiders).
    expect(changes.length).toBeGreaterThan(900);
    expect(counts.liquidity).toBeGreaterThan(40);
    expect(counts.zap).toBeGreaterThan(20);
    expect(counts.trade).toBeGreaterThan(700);
  });
});

describe('a pool change', () => {
  it('a swap is a trade of the whole base change; a proportional deposit is liquidity; a one-sided zap trades about half', () => {
    const pool = { base: 100_000_000n, quote: 50_000_000n };
    expect(classifyChange(pool, { base: 101_000_000n, quote: 49_505_000n }, false)).toEqual({
      kind: 'trade',
      volume: 1_000_000n,
    });
    expect(classifyChange(pool, { base: 102_000_000n, quote: 51_000_001n }, true)).toEqual({ kind: 'liquidity' });
    expect(classifyChange(pool, { base: 98_000_000n, quote: 49_000_000n }, true)).toEqual({ kind: 'liquidity' });
    expect(classifyChange(pool, { base: 102_000_000n, quote: 50_000_000n }, true)).toEqual({
      kind: 'trade',
      volume: 1_000_000n,
    });
    expect(classifyChange(pool, pool, true)).toEqual({ kind: 'none' });
    // Without the LP supply (the first change after a start): both reserves up is a deposit, opposite ways a swap.
    expect(classifyChange(pool, { base: 102_000_000n, quote: 51_000_000n }, undefined)).toEqual({ kind: 'liquidity' });
    expect(classifyChange(pool, { base: 101_000_000n, quote: 49_505_000n }, undefined)).toEqual({
      kind: 'trade',
      volume: 1_000_000n,
    });
  });
});

describe('frames from Ogmios', () => {
  const id = 'ab'.repeat(32);
  it('a block without a readable header is garbage (the connection is dropped), nothing is applied', () => {
    for (const frame of [
      null,
      5,
      'block',
      {},
      { id: 'zz', slot: 1, height: 1 },
      { id, height: 1 },
      { id, slot: -1, height: 1 },
      { id, slot: 1.5, height: 1 },
    ]) {
      expect(() => fromOgmiosBlock(frame), JSON.stringify(frame)).toThrow(FrameError);
    }
  });

  it('a block with a header but a body it cannot read is skipped whole, at its header', () => {
    for (const transactions of [
      5,
      [5],
      [{ id: 'nope' }],
      [{ id, outputs: [{ address: 'a', value: { ada: { lovelace: 1.5 } } }] }],
      [{ id, outputs: [{ address: 'a', value: { zz: { '': 1 } } }] }],
    ]) {
      const frame = { id, slot: 7, height: 3, ancestor: 'cd'.repeat(32), transactions };
      let error: unknown;
      try {
        fromOgmiosBlock(frame);
      } catch (caught) {
        error = caught;
      }
      expect(error, JSON.stringify(transactions)).toBeInstanceOf(BlockShapeError);
      expect((error as BlockShapeError).header).toEqual({ slot: 7, id, height: 3, ancestor: 'cd'.repeat(32) });
    }
  });

  it('a rollback to something that is not a point is garbage; origin and points are read', () => {
    for (const point of [null, { slot: 'x', id }, { slot: 3 }, { slot: 3, id: 'short' }, 'genesis'])
      expect(() => fromOgmiosPoint(point), JSON.stringify(point)).toThrow(FrameError);
    expect(fromOgmiosPoint('origin')).toEqual({ slot: -1, id: '' });
    expect(fromOgmiosPoint({ slot: 3, id: id.toUpperCase() })).toEqual({ slot: 3, id });
  });
});
