import { barsFromEvents, rollupBars, type Bar } from '../../shared/bars';
import { AGGREGATE_GROUP } from '../../shared/groups';
import { bucketStart, RESOLUTION_SECONDS, RESOLUTIONS, type Resolution } from '../../shared/resolutions';
import { all, get, IdList, rows, run, values, type Param, type Program } from './program';
import type { AggregateColumns, AggregateReplay, CommitBatch, CreatedRows, PairTradeRow } from './ports';
import { bool, num } from './rows';
import * as S from './statements';

/**
 * The store's rules, written once for both engines as programs (program.ts): how a commit is applied,
 * how a rollback cuts the trades, how the buckets an older trade touches are folded again, how a
 * pair's Aggregate columns are computed again, and how every bar is rebuilt. Each engine runs them in
 * one transaction (sql-store.ts); none of them knows which engine it runs on.
 */

/** Applies a batch (see `CommitBatch`), its steps in this order. */
export function* commitPlan(batch: CommitBatch): Program<void> {
  if (batch.removeTradesAfter !== undefined) yield* removeTradesAfter(batch.removeTradesAfter);
  if (batch.remove) yield* removeRows(batch.remove);
  yield* rows(
    S.INSERT_TOKENS,
    (batch.tokens ?? []).flatMap((t) => [t.id, t.unit, t.ticker, t.name, t.decimals, t.logoKind]),
  );
  yield* rows(
    S.UPDATE_TOKENS,
    (batch.tokenUpdates ?? []).flatMap((t) => [t.id, t.ticker, t.name, t.decimals]),
  );
  for (const [unit, source] of batch.identities?.remove ?? []) yield* run(S.DELETE_IDENTITY, [unit, source]);
  yield* rows(
    S.SET_IDENTITIES,
    (batch.identities?.set ?? []).flatMap((r) => [
      r.unit,
      r.source,
      r.name ?? null,
      r.ticker ?? null,
      r.decimals ?? null,
      r.description ?? null,
      r.url ?? null,
      r.logo ?? null,
      r.at,
    ]),
  );
  yield* rows(
    S.SET_LOGOS,
    (batch.logos ?? []).flatMap((l) => [l.id, l.kind, l.kind === 0 ? null : l.png, l.key ?? null]),
  );
  yield* rows(
    S.INSERT_PAIRS,
    (batch.pairs ?? []).flatMap((p) => [p.id, p.base, p.quote]),
  );
  yield* rows(
    S.INSERT_POOLS,
    (batch.pools ?? []).flatMap((p) => [
      p.id,
      p.poolId,
      p.group,
      p.pairId,
      p.n,
      p.feeBps,
      p.baseReserve,
      p.quoteReserve,
      p.simulated,
    ]),
  );
  // In the batch's order: seq follows ingest order.
  const trades: Param[] = [];
  for (const r of batch.trades ?? []) {
    trades.push(
      r.eventId,
      r.pool,
      r.agg,
      r.blockTime,
      r.prevPrice,
      r.price,
      r.prevTvl,
      r.tvl,
      r.volume,
      r.aggPrevPrice,
      r.aggPrice,
      r.aggPrevTvl,
      r.aggTvl,
    );
  }
  yield* rows(S.INSERT_TRADES, trades);
  if (batch.bars) {
    const bars: number[] = [];
    for (const { series, resolution, bar } of batch.bars.entries())
      pushBar(bars, series, RESOLUTION_SECONDS[resolution], bar);
    yield* rows(S.MERGE_BARS, bars);
  }
  const changed = new Map<number, number[]>();
  for (const r of batch.reaggregate ?? []) changed.set(r.agg, yield* reaggregate(r.agg, r.pools, r.from, r.replay));
  for (const { series, aggregate, times } of mergeRefolds(batch.refold, changed))
    yield* refoldBuckets(series, aggregate, times);
  if (batch.barsStale === true) yield* rows(S.SET_META, [S.BARS_STALE, '1']);
  else if (batch.barsStale === false) yield* run(S.CLEAR_META, [S.BARS_STALE]);
  yield* rows(
    S.SET_RESERVES,
    (batch.reserves ?? []).flatMap((r) => [r.id, r.base, r.quote]),
  );
  yield* rows(S.SET_META, Object.entries(batch.meta ?? {}).flat());
  if (batch.simState) {
    const { height, nextBlockTime, fair } = batch.simState;
    yield* run(S.SAVE_SIM, [height, nextBlockTime, fair]);
  }
  if (batch.journal) {
    const { removeAfter, append = [], removeBefore } = batch.journal;
    if (removeAfter !== undefined) yield* run(S.JOURNAL_REMOVE_AFTER, [removeAfter]);
    yield* rows(
      S.INSERT_JOURNAL,
      append.flatMap((row) => [
        row.slot,
        row.id,
        row.height,
        JSON.stringify(row.before),
        row.created ? JSON.stringify(row.created) : null,
        row.identities ? JSON.stringify(row.identities) : null,
      ]),
    );
    if (removeBefore !== undefined) yield* run(S.JOURNAL_REMOVE_BEFORE, [removeBefore]);
  }
  if (batch.chainLp) {
    yield* rows(S.DELETE_CHAIN_LP, batch.chainLp.remove ?? []);
    yield* rows(S.SET_CHAIN_LP, (batch.chainLp.set ?? []).flat());
  }
}

