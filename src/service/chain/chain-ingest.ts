import { DecodeCoverage } from './coverage';
import type { LogHook } from '../../node/log';
import type { DexGroup } from '../../shared/groups';
import { ADA_DECIMALS, ADA_TICKER, ADA_UNIT, displayAssetName, splitTokenUnit } from '../../shared/id-rules';
import { CIP67_LABELS, fungibleUnitOf } from '../identity/cip68';
import { fallbackTicker, identityOf } from '../identity/identity';
import { cip68Record, sameRecord } from '../identity/resolver';
import type { Ingestor } from '../market/ingest';
import { LOGO_GENERATED, LOGO_NONE, type Pool, type Token } from '../market/model';
import type {
  CreatedRows,
  IdentitySourceName,
  JournalIdentity,
  JournalPoolState,
  JournalRow,
  MarketStore,
} from '../store/ports';
import { datumOf, slotTime, type ChainBlock, type ChainOutput, type ChainPoint, type ChainTx } from './block';
import { classifyChange } from './classify';
import { DECODERS, poolOutputs, type DexDecoder, type PoolState } from './dexes';
import type { ChainBlockHeader } from './ogmios-block';

/**
 * The chain source's write side: applies decoded blocks to the market through the single write path
 * (the Ingestor) and undoes blocks on a rollback. Blocks are applied in memory and committed one per
 * store transaction when live, or many per transaction while catching up (`applyBlock`'s `commit`,
 * then `flush`): all of a batch or none. The tip (meta `chain:tip`), each block's row of the rollback
 * journal (the pools it changed as they were before it, and the rows it created) and the pools' LP
 * supplies are written in the same transaction, so a restart resumes at the last committed block and
 * can still undo.
 *
 * Rules (docs/chain.md, docs/decisions.md):
 * - the first sighting of a pool creates its tokens, pair and pool, with no event;
 * - a later change is classified by `classifyChange`: a swap is one trade event (id
 *   `txHash#outputIndex`, block_time the slot's Unix time, volume |change of the base reserve|); a
 *   proportional deposit or withdrawal updates the reserves (TVL) without an event; a deposit or
 *   withdrawal that also moves the price (a zap, or a batch of both) is a trade event for that move;
 * - a recognised pool output that cannot be decoded is skipped (logged with its transaction and
 *   index, counted per DEX); the rest of its block is applied;
 * - a block that does not follow the tip (its ancestor is another block) is refused: the follower
 *   reconnects and resumes at the last committed block;
 * - a rollback leaves the store as if the undone blocks had never been applied: reserves and LP
 *   supplies back, their trades gone and bars folded again, and the tokens, pairs and pools they
 *   created deleted with their row ids handed out again;
 * - an output holding a CIP-68 reference NFT (label 100) with its datum names the fungible token (label 333) of the
 *   same policy and name body, in the block's commit: the token's `cip68` identity record and, when it is in the
 *   market, its name, ticker and decimals (docs/chain.md "Token identity"); the record before it is journalled, so a
 *   rollback of the block puts it back. A reference of a token not in the market is kept when it carries a
 *   fungible token's metadata (a ticker or decimals: its pool may come later), otherwise passed by (an NFT's);
 * - a rollback goes only to a point this source has: the tip, a block of the journal, or the journal's
 *   base (the block before its oldest row: a new market's start, or the newest row the journal let go).
 *   Any other point (`origin`, a slot before the base, another block's id at a slot of ours, a slot
 *   after the tip, a slot where no block of ours is) is refused (RollbackRefusedError) and nothing changes.
 */

/**
 * Blocks kept in the journal: mainnet's security parameter k (shelley-genesis.json `securityParam`:
 * a node never rolls back more than k blocks). With its base, the journal can undo exactly k blocks.
 */
export const JOURNAL_BLOCKS = 2160;

/** Meta keys of the chain source: the committed tip, and the journal's base. */
const TIP_META = 'chain:tip';
const BASE_META = 'chain:base';

