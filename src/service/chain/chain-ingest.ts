import { ADA_DECIMALS, ADA_TICKER, ADA_UNIT, displayAssetName, splitTokenUnit } from '../../shared/ids';
import { fallbackTicker } from '../importers/registry';
import type { Ingestor } from '../market/ingest';
import { LOGO_GENERATED, LOGO_NONE, type Pool, type Token } from '../market/model';
import type { JournalRow, MarketStore } from '../store/ports';
import { slotTime, type ChainBlock, type ChainPoint } from './block';
import { poolOutputs, type PoolState } from './dexes';
import type { ChainBlockHeader } from './ogmios-block';

/**
 * The chain source's write side: applies decoded blocks to the market through the single write path
 * (the Ingestor), one commit per block, and undoes blocks on a rollback. The tip (meta `chain:tip`)
 * and the block's row of the rollback journal (the pool states it changed, as they were before) are
 * written with each block's commit, so a restart resumes at the tip and can still undo.
 *
 * Rules (docs/chain.md, docs/decisions.md):
 * - the first sighting of a pool creates its tokens, pair and pool, with no event;
 * - a later change is classified by `classifyChange`: a swap is one trade event (id
 *   `txHash#outputIndex`, block_time the slot's Unix time, volume |change of the base reserve|); a
 *   proportional deposit or withdrawal updates the reserves (TVL) without an event; a deposit or
 *   withdrawal that also moves the price (a zap, or a batch of both) is a trade event for that move;
 * - a block with a recognised pool output that fails to decode is skipped whole (logged, counted),
 *   never half-applied; the tip still moves past it;
 * - a block that does not follow the stored tip (its ancestor is another block) is refused: the
 *   follower reconnects and resumes at the tip.
 */

/** Blocks kept in the journal: mainnet's security parameter k (shelley-genesis.json `securityParam`: no rollback goes deeper). */
export const JOURNAL_BLOCKS = 2160;

export interface ChainTip extends ChainPoint {
  readonly height: number;
}

export interface BlockReport {
  readonly trades: number;
  readonly liquidity: number;
  readonly created: number;
  /** Why the block was skipped, when it was. */
  readonly skipped?: string;
}

/** A block that does not follow the stored tip (a fork the node switched to without a rollback yet, or a gap). */
export class ChainGapError extends Error {}

/** What a change of a pool's reserves is: a trade (with its volume in raw base units), liquidity, or nothing. */
export type Change = { readonly kind: 'trade'; readonly volume: bigint } | { readonly kind: 'liquidity' } | { readonly kind: 'none' };

const abs = (v: bigint) => (v < 0n ? -v : v);

/**
 * Classifies a pool's change from (baseBefore, quoteBefore) to (base, quote), raw units, knowing
 * whether the pool's LP supply changed (undefined: not known, the first change seen since a start).
 *
 * - LP supply unchanged: swaps only (a swap never mints or burns shares): a trade whose volume is
 *   |Δbase|.
 * - LP supply changed and the change proportional to the reserves up to one raw unit of rounding
 *   (|Δbase·quote − Δquote·base| ≤ max(base, quote)): a deposit or withdrawal, no trade.
 * - LP supply changed otherwise: a deposit or withdrawal with a swap inside (a one-sided zap, or a
 *   batch holding both): a trade for the price move, whose volume is the swapped base amount,
 *   estimated as half the change's distance from a proportional one: |Δbase·quote − Δquote·base| / (2·quote).
 * - LP supply unknown: a change of both reserves in the same direction is taken as a deposit or
 *   withdrawal (with or without a swap, as above), one in opposite directions as a swap.
 */
export function classifyChange(before: { readonly base: bigint; readonly quote: bigint }, after: { readonly base: bigint; readonly quote: bigint }, lpChanged: boolean | undefined): Change {
  const dBase = after.base - before.base;
  const dQuote = after.quote - before.quote;
  if (dBase === 0n && dQuote === 0n) return { kind: 'none' };
  const liquidityMove = lpChanged ?? (dBase === 0n || dQuote === 0n || dBase > 0n === dQuote > 0n);
  if (!liquidityMove) return { kind: 'trade', volume: abs(dBase) };
  const skew = abs(dBase * before.quote - dQuote * before.base);
  if (skew <= (before.base > before.quote ? before.base : before.quote)) return { kind: 'liquidity' };
  return { kind: 'trade', volume: before.quote > 0n ? skew / (2n * before.quote) : abs(dBase) };
}

export class ChainIngest {
  /** Blocks skipped because a pool output could not be decoded. */
  undecodable = 0;
  /** The LP supply each pool had at its last change seen since this start (not stored: see classifyChange). */
  private readonly lp = new Map<string, bigint>();
  private constructor(
    private readonly ingestor: Ingestor,
    private tipPoint: ChainTip | undefined,
    private journal: JournalRow[],
    private readonly log: (line: string) => void,
  ) {}