function pushBar(out: number[], series: number, res: number, bar: Bar): void {
  out.push(series, res, bar.time, bar.open, bar.high, bar.low, bar.close, bar.volume, bar.tvl);
}

/** See `CommitBatch.removeTradesAfter`: delete the later trades, fold their series' bars again from the cut. */
function* removeTradesAfter(after: number): Program<void> {
  const affected = yield* all(S.AFFECTED_SERIES, [after, after]);
  yield* run(S.DELETE_TRADES_AFTER, [after]);
  for (const { series, agg } of affected) yield* refoldFrom(num(series), bool(agg), after + 1);
}

/** See `CommitBatch.remove`: pools (those given and every pool of the pairs given), then pairs, then tokens. */
function* removeRows(created: CreatedRows): Program<void> {
  const pools = new Set(created.pools);
  for (const { id } of yield* all(S.POOLS_OF_PAIRS, [new IdList(created.pairs)])) pools.add(num(id));
  const ids = [...pools];
  yield* rows(S.DELETE_BARS_OF, ids);
  yield* rows(S.DELETE_CHAIN_LP, ids);
  yield* rows(S.DELETE_POOLS, ids);
  yield* rows(S.DELETE_PAIRS, created.pairs);
  yield* rows(S.DELETE_TOKENS, created.tokens);
}

/** Folds a series' bars of one resolution again in [start, end), from its stored trades in time order. */
function* refoldRange(
  series: number,
  aggregate: boolean,
  resolution: Resolution,
  start: number,
  end: number,
): Program<void> {
  const res = RESOLUTION_SECONDS[resolution];
  yield* run(S.DELETE_BARS_IN, [series, res, start, end]);
  const events = yield* values<number[]>(S.EVENTS_IN[S.sideOf(aggregate)], [series, start, end]);
  const bars: number[] = [];
  for (const bar of barsFromEvents(events.map(eventOf), resolution)) pushBar(bars, series, res, bar);
  yield* rows(S.INSERT_BARS, bars);
}

/** Folds a series' bars again in exactly the buckets holding `times`, at every resolution. */
function* refoldBuckets(series: number, aggregate: boolean, times: Iterable<number>): Program<void> {
  const list = [...times];
  for (const resolution of RESOLUTIONS)
    for (const [start, end] of bucketRuns(list, resolution))
      yield* refoldRange(series, aggregate, resolution, start, end);
}

/** Folds a series' bars again from the bucket holding `since` on. */
function* refoldFrom(series: number, aggregate: boolean, since: number): Program<void> {
  for (const resolution of RESOLUTIONS)
    yield* refoldRange(series, aggregate, resolution, bucketStart(since, resolution), Number.MAX_SAFE_INTEGER);
}

/**
 * See `CommitBatch.reaggregate`: the pair's Aggregate columns from `from` on, as its replay computes
 * them; returns the times of the trades whose columns changed (their buckets are folded again).
 */
function* reaggregate(agg: number, pools: readonly number[], from: number, replay: AggregateReplay): Program<number[]> {
  const before = new Map<number, { price: number; tvl: number }>();
  for (const pool of pools) {
    const last = yield* get(S.LAST_STATE_BEFORE, [pool, from]);
    if (last) before.set(pool, { price: num(last.price), tvl: num(last.tvl) });
  }
  const trades = (yield* all(S.PAIR_TRADES_FROM, [agg, from])).map(
    (r): PairTradeRow & AggregateColumns & { readonly blockTime: number } => ({
      seq: num(r.seq),
      pool: num(r.pool),
      blockTime: num(r.block_time),
      prevPrice: num(r.prev_price),
      price: num(r.price),
      prevTvl: num(r.prev_tvl),
      tvl: num(r.tvl),
      aggPrevPrice: num(r.agg_prev_price),
      aggPrice: num(r.agg_price),
      aggPrevTvl: num(r.agg_prev_tvl),
      aggTvl: num(r.agg_tvl),
    }),
  );
  const columns = replay(before, trades);
  if (columns.length !== trades.length)
    throw new Error(`reaggregate: ${columns.length} answers for ${trades.length} trades`);
  const updates: number[] = [];
  const changed: number[] = [];
  trades.forEach((trade, i) => {
    const c = columns[i] as AggregateColumns;
    if (sameColumns(trade, c)) return;
    updates.push(trade.seq, c.aggPrevPrice, c.aggPrice, c.aggPrevTvl, c.aggTvl);
    changed.push(trade.blockTime);
  });
  yield* rows(S.SET_AGGREGATE_COLUMNS, updates);
  return changed;
}

