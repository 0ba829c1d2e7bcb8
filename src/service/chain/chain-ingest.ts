import { ADA_DECIMALS, ADA_TICKER, ADA_UNIT, displayAssetName, splitTokenUnit } from '../../shared/ids';
import { fallbackTicker } from '../importers/registry';
import type { Ingestor } from '../market/ingest';
import { LOGO_GENERATED, LOGO_NONE, poolPrice, type Pool, type Token } from '../market/model';
import type { MarketStore } from '../store/ports';
import { slotTime, type ChainBlock, type ChainPoint } from './block';
import { poolOutputs, type PoolState } from './dexes';

/**
 * The chain source's write side: applies decoded blocks to the market through the single write path
 * (the Ingestor), one commit per block, and undoes blocks on a rollback. The tip and a journal of the
 * last blocks (the pool states each changed, as they were before) are stored with each block's commit
 * (meta `chain:tip`, `chain:journal`), so a restart resumes at the tip and can still undo.
 *
 * Rules (docs/chain.md, docs/decisions.md):
 * - the first sighting of a pool creates its tokens, pair and pool, with no event;
 * - a later change that moves the price is one trade event: id `txHash#outputIndex`, block_time the
 *   slot's Unix time, volume |change of the base reserve| in whole units;
 * - a change that keeps the price (a proportional deposit or withdrawal) updates the reserves (TVL)
 *   without an event: the spec's events are "caused by a trade";
 * - a block with a recognised pool output that fails to decode is skipped whole (logged, counted),
 *   never half-applied; the tip still moves past it.
 */

/** Blocks kept in the journal: mainnet's security parameter k (no rollback goes deeper). */
export const JOURNAL_BLOCKS = 2160;
/** Relative price change under which a change of both reserves is liquidity, not a trade. */
const SAME_PRICE = 1e-9;

export interface ChainTip extends ChainPoint {
  readonly height: number;
}

interface JournalEntry {
  readonly slot: number;
  readonly id: string;
  readonly height: number;
  /** Pool row id and its reserves before the block. */
  readonly before: readonly (readonly [number, number, number])[];
}

export interface BlockReport {
  readonly trades: number;
  readonly liquidity: number;
  readonly created: number;
  /** Why the block was skipped, when it was. */
  readonly skipped?: string;
}

export class ChainIngest {
  /** Blocks skipped because a pool output could not be decoded. */
  undecodable = 0;
  private constructor(
    private readonly ingestor: Ingestor,
    private tipPoint: ChainTip | undefined,
    private journal: JournalEntry[],
    private readonly log: (line: string) => void,
  ) {}

  static async open(ingestor: Ingestor, meta: MarketStore, log: (line: string) => void = () => undefined): Promise<ChainIngest> {
    const tip = await meta.meta('chain:tip');
    const journal = await meta.meta('chain:journal');
    return new ChainIngest(ingestor, tip ? (JSON.parse(tip) as ChainTip) : undefined, journal ? (JSON.parse(journal) as JournalEntry[]) : [], log);
  }

  get tip(): ChainTip | undefined {
    return this.tipPoint;
  }