export interface ChainTip extends ChainPoint {
  readonly height: number;
}

export interface BlockReport {
  readonly trades: number;
  readonly liquidity: number;
  readonly created: number;
  /** Pool outputs that could not be decoded (skipped). */
  readonly undecodable: number;
  /** Why the block was skipped, when it was. */
  readonly skipped?: string;
}

/** A block that does not follow the tip (a fork the node switched to without a rollback yet, or a gap). */
export class ChainGapError extends Error {}

/**
 * A RollBackward to a point this source does not have (see the rules above): garbage from the node's
 * side. The store, the tip and the journal are left as they were.
 */
export class RollbackRefusedError extends Error {}

const NOTHING: BlockReport = { trades: 0, liquidity: 0, created: 0, undecodable: 0 };

/** Where a reference NFT's asset name starts in a unit (after the 56 hex digits of the policy ID), and its label. */
const ASSET_NAME_AT = 56;
const REFERENCE_LABEL = CIP67_LABELS.reference;

export class ChainIngest {
  /** Blocks and trade events committed since this start. */
  committedBlocks = 0;
  committedTrades = 0;
  /** Blocks skipped whole because they could not be read. */
  unreadableBlocks = 0;
  /** Pool outputs skipped because they could not be decoded, by DEX. */
  readonly undecodableOutputs = new Map<DexGroup, number>();
  /** Pool outputs decoded and not, by DEX, over the last day of block time (`/api/x/status`). */
  readonly coverage = new DecodeCoverage();
  /** The applied tip (committed or not) and the journal's rows not yet committed. */
  private tipPoint: ChainTip | undefined;
  private pendingRows: JournalRow[] = [];
  private pendingTrades = 0;
  /** LP supplies of the chain's pools (by pool row id), pending changes included. */
  private readonly lp: Map<number, bigint>;
  /** LP supplies as committed, for the pools pending changes touched (undefined: none stored). */
  private lpCommitted = new Map<number, bigint | undefined>();

  private constructor(
    private readonly ingestor: Ingestor,
    private committedTip: ChainTip | undefined,
    private journal: JournalRow[],
    /**
     * The block before the journal's oldest row (a new market's start, or the newest row the journal
     * let go): the deepest point a rollback may go to. Undefined in a store written before it was kept.
     */
    private base: ChainTip | undefined,
    lp: Map<number, bigint>,
    private readonly log: LogHook,
    private readonly decoders: readonly DexDecoder[],
  ) {
    this.tipPoint = committedTip;
    this.lp = lp;
  }

  /** `decoders`: the DEX decoders pool outputs are read with (default DECODERS; `chainDecoders` gives them another VyFi list). */
  static async open(
    ingestor: Ingestor,
    market: MarketStore,
    log: LogHook = () => undefined,
    decoders: readonly DexDecoder[] = DECODERS,
  ): Promise<ChainIngest> {
    const tip = await market.meta(TIP_META);
    const base = await market.meta(BASE_META);
    return new ChainIngest(
      ingestor,
      tip ? (JSON.parse(tip) as ChainTip) : undefined,
      await market.journal(),
      base ? (JSON.parse(base) as ChainTip) : undefined,
      await market.chainLp(),
      log,
      decoders,
    );
  }

  /** The last committed block: what the store and every answer reflect, and where a restart resumes. */
  get tip(): ChainTip | undefined {
    return this.committedTip;
  }

  /**
   * A new market (nothing committed yet) starts after `point`: the journal's base, so that a rollback to
   * it (undoing every block since) is one this source takes. Written with the first commit.
   */
  startAt(point: ChainPoint): void {
    if (this.committedTip || this.journal.length > 0 || this.pendingRows.length > 0) return;
    this.base = { slot: point.slot, id: point.id, height: this.base?.height ?? 0 };
  }

  /** Blocks applied in memory and not yet committed. */
  get pendingBlocks(): number {
    return this.pendingRows.length;
  }

