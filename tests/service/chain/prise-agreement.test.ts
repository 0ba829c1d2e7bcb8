import { describe, expect, it } from 'vitest';
import { amountOf } from '../../../src/service/chain/block';
import { poolOutputs, type PoolState } from '../../../src/service/chain/dexes';
import {
  hasPrise,
  priseSwaps,
  PRISE_DEX_GROUPS,
  qualifiedTransactions,
  toChainTxs,
  type PriseSwap,
} from '../../support/prise';

/**
 * Our decoders against an independent indexer (prise) on real mainnet transactions. Every transaction
 * prise computed a swap for, whose resolved inputs and datums the data set holds, must be found by
 * us on the same pool and pair, and agree:
 * - exactly: the pool output's value changes by the net of prise's orders, to the unit, on both sides
 *   (op 0 puts ADA into the pool and takes the token out; op 1 the reverse; a batch nets its orders),
 *   and our reserves change as the value does, less only what the DEX sets aside (WingRiders'
 *   treasury, Minswap V2's protocol share: at most 0.1 % of what the orders traded);
 * - or by the pool's value where prise assumes a fixed 2 ADA Minswap batcher fee: a batch that took
 *   less leaves the rest in the pool, which prise's order amount does not count (the pool received
 *   more ADA than prise's amount, the token side exact);
 * - a zap (one reserve unchanged: a one-sided deposit that swaps inside the pool): found, and counted
 *   apart: prise reports the internal swap, we the price move (docs/chain.md).
 * prise's result files come from several of its versions, which disagree on some transactions (one
 * nets a batch into one record, another differs by a few hundred lovelace): a transaction agrees when
 * one file's records of it agree. The data set lives outside the repository: this runs where it exists.
 */

interface Tally {
  total: number;
  found: number;
  exact: number;
  batcherFee: number;
  zaps: number;
  noDatum: number;
  problems: string[];
}

const abs = (v: bigint) => (v < 0n ? -v : v);

interface Change {
  /** The pool output's value change (raw units): ADA and the token. */
  readonly rawAda: bigint;
  readonly rawToken: bigint;
  readonly before: PoolState;
  readonly after: PoolState;
}

/** 'exact', 'batcher-fee', 'zap', or what differs. */
function verdict(change: Change, swaps: readonly PriseSwap[]): string {
  const { rawAda, rawToken, before, after } = change;
  const adaIsA = after.assetA === '';
  const dAda = adaIsA ? after.reserveA - before.reserveA : after.reserveB - before.reserveB;
  const dToken = adaIsA ? after.reserveB - before.reserveB : after.reserveA - before.reserveA;
  if (dAda === 0n || dToken === 0n) return 'zap';
  // Our reserves follow the value, less what the DEX sets aside: at most 0.1 % of what the orders traded.
  const grossAda = swaps.reduce((sum, s) => sum + s.amount1, 0n);
  const grossToken = swaps.reduce((sum, s) => sum + s.amount2, 0n);
  if (abs(dAda - rawAda) * 1000n > grossAda || abs(dToken - rawToken) * 1000n > grossToken)
    return `reserves ADA ${dAda} / token ${dToken} vs value ${rawAda} / ${rawToken}`;
  const netAda = swaps.reduce((sum, s) => sum + (s.operation === 0 ? s.amount1 : -s.amount1), 0n);
  const netToken = swaps.reduce((sum, s) => sum + (s.operation === 0 ? -s.amount2 : s.amount2), 0n);
  if (rawAda === netAda && rawToken === netToken) return 'exact';
  const allIn = swaps.every((s) => s.operation === 0);
  if (
    after.group === 'Minswap' &&
    allIn &&
    rawToken === netToken &&
    rawAda > netAda &&
    rawAda - netAda <= 2_000_000n * BigInt(swaps.length)
  )
    return 'batcher-fee';
  return `value ADA ${rawAda} vs ${netAda}, token ${rawToken} vs ${netToken}`;
}