  static async open(ingestor: Ingestor, market: MarketStore, log: (line: string) => void = () => undefined): Promise<ChainIngest> {
    const tip = await market.meta('chain:tip');
    return new ChainIngest(ingestor, tip ? (JSON.parse(tip) as ChainTip) : undefined, await market.journal(), log);
  }

  get tip(): ChainTip | undefined {
    return this.tipPoint;
  }

  /**
   * Where to ask Ogmios to intersect, newest first: the tip, then blocks of the journal further and
   * further back (1, 2, 4 … blocks), then `start`. If the node switched to another fork while this
   * source was away, the newest point still on its chain is found, and Ogmios rolls back to it.
   */
  intersectionPoints(start: ChainPoint): ChainPoint[] {
    const points: ChainPoint[] = [];
    if (this.tipPoint) points.push({ slot: this.tipPoint.slot, id: this.tipPoint.id });
    for (let back = 1; back < this.journal.length; back *= 2) {
      const row = this.journal[this.journal.length - 1 - back];
      if (row) points.push({ slot: row.slot, id: row.id });
    }
    const oldest = this.journal[0];
    if (oldest && !points.some((p) => p.slot === oldest.slot)) points.push({ slot: oldest.slot, id: oldest.id });
    if (!points.some((p) => p.slot === start.slot && p.id === start.id) && (!this.tipPoint || start.slot <= this.tipPoint.slot)) points.push(start);
    return points;
  }

  /**
   * Applies one block (one commit). A block at or before the tip was applied already: nothing happens.
   * A block whose ancestor is not the tip is refused (ChainGapError).
   */
  async applyBlock(block: ChainBlock): Promise<BlockReport> {
    if (this.tipPoint && block.slot <= this.tipPoint.slot) return { trades: 0, liquidity: 0, created: 0, skipped: 'already applied' };
    this.checkFollows(block);
    const changes: { state: PoolState; eventId: string }[] = [];
    for (const tx of block.transactions) {
      for (const out of poolOutputs(tx)) {
        if ('error' in out) return this.skipBlock(block, `${out.group} pool output ${tx.id}#${out.index}: ${out.error}`);
        changes.push({ state: out.state, eventId: `${tx.id}#${out.index}` });
      }
    }
    const before = new Map<number, readonly [number, number, number]>();
    let trades = 0;
    let liquidity = 0;
    let created = 0;
    const time = slotTime(block.slot);
    const lpSeen = new Map<string, bigint>();
    try {
      for (const { state, eventId } of changes) {
        const previousLp = lpSeen.get(state.poolId) ?? this.lp.get(state.poolId);
        lpSeen.set(state.poolId, state.liquidity);
        const pool = this.ingestor.market.pools.get(state.poolId);
        if (!pool) {
          this.createPool(state);
          created++;
          continue;
        }
        const [base, quote] = oriented(pool, state);
        const change = classifyChange(
          { base: BigInt(Math.round(pool.baseReserve)), quote: BigInt(Math.round(pool.quoteReserve)) },
          { base, quote },
          previousLp === undefined ? undefined : previousLp !== state.liquidity,
        );
        if (change.kind === 'none') continue;
        if (!before.has(pool.id)) before.set(pool.id, [pool.id, pool.baseReserve, pool.quoteReserve]);
        if (change.kind === 'liquidity' || base <= 0n || quote <= 0n) {
          // A deposit or withdrawal; an emptied pool (every share withdrawn) has no price: its reserves only.
          this.ingestor.setReserves(pool, Math.max(0, Number(base)), Math.max(0, Number(quote)));
          liquidity++;
        } else {
          this.ingestor.swap(pool, Number(base), Number(quote), time, Number(change.volume) / 10 ** pool.pair.base.decimals, eventId);
          trades++;
        }
      }
      await this.commitTip(block, [...before.values()]);
    } catch (error) {
      // commitTip's failure already put memory back; a failure before it leaves pending changes.
      if (this.ingestor.dirty) this.ingestor.rollback();
      throw error;
    }
    for (const [poolId, lp] of lpSeen) this.lp.set(poolId, lp);
    return { trades, liquidity, created };
  }

  /** Skips a block whole (one that cannot be read or decoded): logged, counted, and the tip moves past it. */
  async skipBlock(block: ChainBlockHeader, reason: string): Promise<BlockReport> {
    if (this.tipPoint && block.slot <= this.tipPoint.slot) return { trades: 0, liquidity: 0, created: 0, skipped: 'already applied' };
    this.checkFollows(block);
    this.undecodable++;
    this.log(`chain: block ${block.height} at slot ${block.slot} (${block.id}) skipped: ${reason}`);
    await this.commitTip(block, []);
    return { trades: 0, liquidity: 0, created: 0, skipped: reason };
  }