  /** Pool outputs skipped as undecodable, all DEXs together. */
  get undecodable(): number {
    let total = 0;
    for (const count of this.undecodableOutputs.values()) total += count;
    return total;
  }

  /**
   * Where to ask Ogmios to intersect, newest first: the committed tip, then blocks of the journal
   * further and further back (1, 2, 4 … blocks), then `start` (a new market's). If the node switched
   * to another fork while this source was away, the newest point still on its chain is found, and
   * Ogmios rolls back to it.
   */
  intersectionPoints(start?: ChainPoint): ChainPoint[] {
    const points: ChainPoint[] = [];
    if (this.committedTip) points.push({ slot: this.committedTip.slot, id: this.committedTip.id });
    for (let back = 1; back < this.journal.length; back *= 2) {
      const row = this.journal[this.journal.length - 1 - back];
      if (row) points.push({ slot: row.slot, id: row.id });
    }
    const oldest = this.journal[0];
    if (oldest && !points.some((p) => p.slot === oldest.slot)) points.push({ slot: oldest.slot, id: oldest.id });
    const base = this.base;
    if (this.committedTip && base && !points.some((p) => p.slot === base.slot))
      points.push({ slot: base.slot, id: base.id });
    if (
      start &&
      !points.some((p) => p.slot === start.slot && p.id === start.id) &&
      (!this.committedTip || start.slot <= this.committedTip.slot)
    )
      points.push(start);
    return points;
  }

  /**
   * Applies one block: in memory, then committed with every block pending before it unless `commit`
   * is false (catching up: the caller flushes). A block at or before the tip was applied already:
   * nothing happens. A block whose ancestor is not the tip is refused (ChainGapError). Any other
   * failure discards every pending block (memory back to the last commit) and is rethrown.
   */
  async applyBlock(block: ChainBlock, options: { readonly commit?: boolean } = {}): Promise<BlockReport> {
    if (this.tipPoint && block.slot <= this.tipPoint.slot) return { ...NOTHING, skipped: 'already applied' };
    this.checkFollows(block);
    let report: BlockReport;
    try {
      report = this.applyInMemory(block);
    } catch (error) {
      this.discardPending();
      throw error;
    }
    if (options.commit !== false) await this.flush();
    return report;
  }

  /** Skips a block whole (one that cannot be read): logged, counted, and the tip moves past it. */
  async skipBlock(
    block: ChainBlockHeader,
    reason: string,
    options: { readonly commit?: boolean } = {},
  ): Promise<BlockReport> {
    if (this.tipPoint && block.slot <= this.tipPoint.slot) return { ...NOTHING, skipped: 'already applied' };
    this.checkFollows(block);
    this.unreadableBlocks++;
    this.log(`chain: block ${block.height} at slot ${block.slot} (${block.id}) skipped: ${reason}`, {
      level: 'warn',
      slot: block.slot,
      block: block.id,
      height: block.height,
    });
    this.pushRow(block, [], undefined);
    if (options.commit !== false) await this.flush();
    return { ...NOTHING, skipped: reason };
  }

  /**
   * Commits every pending block in one transaction: their trades, bars, reserves, created rows, LP
   * supplies, journal rows and the new tip, or (on failure, rethrown) none of it, memory back to the
   * last commit.
   */
  async flush(): Promise<void> {
    if (this.pendingRows.length === 0) return;
    const rows = this.pendingRows;
    const tip = this.tipPoint;
    const journal = [...this.journal, ...rows];
    const drop = journal.length - JOURNAL_BLOCKS;
    const kept = drop > 0 ? journal.slice(drop) : journal;
    // The newest row let go becomes the base: the journal can still undo every block after it.
    const gone = drop > 0 ? journal[drop - 1] : undefined;
    const base = gone ? { slot: gone.slot, id: gone.id, height: gone.height } : this.base;
    const lpSet: [number, string][] = [];
    for (const id of this.lpCommitted.keys()) {
      const lp = this.lp.get(id);
      if (lp !== undefined) lpSet.push([id, lp.toString()]);
    }
    try {
      await this.ingestor.commit({
        meta: { [TIP_META]: JSON.stringify(tip), ...(base ? { [BASE_META]: JSON.stringify(base) } : {}) },
        journal: { append: rows, ...(drop > 0 && kept[0] ? { removeBefore: kept[0].slot } : {}) },
        ...(lpSet.length > 0 ? { chainLp: { set: lpSet } } : {}),
      });
    } catch (error) {
      // The Ingestor put its memory back; this puts back the source's own.
      this.discardPending();
      throw error;
    }
    this.committedTip = tip;
    this.journal = kept;
    this.base = base;
    this.committedBlocks += rows.length;
    this.committedTrades += this.pendingTrades;
    this.pendingRows = [];
    this.pendingTrades = 0;
    this.lpCommitted.clear();
  }