/** Trades folded between two reports of a rebuild's progress. */
const REBUILD_REPORT_EVERY = 50_000;

/**
 * Deletes every bar and folds every stored trade again, clearing the stale mark (see
 * `BarStore.rebuild`). Series by series in key order, so the bars table is written front to back and
 * memory holds one series at a time: 1min bars from the trades, each coarser resolution rolled up from
 * the one before. Reports progress every 50,000 trades; returns the trades folded and their total.
 */
export function* rebuildBars(
  onProgress?: (done: number, total: number) => void,
): Program<{ readonly done: number; readonly total: number }> {
  const total = num((yield* get(S.COUNT_TRADES))?.n ?? 0);
  yield* run(S.DELETE_ALL_BARS);
  const series = yield* all(S.SERIES, [AGGREGATE_GROUP]);
  let done = 0;
  let reported = 0;
  for (const row of series) {
    const id = num(row.id);
    const aggregate = bool(row.agg);
    const events = yield* values<number[]>(S.EVENTS[S.sideOf(aggregate)], [id]);
    if (events.length === 0) continue;
    const bars: number[] = [];
    // Fold the events once, into 1min bars; each coarser resolution is the rollup of the one before.
    let folded = barsFromEvents(events.map(eventOf), RESOLUTIONS[0] as Resolution);
    for (const resolution of RESOLUTIONS) {
      if (resolution !== RESOLUTIONS[0]) folded = rollupBars(folded, resolution);
      const res = RESOLUTION_SECONDS[resolution];
      for (const bar of folded) pushBar(bars, id, res, bar);
    }
    yield* rows(S.INSERT_BARS, bars);
    // A DEX pool's trades are also its Aggregate's: each trade counts once, as its pool's.
    if (!aggregate) done += events.length;
    if (done - reported >= REBUILD_REPORT_EVERY) {
      reported = done;
      onProgress?.(done, total);
    }
  }
  yield* run(S.CLEAR_META, [S.BARS_STALE]);
  return { done, total };
}

/** A row of `EVENTS` as a bar event. */
function eventOf(row: readonly unknown[]) {
  return {
    block_time: num(row[0]),
    previous_price: num(row[1]),
    current_price: num(row[2]),
    current_tvl: num(row[3]),
    volume: num(row[4]),
  };
}

/**
 * The buckets holding `times` at `resolution`, as runs of adjacent buckets: `[start, end)` in Unix
 * seconds, ascending. What a re-fold of exactly the touched buckets reads and rewrites.
 */
export function bucketRuns(times: Iterable<number>, resolution: Resolution): [number, number][] {
  const span = RESOLUTION_SECONDS[resolution];
  const starts = [...new Set([...times].map((time) => bucketStart(time, resolution)))].sort((a, b) => a - b);
  const runs: [number, number][] = [];
  for (const start of starts) {
    const last = runs.at(-1);
    if (last !== undefined && last[1] === start) last[1] = start + span;
    else runs.push([start, start + span]);
  }
  return runs;
}

/** Whether a trade's stored Aggregate columns are those given (exactly). */
function sameColumns(stored: AggregateColumns, next: AggregateColumns): boolean {
  return (
    stored.aggPrevPrice === next.aggPrevPrice &&
    stored.aggPrice === next.aggPrice &&
    stored.aggPrevTvl === next.aggPrevTvl &&
    stored.aggTvl === next.aggTvl
  );
}

/**
 * A batch's re-folds with the times of the trades whose Aggregate columns `reaggregate` changed (by
 * Aggregate series) added to their series': every bucket whose trades changed, once.
 */
function mergeRefolds(
  refold: CommitBatch['refold'],
  changed: ReadonlyMap<number, readonly number[]>,
): { series: number; aggregate: boolean; times: Set<number> }[] {
  const merged = new Map<string, { series: number; aggregate: boolean; times: Set<number> }>();
  const add = (series: number, aggregate: boolean, times: Iterable<number>) => {
    const key = `${aggregate ? 'a' : 'p'}${series}`;
    const entry = merged.get(key) ?? { series, aggregate, times: new Set<number>() };
    for (const time of times) entry.times.add(time);
    merged.set(key, entry);
  };
  for (const r of refold ?? []) add(r.series, r.aggregate, r.times);
  for (const [agg, times] of changed) if (times.length > 0) add(agg, true, times);
  return [...merged.values()];
}
