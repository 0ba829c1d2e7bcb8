import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { z } from 'zod';
import { tradeEventSchema } from '../../shared/api/stream';
import { DEX_GROUPS } from '../../shared/groups';
import { ADA_DECIMALS, ADA_TICKER, ADA_UNIT, isPoolId, isTokenUnit } from '../../shared/id-rules';
import type { Ingestor } from '../market/ingest';
import { rawBase, rawPrice } from '../market/units';
import {
  isAggregate,
  LOGO_GENERATED,
  LOGO_NONE,
  reservesAt,
  sumAggregate,
  type Market,
  type Pool,
  type Token,
} from '../market/model';
import type { MarketStore, TradeStore } from '../store/ports';

/**
 * Importer of trade history from a JSON Lines file (one JSON object per line). See docs/importers.md.
 *
 * Line kinds:
 * - token: `{"kind":"token","unit":"<policy+asset hex>","ticker":"SNEK","name":"Snek","decimals":0}`.
 *   `name` is optional (default: the ticker). Added when unknown; a known token is left as it is
 *   (the registry importer owns token metadata). ADA (unit "") is built in and needs no line.
 * - pool: `{"kind":"pool","pool_id":"<hex>","group":"MinswapV2","base":"","quote":"<unit>","fee_bps":30}`.
 *   `group` is a DEX group (not Aggregate); `base` is "" for ADA; `fee_bps` is optional (default 30).
 *   Both tokens must be known (declared earlier, or in the store). The pair (and its Aggregate pool)
 *   is created when new; the pool starts with zero reserves, set by its first trade. A pool that
 *   already exists with the same group and pair is accepted as is; any other clash is an error.
 * - trade (no `kind`, or `"kind":"trade"`): the stream's trading event plus a unique event id:
 *   `{"id":"tx1#0","block_time":1718000000,"pool_id":"<hex>","previous_price":0.0037,"current_price":0.00371,
 *   "previous_tvl":2000000,"current_tvl":2000400,"volume":200}`. Prices are whole base units per whole
 *   quote unit, TVL and volume whole base units (decisions "Units"); prices and TVLs must be positive,
 *   volume at least 0. Ids starting with `sim:` are reserved for the simulator.
 *
 * A trade's pool reserves follow from the event: base = TVL / 2 (constant product), quote = base / price,
 * both decimal-adjusted. The pool is first put in the state the event's previous_price/previous_tvl
 * imply (not recorded: liquidity moves between trades are not events), then the swap to the state of
 * current_price/current_tvl is ingested: the trade, the bars of the pool and of its pair's Aggregate.
 *
 * Rules:
 * - A trade whose id was ingested before (in the store or earlier in the file) is a duplicate: skipped
 *   and counted, not an error. So a re-run of the same file changes nothing.
 * - Trades may come in any order: one older than the latest stored or earlier trade of its pool or
 *   pair is stored, leaves the pool at its latest state, and the buckets holding its time are
 *   folded again from the stored trades at the next commit (bars fold trades in time order, ties
 *   in ingest order). Importing an earlier month after a later one gives the bars an in-order import
 *   gives. The Aggregate columns of a pair of several pools are computed at the commit from the
 *   stored trades in time order, so they too are those of an in-order import.
 * - A bad line (invalid JSON, wrong shape, unknown pool or token, Aggregate pool, non-positive price or
 *   TVL) is reported with its 1-based line number; every good line is kept. Blank lines
 *   are ignored.
 * - Trades are committed every `batchSize` (5,000) trades and at the end, each batch in one transaction.
 */

/** An opened store (`MarketHandle`), as the importer needs it. */
export interface TradesTarget {
  readonly store: { readonly trades: TradeStore; readonly market: Pick<MarketStore, 'meta'> };
  readonly market: Market;
  readonly ingestor: Ingestor;
}

export interface LineError {
  /** 1-based line number in the file. */
  readonly line: number;
  readonly reason: string;
}

/** What an import did. */
export interface TradesReport {
  /** Lines read, blank ones included. */
  lines: number;
  /** Token lines accepted, and how many of them added a token. */
  tokens: number;
  tokensAdded: number;
  /** Pool lines accepted, and how many of them added a pool. */
  pools: number;
  poolsAdded: number;
  /** Trades ingested. */
  trades: number;
  /** Trades skipped because their id was already ingested. */
  duplicates: number;
  /** Rejected lines (the first `maxErrors`; `errorCount` counts them all). */
  readonly errors: LineError[];
  errorCount: number;
}