  /** Drops every pending block: the market, the tip and the LP supplies back as last committed. */
  discardPending(): void {
    if (this.ingestor.dirty) this.ingestor.rollback();
    for (const [id, lp] of this.lpCommitted) {
      if (lp === undefined) this.lp.delete(id);
      else this.lp.set(id, lp);
    }
    this.lpCommitted.clear();
    this.pendingRows = [];
    this.pendingTrades = 0;
    this.tipPoint = this.committedTip;
  }

  /**
   * Undoes every block after `point` (a RollBackward) in one commit, after committing what is pending:
   * pool reserves and LP supplies back, their trades gone and the bars they touched folded again, and
   * the tokens, pairs and pools they created deleted. Returns the number of blocks undone. A point this
   * source does not have (`refusal`) throws a RollbackRefusedError, nothing changed.
   */
  async rollBackTo(point: ChainPoint): Promise<number> {
    await this.flush();
    const refused = this.refusal(point);
    // The follower logs it, drops the connection and counts it.
    if (refused !== undefined)
      throw new RollbackRefusedError(`Ogmios sent a rollback to a point this source does not have: ${refused}`);
    if (!this.committedTip || point.slot >= this.committedTip.slot) return 0;
    const undone = this.journal.filter((e) => e.slot > point.slot);
    const kept = this.journal.filter((e) => e.slot <= point.slot);
    const created = { tokens: [] as number[], pairs: [] as number[], pools: [] as number[] };
    for (const row of undone) {
      created.tokens.push(...(row.created?.tokens ?? []));
      created.pairs.push(...(row.created?.pairs ?? []));
      created.pools.push(...(row.created?.pools ?? []));
    }
    const deleted = new Set(created.pools);
    if (created.tokens.length + created.pairs.length + created.pools.length > 0) {
      for (const pair of this.ingestor.market.pairs.values())
        if (created.pairs.includes(pair.id)) deleted.add(pair.aggregate.id);
      this.ingestor.removeCreated(created);
    }
    const lpBack = new Map<number, bigint | undefined>();
    for (const entry of [...undone].reverse()) {
      for (const [id, base, quote, lp] of entry.before) {
        if (deleted.has(id)) continue;
        const pool = this.ingestor.market.poolsById.get(id);
        if (pool) this.ingestor.setReserves(pool, base, quote);
        lpBack.set(id, lp === undefined || lp === null ? undefined : BigInt(lp));
      }
    }
    // Identity records back as the oldest undone block found them, and the tokens named from them.
    const records = new Map<string, JournalIdentity>();
    for (const entry of [...undone].reverse())
      for (const change of entry.identities ?? []) records.set(`${change[1]}|${change[0]}`, change);
    for (const [unit, source, before] of records.values()) {
      if (before) this.ingestor.setIdentity(before);
      else this.ingestor.setIdentity(unit, source);
    }
    for (const unit of new Set([...records.values()].map(([unit]) => unit))) this.nameFromRecords(unit);
    const at = kept.at(-1);
    const tip: ChainTip = { slot: point.slot, id: point.id, height: at?.height ?? this.base?.height ?? 0 };
    const lpSet: [number, string][] = [];
    const lpRemove: number[] = [...deleted].filter((id) => this.lp.has(id));
    for (const [id, lp] of lpBack) {
      if (lp === undefined) lpRemove.push(id);
      else lpSet.push([id, lp.toString()]);
    }
    try {
      await this.ingestor.commit({
        removeTradesAfter: slotTime(point.slot),
        rollbackTo: { slot: point.slot, id: point.id, blockTime: slotTime(point.slot) },
        meta: { [TIP_META]: JSON.stringify(tip) },
        journal: { removeAfter: point.slot },
        chainLp: { set: lpSet, remove: lpRemove },
      });
    } catch (error) {
      if (this.ingestor.dirty) this.ingestor.rollback();
      throw error;
    }
    for (const id of lpRemove) this.lp.delete(id);
    for (const [id, lp] of lpSet) this.lp.set(id, BigInt(lp));
    this.committedTip = tip;
    this.tipPoint = tip;
    this.journal = kept;
    this.log(`chain: rolled back ${undone.length} block(s) to slot ${point.slot}`, {
      slot: point.slot,
      block: point.id,
      blocks: undone.length,
    });
    return undone.length;
  }