describe.skipIf(!hasPrise)('decoders against prise on real mainnet transactions', () => {
  it('finds every transaction prise computed a swap for, on the same pool and pair, with agreeing reserve changes', () => {
    const tallies = new Map<string, Tally>();
    const txs = qualifiedTransactions();
    for (const [hash, files] of priseSwaps()) {
      const tx = txs.get(hash);
      if (!tx) continue;
      const groups = new Set([...files.values()].flat().map((s) => PRISE_DEX_GROUPS[s.dex]));
      for (const group of groups) {
        if (!group) continue;
        const tally = tallies.get(group) ?? {
          total: 0,
          found: 0,
          exact: 0,
          batcherFee: 0,
          zaps: 0,
          noDatum: 0,
          problems: [],
        };
        tallies.set(group, tally);
        tally.total++;
        const { outputs, inputs } = toChainTxs(tx);
        const created = poolOutputs(outputs).filter((o) => ('state' in o ? o.state.group : o.group) === group);
        if (created.some((o) => 'error' in o && /datum missing/.test(o.error))) {
          tally.noDatum++;
          continue;
        }
        const spent = poolOutputs(inputs);
        let found = false;
        const verdicts: string[] = [];
        for (const out of created) {
          if (!('state' in out)) {
            tally.problems.push(`${hash}: ${out.error}`);
            continue;
          }
          const token = out.state.assetA === '' ? out.state.assetB : out.state.assetA;
          const before = spent.find((i) => 'state' in i && i.state.poolId === out.state.poolId);
          if (!before || !('state' in before)) continue;
          const created = outputs.outputs[out.index];
          const consumed = inputs.outputs[before.index];
          if (!created || !consumed) continue;
          const change = {
            rawAda: amountOf(created, '') - amountOf(consumed, ''),
            rawToken: amountOf(created, token) - amountOf(consumed, token),
            before: before.state,
            after: out.state,
          };
          for (const swaps of files.values()) {
            const mine = swaps.filter(
              (s) => PRISE_DEX_GROUPS[s.dex] === group && s.asset1Unit === '' && s.asset2Unit === token,
            );
            if (mine.length === 0) continue;
            found = true;
            verdicts.push(verdict(change, mine));
          }
        }
        if (!found) tally.problems.push(`${hash}: no ${group} pool state change of prise's pair found`);
        else {
          tally.found++;
          if (verdicts.includes('exact')) tally.exact++;
          else if (verdicts.includes('batcher-fee')) tally.batcherFee++;
          else if (verdicts.includes('zap')) tally.zaps++;
          else tally.problems.push(`${hash}: ${verdicts.join(' | ')}`);
        }
      }
    }
    const table = [...tallies].map(
      ([group, t]) =>
        `${group}: found ${t.found}/${t.total - t.noDatum}: exact ${t.exact}, batcher fee ${t.batcherFee}, zaps ${t.zaps} (${t.noDatum} more without their datum in the data set)`,
    );
    console.log(`prise agreement\n  ${table.join('\n  ')}`);
    for (const group of ['Minswap', 'MinswapV2', 'SundaeSwap', 'WingRiders']) {
      const t = tallies.get(group);
      expect(t, group).toBeDefined();
      if (!t) continue;
      expect(t.problems, `${group}: ${t.problems.join('; ')}`).toEqual([]);
      expect(t.found).toBe(t.total - t.noDatum);
      expect(t.exact + t.batcherFee + t.zaps).toBe(t.found);
      // Most agree to the unit; the others are explained above.
      expect(t.exact).toBeGreaterThan(0);
      expect(t.batcherFee + t.zaps).toBeLessThanOrEqual(t.exact);
      expect(t.found).toBeGreaterThan(0);
    }
  });

  it('decodes every pool output of every real transaction in the data set (or names the missing datum)', () => {
    const counts = new Map<string, { decoded: number; noDatum: number }>();
    const errors: string[] = [];
    for (const tx of qualifiedTransactions().values()) {
      const { outputs, inputs } = toChainTxs(tx);
      for (const side of [outputs, inputs]) {
        for (const out of poolOutputs(side)) {
          const group = 'state' in out ? out.state.group : out.group;
          const count = counts.get(group) ?? { decoded: 0, noDatum: 0 };
          counts.set(group, count);
          if ('state' in out) {
            count.decoded++;
            expect(out.state.reserveA > 0n && out.state.reserveB > 0n, `${tx.txHash}#${out.index}`).toBe(true);
            expect(out.state.assetA).not.toBe(out.state.assetB);
          } else if (/datum missing/.test(out.error)) count.noDatum++;
          else errors.push(`${tx.txHash}#${out.index}: ${out.error}`);
        }
      }
    }
    console.log(
      `pool outputs decoded: ${[...counts].map(([g, c]) => `${g} ${c.decoded} (${c.noDatum} without datum)`).join(', ')}`,
    );
    expect(errors).toEqual([]);
    for (const group of ['Minswap', 'MinswapV2', 'SundaeSwap', 'WingRiders'])
      expect(counts.get(group)?.decoded ?? 0, group).toBeGreaterThan(0);
  });
});