export interface ImportTradesOptions {
  /** Trades per commit (default 5,000). */
  readonly batchSize?: number;
  /** Rejected lines kept in the report (default 1,000); the rest are only counted. */
  readonly maxErrors?: number;
  /** Called after every commit with the bytes read so far. */
  readonly onProgress?: (bytesRead: number) => void;
}

/** Default trades per commit. */
export const TRADE_BATCH_SIZE = 5_000;

/** Event ids the simulator uses; imported trades must not take them. */
const RESERVED_ID_PREFIX = 'sim:';

/** Default fee of a pool line without fee_bps. */
const DEFAULT_FEE_BPS = 30;

const tokenLineSchema = z.strictObject({
  kind: z.literal('token'),
  unit: z
    .string()
    .refine(
      isTokenUnit,
      'unit must be a policy ID (56 hex) followed by an asset name (0-64 hex, even length); ADA ("") is built in',
    ),
  ticker: z.string().trim().min(1, 'ticker must not be empty'),
  name: z.string().trim().min(1, 'name must not be empty').optional(),
  decimals: z.number().int('decimals must be a whole number').min(0).max(19),
});

const poolLineSchema = z.strictObject({
  kind: z.literal('pool'),
  pool_id: z.string().refine(isPoolId, 'pool_id must be non-empty, even-length hex of at most 128 characters'),
  group: z.enum(DEX_GROUPS, { error: `group must be one of ${DEX_GROUPS.join(', ')} (not Aggregate)` }),
  base: z.string().refine((v) => v === ADA_UNIT || isTokenUnit(v), 'base must be "" (ADA) or a token unit'),
  quote: z.string().refine(isTokenUnit, 'quote must be a token unit'),
  fee_bps: z.number().min(0).max(10_000).optional(),
});

const tradeLineSchema = z.strictObject({
  ...tradeEventSchema.shape,
  kind: z.literal('trade').optional(),
  id: z.string().min(1, 'id must not be empty'),
  block_time: z.number().int('block_time must be a whole number of seconds').min(0),
  volume: z.number().min(0, 'volume must not be negative'),
});

type TradeLine = z.infer<typeof tradeLineSchema>;

function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => (issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message))
    .join('; ');
}

/** Thrown for a line that is rejected; the message is the reason. */
class LineRejected extends Error {}

/**
 * Reads a JSON Lines file of token, pool and trade lines into the store (see the module comment for
 * the formats and rules) and returns what it did. Throws only when the file cannot be read or the
 * store fails; batches committed before that stay (a re-run skips them as duplicates).
 */