  /**
   * Undoes every block after `point` (a RollBackward): pool reserves back, their trades gone and the
   * bars they touched folded again, in one commit. Returns the number of blocks undone.
   */
  async rollBackTo(point: ChainPoint): Promise<number> {
    if (!this.tipPoint || point.slot >= this.tipPoint.slot) return 0;
    const undone = this.journal.filter((e) => e.slot > point.slot);
    const kept = this.journal.filter((e) => e.slot <= point.slot);
    if (this.journal.length === 0 || (this.journal[0]?.slot ?? 0) > point.slot) {
      this.log(`chain: rollback to slot ${point.slot} is deeper than the journal (${JOURNAL_BLOCKS} blocks); trades after it are removed, reserves kept`);
    }
    for (const entry of [...undone].reverse()) {
      for (const [id, base, quote] of entry.before) {
        const pool = this.ingestor.market.poolsById.get(id);
        if (pool) this.ingestor.setReserves(pool, base, quote);
      }
    }
    const at = kept.at(-1);
    const tip: ChainTip = { slot: point.slot, id: point.id, height: at?.height ?? 0 };
    await this.ingestor.commit({ removeTradesAfter: slotTime(point.slot), meta: { 'chain:tip': JSON.stringify(tip) }, journal: { removeAfter: point.slot } });
    this.tipPoint = tip;
    this.journal = kept;
    // The LP supplies seen in undone blocks may not hold any more: the next change of those pools is judged without them.
    this.lp.clear();
    this.log(`chain: rolled back ${undone.length} block(s) to slot ${point.slot}`);
    return undone.length;
  }

  private checkFollows(block: ChainBlockHeader): void {
    const tip = this.tipPoint;
    if (tip && block.ancestor !== undefined && block.ancestor !== tip.id) {
      throw new ChainGapError(`block ${block.height} at slot ${block.slot} follows ${block.ancestor}, not the stored tip ${tip.id} (slot ${tip.slot})`);
    }
  }

  private async commitTip(block: ChainBlockHeader, before: readonly (readonly [number, number, number])[]): Promise<void> {
    const tip: ChainTip = { slot: block.slot, id: block.id, height: block.height };
    const row: JournalRow = { slot: block.slot, id: block.id, height: block.height, before };
    const journal = [...this.journal, row];
    const drop = journal.length - JOURNAL_BLOCKS;
    const kept = drop > 0 ? journal.slice(drop) : journal;
    await this.ingestor.commit({
      meta: { 'chain:tip': JSON.stringify(tip) },
      journal: { append: row, ...(drop > 0 && kept[0] ? { removeBefore: kept[0].slot } : {}) },
    });
    this.tipPoint = tip;
    this.journal = kept;
  }

  private token(unit: string): Token {
    const known = this.ingestor.market.tokens.get(unit);
    if (known) return known;
    if (unit === ADA_UNIT) return this.ingestor.addToken({ unit, ticker: ADA_TICKER, name: 'Cardano', decimals: ADA_DECIMALS, logoKind: LOGO_GENERATED });
    // Named as the registry importer names a token it has no ticker for; decimals 0 until a registry
    // import (run it before following the chain: decimals of a token in a pool are kept).
    const { policyId, assetName } = splitTokenUnit(unit);
    const decoded = displayAssetName(assetName);
    const name = assetName !== '' && decoded !== assetName ? decoded : `${policyId.slice(0, 8)}…${assetName.slice(0, 8)}`;
    return this.ingestor.addToken({ unit, ticker: fallbackTicker(unit, name), name, decimals: 0, logoKind: LOGO_NONE });
  }

  private createPool(state: PoolState): Pool {
    const adaFirst = state.assetB === ADA_UNIT;
    const [baseUnit, quoteUnit, baseReserve, quoteReserve] = adaFirst
      ? [state.assetB, state.assetA, state.reserveB, state.reserveA]
      : [state.assetA, state.assetB, state.reserveA, state.reserveB];
    const pair = this.ingestor.ensurePair(this.token(baseUnit), this.token(quoteUnit));
    return this.ingestor.addPool(pair, { poolId: state.poolId, group: state.group, baseReserve: Number(baseReserve), quoteReserve: Number(quoteReserve), feeBps: state.feeBps, simulated: false });
  }
}

/** A decoded state's reserves as (base, quote) of our pool's pair. */
function oriented(pool: Pool, state: PoolState): [bigint, bigint] {
  return pool.pair.base.unit === state.assetA ? [state.reserveA, state.reserveB] : [state.reserveB, state.reserveA];
}