  /** Applies one block (one commit). A block at or before the tip was applied already: nothing happens. */
  async applyBlock(block: ChainBlock): Promise<BlockReport> {
    if (this.tipPoint && block.slot <= this.tipPoint.slot) return { trades: 0, liquidity: 0, created: 0, skipped: 'already applied' };
    const changes: { state: PoolState; eventId: string }[] = [];
    for (const tx of block.transactions) {
      for (const out of poolOutputs(tx)) {
        if ('error' in out) {
          this.undecodable++;
          const reason = `${out.group} pool output ${tx.id}#${out.index}: ${out.error}`;
          this.log(`chain: block ${block.height} at slot ${block.slot} (${block.id}) skipped: ${reason}`);
          await this.commitTip(block, []);
          return { trades: 0, liquidity: 0, created: 0, skipped: reason };
        }
        changes.push({ state: out.state, eventId: `${tx.id}#${out.index}` });
      }
    }
    const before = new Map<number, readonly [number, number, number]>();
    let trades = 0;
    let liquidity = 0;
    let created = 0;
    const time = slotTime(block.slot);
    try {
      for (const { state, eventId } of changes) {
        const pool = this.ingestor.market.pools.get(state.poolId);
        if (!pool) {
          this.createPool(state);
          created++;
          continue;
        }
        const [base, quote] = oriented(pool, state);
        if (base === pool.baseReserve && quote === pool.quoteReserve) continue;
        if (!before.has(pool.id)) before.set(pool.id, [pool.id, pool.baseReserve, pool.quoteReserve]);
        const oldPrice = poolPrice(pool);
        const newPrice = quote > 0 ? base / 10 ** pool.pair.base.decimals / (quote / 10 ** pool.pair.quote.decimals) : 0;
        const sameWay = Math.sign(base - pool.baseReserve) === Math.sign(quote - pool.quoteReserve);
        if (sameWay && oldPrice > 0 && Math.abs(newPrice / oldPrice - 1) < SAME_PRICE) {
          this.ingestor.setReserves(pool, base, quote);
          liquidity++;
        } else if (base <= 0 || quote <= 0) {
          // An emptied pool (every share withdrawn) has no price: its reserves only.
          this.ingestor.setReserves(pool, Math.max(0, base), Math.max(0, quote));
          liquidity++;
        } else {
          const volume = Math.abs(base - pool.baseReserve) / 10 ** pool.pair.base.decimals;
          this.ingestor.swap(pool, base, quote, time, volume, eventId);
          trades++;
        }
      }
      await this.commitTip(block, [...before.values()]);
    } catch (error) {
      // commitTip's failure already put memory back; a failure before it leaves pending changes.
      if (this.ingestor.dirty) this.ingestor.rollback();
      throw error;
    }
    return { trades, liquidity, created };
  }

  /**
   * Undoes every block after `point` (a RollBackward): pool reserves back, their trades gone and the
   * bars they touched folded again, in one commit. Returns the number of blocks undone.
   */
  async rollBackTo(point: ChainPoint): Promise<number> {
    if (!this.tipPoint || point.slot >= this.tipPoint.slot) return 0;
    const undone = this.journal.filter((e) => e.slot > point.slot);
    const kept = this.journal.filter((e) => e.slot <= point.slot);
    if (undone.length === 0 && this.tipPoint.slot > point.slot) {
      this.log(`chain: rollback to slot ${point.slot} is deeper than the journal (${JOURNAL_BLOCKS} blocks); trades after it are removed, reserves kept`);
    }
    for (const entry of [...undone].reverse()) {
      for (const [id, base, quote] of entry.before) {
        const pool = this.ingestor.market.poolsById.get(id);
        if (pool) this.ingestor.setReserves(pool, base, quote);
      }
    }
    const at = kept.at(-1);
    const tip: ChainTip = { slot: point.slot, id: point.id, height: at && at.slot === point.slot ? at.height : (at?.height ?? 0) };
    await this.ingestor.commit({ removeTradesAfter: slotTime(point.slot), meta: { 'chain:tip': JSON.stringify(tip), 'chain:journal': JSON.stringify(kept) } });
    this.tipPoint = tip;
    this.journal = kept;
    this.log(`chain: rolled back ${undone.length} block(s) to slot ${point.slot}`);
    return undone.length;
  }

  private async commitTip(block: ChainBlock, before: readonly (readonly [number, number, number])[]): Promise<void> {
    const tip: ChainTip = { slot: block.slot, id: block.id, height: block.height };
    const journal = [...this.journal, { slot: block.slot, id: block.id, height: block.height, before }].slice(-JOURNAL_BLOCKS);
    await this.ingestor.commit({ meta: { 'chain:tip': JSON.stringify(tip), 'chain:journal': JSON.stringify(journal) } });
    this.tipPoint = tip;
    this.journal = journal;
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
function oriented(pool: Pool, state: PoolState): [number, number] {
  return pool.pair.base.unit === state.assetA ? [Number(state.reserveA), Number(state.reserveB)] : [Number(state.reserveB), Number(state.reserveA)];
}