export async function importTrades(
  target: TradesTarget,
  file: string,
  options: ImportTradesOptions = {},
): Promise<TradesReport> {
  const batchSize = options.batchSize ?? TRADE_BATCH_SIZE;
  const maxErrors = options.maxErrors ?? 1_000;
  const { store, market, ingestor } = target;
  // Sources are never mixed (docs/decisions.md), and a chain rollback removes every trade after its point, imported ones too.
  if ((await store.market.meta('source')) === 'chain') {
    throw new Error(
      'this market follows the chain (--source chain): trades cannot be imported into it; import them into a data directory of their own (served with --source none)',
    );
  }
  const report: TradesReport = {
    lines: 0,
    tokens: 0,
    tokensAdded: 0,
    pools: 0,
    poolsAdded: 0,
    trades: 0,
    duplicates: 0,
    errors: [],
    errorCount: 0,
  };

  /** Latest trade time per pool and per Aggregate series (row id), stored or pending. */
  const latest = new Map<number, number>();
  const latestOf = async (pool: Pool): Promise<number | undefined> => {
    if (!latest.has(pool.id)) {
      const t = await store.trades.lastTradeTime(pool.id, isAggregate(pool));
      latest.set(pool.id, t ?? Number.NEGATIVE_INFINITY);
    }
    const t = latest.get(pool.id);
    return t === undefined || t === Number.NEGATIVE_INFINITY ? undefined : t;
  };

  // Reserves of the pools this batch moved, as last committed: setting a pool to its previous state
  // happens before the ingestor sees it, so the ingestor alone could not restore them on failure.
  const committed = new Map<Pool, [number, number]>();
  const commit = async () => {
    if (ingestor.dirty) await ingestor.commit();
    committed.clear();
  };
  const restore = () => {
    ingestor.rollback();
    for (const [pool, [base, quote]] of committed) {
      pool.baseReserve = base;
      pool.quoteReserve = quote;
      sumAggregate(pool.pair);
    }
    committed.clear();
  };

  const ada = (): Token =>
    market.tokens.get(ADA_UNIT) ??
    ingestor.addToken({
      unit: ADA_UNIT,
      ticker: ADA_TICKER,
      name: 'Cardano',
      decimals: ADA_DECIMALS,
      logoKind: LOGO_GENERATED,
    });

  const knownToken = (unit: string, role: string): Token => {
    if (unit === ADA_UNIT) return ada();
    const token = market.tokens.get(unit);
    if (!token) throw new LineRejected(`unknown ${role} token ${unit}: declare it with a token line first`);
    return token;
  };

  const tokenLine = (raw: unknown) => {
    const parsed = tokenLineSchema.safeParse(raw);
    if (!parsed.success) throw new LineRejected(`invalid token line: ${describeIssues(parsed.error)}`);
    const line = parsed.data;
    const unit = line.unit.toLowerCase();
    if (!market.tokens.has(unit)) {
      ingestor.addToken({
        unit,
        ticker: line.ticker,
        name: line.name ?? line.ticker,
        decimals: line.decimals,
        logoKind: LOGO_NONE,
      });
      report.tokensAdded++;
    }
    report.tokens++;
  };

  const poolLine = async (raw: unknown) => {
    const parsed = poolLineSchema.safeParse(raw);
    if (!parsed.success) throw new LineRejected(`invalid pool line: ${describeIssues(parsed.error)}`);
    const line = parsed.data;
    const poolId = line.pool_id.toLowerCase();
    const baseUnit = line.base.toLowerCase();
    const quoteUnit = line.quote.toLowerCase();
    if (baseUnit === quoteUnit) throw new LineRejected('base and quote must be different tokens');
    const existing = market.pools.get(poolId);
    if (existing) {
      if (isAggregate(existing)) throw new LineRejected(`pool ${poolId} is an Aggregate pool`);
      if (
        existing.group !== line.group ||
        existing.pair.base.unit !== baseUnit ||
        existing.pair.quote.unit !== quoteUnit
      ) {
        throw new LineRejected(
          `pool ${poolId} already exists as ${existing.group} ${existing.pair.base.ticker}/${existing.pair.quote.ticker} (${existing.pair.base.unit || 'ADA'} / ${existing.pair.quote.unit})`,
        );
      }
      report.pools++;
      return;
    }
    const base = knownToken(baseUnit, 'base');
    const quote = knownToken(quoteUnit, 'quote');
    // A new pool changes its Aggregate's sums: write pending trades first so they stay consistent.
    await commit();
    ingestor.addPool(ingestor.ensurePair(base, quote), {
      poolId,
      group: line.group,
      baseReserve: 0,
      quoteReserve: 0,
      feeBps: line.fee_bps ?? DEFAULT_FEE_BPS,
      simulated: false,
    });
    report.pools++;
    report.poolsAdded++;
  };

  const tradeLine = async (raw: unknown) => {
    const parsed = tradeLineSchema.safeParse(raw);
    if (!parsed.success) throw new LineRejected(`invalid trade line: ${describeIssues(parsed.error)}`);
    const line: TradeLine = parsed.data;
    if (line.id.startsWith(RESERVED_ID_PREFIX))
      throw new LineRejected(`ids starting with "${RESERVED_ID_PREFIX}" are reserved for the simulator`);
    // Before any other check, so that a re-run of a file reports duplicates, not order errors.
    if (await ingestor.has(line.id)) {
      report.duplicates++;
      return;
    }
    const poolId = line.pool_id.toLowerCase();
    const pool = market.pools.get(poolId);
    if (!pool) throw new LineRejected(`unknown pool ${poolId}: declare it with a pool line first`);
    if (isAggregate(pool))
      throw new LineRejected(`pool ${poolId} is an Aggregate pool; trades are recorded on DEX pools`);
    // The simulator trades its pools up to the present: an imported trade there would interleave with
    // simulated ones out of time order (and one dated later would stand before them in the bars).
    if (pool.simulated) {
      throw new LineRejected(
        `pool ${poolId} belongs to the simulated market; import real trades onto pools declared with a pool line`,
      );
    }
    for (const [field, value] of [
      ['previous_price', line.previous_price],
      ['current_price', line.current_price],
      ['previous_tvl', line.previous_tvl],
      ['current_tvl', line.current_tvl],
    ] as const) {
      if (!(value > 0)) throw new LineRejected(`${field} must be positive (got ${value})`);
    }
    // A trade older than its pool's (or its pair's) latest is accepted: it is stored, the pool keeps
    // its latest state, and the buckets holding its time are folded again from the stored trades at
    // the next commit (bars fold trades in time order). The Aggregate columns of a pair of
    // several pools are computed at the commit from the stored trades in time order (aggregateFromStore),
    // so the import order does not matter, to the bit.
    const aggregate = pool.pair.aggregate;
    const poolLatest = await latestOf(pool);
    const pairLatest = await latestOf(aggregate);
    const backdated =
      (poolLatest !== undefined && line.block_time < poolLatest) ||
      (pairLatest !== undefined && line.block_time < pairLatest);
    // The file's prices, TVLs and volume are in whole units of the decimals it declared: stored raw.
    const [prevBase, prevQuote] = reservesAt(
      rawPrice(pool.pair, line.previous_price),
      rawBase(pool.pair, line.previous_tvl),
    );
    const [base, quote] = reservesAt(rawPrice(pool.pair, line.current_price), rawBase(pool.pair, line.current_tvl));
    if (!committed.has(pool)) committed.set(pool, [pool.baseReserve, pool.quoteReserve]);
    const [latestBase, latestQuote] = [pool.baseReserve, pool.quoteReserve];
    pool.baseReserve = prevBase;
    pool.quoteReserve = prevQuote;
    sumAggregate(pool.pair);
    ingestor.swap(pool, base, quote, line.block_time, rawBase(pool.pair, line.volume), line.id, {
      backdated,
      aggregateFromStore: true,
    });
    if (backdated) {
      // The pool's present state stays the latest trade's.
      ingestor.setReserves(pool, latestBase, latestQuote);
    } else {
      latest.set(pool.id, line.block_time);
      latest.set(aggregate.id, line.block_time);
    }
    report.trades++;
  };

  const input = createReadStream(file);
  // Surface open errors (missing file) as a rejection of this function, not an unhandled event.
  await new Promise<void>((resolve, reject) => {
    input.once('open', () => resolve());
    input.once('error', reject);
  });
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  try {
    for await (const rawLine of lines) {
      report.lines++;
      const text = report.lines === 1 ? rawLine.replace(/^\uFEFF/, '') : rawLine;
      if (text.trim() === '') continue;
      try {
        let raw: unknown;
        try {
          raw = JSON.parse(text);
        } catch (error) {
          throw new LineRejected(`invalid JSON (${(error as Error).message})`);
        }
        if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
          throw new LineRejected('expected a JSON object');
        const kind = (raw as { kind?: unknown }).kind;
        if (kind === 'token') tokenLine(raw);
        else if (kind === 'pool') await poolLine(raw);
        else if (kind === undefined || kind === 'trade') await tradeLine(raw);
        else throw new LineRejected(`unknown kind ${JSON.stringify(kind)} (expected "token", "pool" or "trade")`);
      } catch (error) {
        if (!(error instanceof LineRejected)) throw error;
        report.errorCount++;
        if (report.errors.length < maxErrors) report.errors.push({ line: report.lines, reason: error.message });
      }
      if (ingestor.pendingCount >= batchSize) {
        await commit();
        options.onProgress?.(input.bytesRead);
      }
    }
    await commit();
    options.onProgress?.(input.bytesRead);
  } catch (error) {
    restore();
    throw error;
  } finally {
    lines.close();
    input.destroy();
  }
  return report;
}

/** The report as printable lines (the CLI's summary). */
export function formatTradesReport(report: TradesReport): string[] {
  const lines = [
    `Read ${report.lines} line(s): ${report.tokens} token line(s) (${report.tokensAdded} added), ` +
      `${report.pools} pool line(s) (${report.poolsAdded} added), ${report.trades} trade(s) ingested, ` +
      `${report.duplicates} duplicate(s) skipped, ${report.errorCount} line(s) rejected.`,
  ];
  if (report.errorCount > 0) {
    lines.push(`Rejected lines (${report.errorCount}):`);
    for (const { line, reason } of report.errors) lines.push(`  line ${line}: ${reason}`);
    const hidden = report.errorCount - report.errors.length;
    if (hidden > 0) lines.push(`  ... and ${hidden} more`);
  }
  return lines;
}