  /**
   * Why a rollback to `point` is not one this source takes, or undefined when it is: the committed tip,
   * a row of the journal, or its base. A market with nothing committed takes only its start (or anything,
   * when no start was given: it has nothing to lose).
   */
  private refusal(point: ChainPoint): string | undefined {
    const tip = this.committedTip;
    const base = this.base;
    const at = (slot: number) => `slot ${slot}`;
    if (!tip) {
      if (!base || (point.slot === base.slot && point.id === base.id)) return undefined;
      return point.slot < 0
        ? `the origin, before this market's start (${at(base.slot)})`
        : `${at(point.slot)} (${point.id}), not this market's start (${at(base.slot)}, ${base.id}); nothing is stored yet`;
    }
    if (point.slot < 0)
      return `the origin, while the market holds blocks up to ${at(tip.slot)}: a node never rolls back more than k = ${JOURNAL_BLOCKS} blocks`;
    if (point.slot > tip.slot) return `${at(point.slot)}, after the tip (${at(tip.slot)}): a point in the future`;
    const ours =
      point.slot === tip.slot
        ? tip
        : (this.journal.find((row) => row.slot === point.slot) ?? (base?.slot === point.slot ? base : undefined));
    if (ours)
      return ours.id === point.id
        ? undefined
        : `${at(point.slot)} names block ${point.id}, but ours there is ${ours.id}`;
    const oldest = base ?? this.journal[0];
    if (oldest === undefined || point.slot < oldest.slot)
      return `${at(point.slot)}, before the oldest point the journal can undo to (${oldest ? at(oldest.slot) : `the tip, ${at(tip.slot)}`}; it keeps ${JOURNAL_BLOCKS} blocks, k)`;
    return `${at(point.slot)}, where no block of this chain is`;
  }

  private applyInMemory(block: ChainBlock): BlockReport {
    const before = new Map<number, JournalPoolState>();
    const created = { tokens: [] as number[], pairs: [] as number[], pools: [] as number[] };
    const identities = new Map<string, JournalIdentity>();
    const time = slotTime(block.slot);
    let trades = 0;
    let liquidity = 0;
    let undecodable = 0;
    for (const tx of block.transactions) {
      for (const out of poolOutputs(tx, this.decoders)) {
        if ('error' in out) {
          this.coverage.record(out.group, time, false);
          undecodable++;
          this.undecodableOutputs.set(out.group, (this.undecodableOutputs.get(out.group) ?? 0) + 1);
          this.log(
            `chain: ${out.group} pool output ${tx.id}#${out.index} in block ${block.height} (slot ${block.slot}) skipped: ${out.error}`,
            {
              level: 'warn',
              slot: block.slot,
              block: block.id,
              height: block.height,
              dex: out.group,
              output: `${tx.id}#${out.index}`,
            },
          );
          continue;
        }
        const { state } = out;
        this.coverage.record(state.group, time, true);
        const pool = this.ingestor.market.pools.get(state.poolId);
        if (!pool) {
          this.createPool(state, created);
          continue;
        }
        const lpBefore = this.lp.get(pool.id);
        if (!before.has(pool.id) && !created.pools.includes(pool.id))
          before.set(pool.id, [
            pool.id,
            pool.baseReserve,
            pool.quoteReserve,
            lpBefore === undefined ? null : lpBefore.toString(),
          ]);
        this.setLp(pool.id, state.liquidity);
        const [base, quote] = oriented(pool, state);
        const change = classifyChange(
          { base: BigInt(Math.round(pool.baseReserve)), quote: BigInt(Math.round(pool.quoteReserve)) },
          { base, quote },
          lpBefore === undefined ? undefined : lpBefore !== state.liquidity,
        );
        if (change.kind === 'none') continue;
        if (change.kind === 'liquidity' || base <= 0n || quote <= 0n) {
          // A deposit or withdrawal; an emptied pool (every share withdrawn) has no price: its reserves only.
          this.ingestor.setReserves(pool, Math.max(0, Number(base)), Math.max(0, Number(quote)));
          liquidity++;
        } else {
          this.ingestor.swap(pool, Number(base), Number(quote), time, Number(change.volume), `${tx.id}#${out.index}`);
          trades++;
        }
      }
      // After the transaction's pools: a transaction that creates a token's pool and its reference NFT names it.
      for (const output of tx.outputs)
        for (const unit of output.assets.keys())
          // The cheap test first: most assets are not reference NFTs, and nothing of theirs is decoded.
          if (unit.startsWith(REFERENCE_LABEL, ASSET_NAME_AT)) this.referenceSeen(unit, output, tx, block, identities);
    }
    this.pendingTrades += trades;
    const made = created.tokens.length + created.pairs.length + created.pools.length;
    this.pushRow(block, [...before.values()], made > 0 ? created : undefined, [...identities.values()]);
    return { trades, liquidity, created: created.pools.length, undecodable };
  }

  /**
   * A CIP-68 reference NFT in an output: its datum names the fungible token of the same policy and name body (see the
   * rules above). `journal` keeps, per record, what it was before the block.
   */
  private referenceSeen(
    referenceUnit: string,
    output: ChainOutput,
    tx: ChainTx,
    block: ChainBlock,
    journal: Map<string, JournalIdentity>,
  ): void {
    const ftUnit = fungibleUnitOf(referenceUnit);
    const datum = datumOf(output, tx);
    if (ftUnit === undefined || datum === undefined) return;
    const { market } = this.ingestor;
    const inMarket = market.tokens.has(ftUnit);
    const result = cip68Record(ftUnit, datum, slotTime(block.slot));
    if ('error' in result) {
      if (inMarket)
        this.log(
          `chain: reference NFT of ${ftUnit} in ${tx.id}#${output.index} (slot ${block.slot}): ${result.error}; the token keeps its identity`,
          { level: 'warn', slot: block.slot, block: block.id, output: `${tx.id}#${output.index}` },
        );
      return;
    }
    const { record } = result;
    if (!inMarket && record.ticker === undefined && record.decimals === undefined) return;
    const source: IdentitySourceName = 'cip68';
    const current = market.identities.get(ftUnit)?.get(source);
    if (current && sameRecord(current, record)) return;
    const key = `${source}|${ftUnit}`;
    if (!journal.has(key)) journal.set(key, [ftUnit, source, current ?? null]);
    this.ingestor.setIdentity(record);
    this.nameFromRecords(ftUnit);
  }

  /** A token of the market named as its identity records make it (in the pending commit); nothing when it is not in the market. */
  private nameFromRecords(unit: string): void {
    const token = this.ingestor.market.tokens.get(unit);
    if (!token) return;
    const { ticker, name, decimals } = identityOf(unit, this.ingestor.market.identityRecords(unit));
    if (ticker !== token.ticker || name !== token.name || decimals !== token.decimals)
      this.ingestor.updateToken(token, { ticker, name, decimals });
  }

  private pushRow(
    block: ChainBlockHeader,
    before: readonly JournalPoolState[],
    created: CreatedRows | undefined,
    identities: readonly JournalIdentity[] = [],
  ): void {
    this.pendingRows.push({
      slot: block.slot,
      id: block.id,
      height: block.height,
      before,
      ...(created ? { created } : {}),
      ...(identities.length > 0 ? { identities } : {}),
    });
    this.tipPoint = { slot: block.slot, id: block.id, height: block.height };
  }

  private setLp(id: number, lp: bigint): void {
    if (!this.lpCommitted.has(id)) this.lpCommitted.set(id, this.lp.get(id));
    this.lp.set(id, lp);
  }

  private checkFollows(block: ChainBlockHeader): void {
    const tip = this.tipPoint;
    if (tip && block.ancestor !== undefined && block.ancestor !== tip.id) {
      throw new ChainGapError(
        `block ${block.height} at slot ${block.slot} follows ${block.ancestor}, not the tip ${tip.id} (slot ${tip.slot})`,
      );
    }
  }

  private token(unit: string, created: { tokens: number[] }): Token {
    const known = this.ingestor.market.tokens.get(unit);
    if (known) return known;
    let token: Token;
    if (unit === ADA_UNIT) {
      token = this.ingestor.addToken({
        unit,
        ticker: ADA_TICKER,
        name: 'Cardano',
        decimals: ADA_DECIMALS,
        logoKind: LOGO_GENERATED,
      });
    } else if (this.ingestor.market.identities.has(unit)) {
      // Its sources spoke before its first pool: a reference NFT passed by, a registry entry imported or asked.
      const { ticker, name, decimals } = identityOf(unit, this.ingestor.market.identityRecords(unit));
      token = this.ingestor.addToken({ unit, ticker, name, decimals, logoKind: LOGO_NONE });
    } else {
      // Named as the registry importer names a token it has no ticker for; decimals 0 until a source
      // says otherwise (raw units in the store: decimals learnt later make every answer right).
      const { policyId, assetName } = splitTokenUnit(unit);
      const decoded = displayAssetName(assetName);
      const name =
        assetName !== '' && decoded !== assetName ? decoded : `${policyId.slice(0, 8)}…${assetName.slice(0, 8)}`;
      token = this.ingestor.addToken({
        unit,
        ticker: fallbackTicker(unit, name),
        name,
        decimals: 0,
        logoKind: LOGO_NONE,
      });
    }
    created.tokens.push(token.id);
    return token;
  }

  private createPool(state: PoolState, created: { tokens: number[]; pairs: number[]; pools: number[] }): Pool {
    const adaFirst = state.assetB === ADA_UNIT;
    const [baseUnit, quoteUnit, baseReserve, quoteReserve] = adaFirst
      ? [state.assetB, state.assetA, state.reserveB, state.reserveA]
      : [state.assetA, state.assetB, state.reserveA, state.reserveB];
    const base = this.token(baseUnit, created);
    const quote = this.token(quoteUnit, created);
    const pairs = this.ingestor.market.pairs.size;
    const pair = this.ingestor.ensurePair(base, quote);
    if (this.ingestor.market.pairs.size > pairs) created.pairs.push(pair.id);
    const pool = this.ingestor.addPool(pair, {
      poolId: state.poolId,
      group: state.group,
      baseReserve: Number(baseReserve),
      quoteReserve: Number(quoteReserve),
      feeBps: state.feeBps,
      simulated: false,
    });
    created.pools.push(pool.id);
    this.setLp(pool.id, state.liquidity);
    return pool;
  }
}

/** A decoded state's reserves as (base, quote) of our pool's pair. */
function oriented(pool: Pool, state: PoolState): [bigint, bigint] {
  return pool.pair.base.unit === state.assetA ? [state.reserveA, state.reserveB] : [state.reserveB, state.reserveA];
}
