import { expect, type APIRequestContext } from '@playwright/test';
import { WIRE_RESOLUTION, type Bar } from './chart';

/** `''` = the Playwright project's baseURL; otherwise an absolute origin (a dedicated server). */
export type Origin = string;

/** Answer of the test-only control `POST /__test__/block`. */
export interface BlockAnswer {
  readonly trades: number;
  readonly height: number;
}

/** Makes the embedded market produce one block now (test-only control; at least one trade). */
export async function tradeNow(request: APIRequestContext, origin: Origin = ''): Promise<BlockAnswer> {
  const response = await request.post(`${origin}/__test__/block`);
  expect(response.status(), 'the server must run with --test-controls').toBe(200);
  return (await response.json()) as BlockAnswer;
}

/** A pool's statistics through the gateway (what the header starts from). */
export interface PoolStats {
  readonly current_price: number;
  readonly current_tvl: number;
  readonly daily_volume: number;
}

export async function poolStats(request: APIRequestContext, pool: string, origin: Origin = ''): Promise<PoolStats> {
  const response = await request.get(`${origin}/gw/v1/tokens/current?pool=${pool}`);
  expect(response.ok()).toBe(true);
  return (await response.json()) as PoolStats;
}

export interface PoolMove {
  /** Blocks produced until the pool traded. */
  readonly blocks: number;
  /** Date.now() just before the control was asked for the block that moved the pool. */
  readonly sentAt: number;
  /** Date.now() when the control answered for it (the trade is committed). */
  readonly at: number;
  readonly before: PoolStats;
  readonly after: PoolStats;
}

/**
 * Produces blocks until one of them trades `pool` (its statistics change over that block: a trade on
 * any pool of the pair moves the Aggregate's reserves). Only a few blocks in practice: the deepest
 * pairs trade most. `beforeBlock` runs before each block (e.g. to note what the page shows).
 */
export async function tradeUntilPoolMoves(
  request: APIRequestContext,
  pool: string,
  options: { origin?: Origin; maxBlocks?: number; beforeBlock?: () => Promise<void> } = {},
): Promise<PoolMove> {
  const { origin = '', maxBlocks = 200, beforeBlock } = options;
  for (let blocks = 1; blocks <= maxBlocks; blocks++) {
    const before = await poolStats(request, pool, origin);
    await beforeBlock?.();
    const sentAt = Date.now();
    await tradeNow(request, origin);
    const at = Date.now();
    const after = await poolStats(request, pool, origin);
    if (after.current_price !== before.current_price || after.daily_volume !== before.daily_volume)
      return { blocks, sentAt, at, before, after };
  }
  throw new Error(`${pool} did not trade in ${maxBlocks} blocks`);
}

/** Bars of /gw/v1/history with from <= t < to (app resolution: 1, 5, 15, 60, 1D), with TVL. */
export async function gatewayHistory(
  request: APIRequestContext,
  symbol: string,
  resolution: string,
  from: number,
  to: number,
  origin: Origin = '',
): Promise<Bar[]> {
  const wire = WIRE_RESOLUTION[resolution] ?? resolution;
  const response = await request.get(
    `${origin}/gw/v1/history?symbol=${encodeURIComponent(symbol)}&resolution=${wire}&from=${from}&to=${to}&include_tvl=true`,
  );
  expect(response.ok()).toBe(true);
  const body = (await response.json()) as {
    s: string;
    t?: number[];
    o?: number[];
    h?: number[];
    l?: number[];
    c?: number[];
    v?: number[];
    tvl?: number[];
  };
  if (body.s !== 'ok' || !body.t) return [];
  const { t, o = [], h = [], l = [], c = [], v = [], tvl = [] } = body;
  return t.map((time, i) => ({
    time,
    open: o[i] ?? NaN,
    high: h[i] ?? NaN,
    low: l[i] ?? NaN,
    close: c[i] ?? NaN,
    volume: v[i] ?? NaN,
    tvl: tvl[i] ?? NaN,
  }));
}

export interface SymbolRow {
  readonly symbol: string;
  readonly ticker: string;
}

/** A group's symbols (name and pool ID), deepest first as the gateway lists them. */
export async function groupSymbols(
  request: APIRequestContext,
  group: string,
  origin: Origin = '',
): Promise<SymbolRow[]> {
  const response = await request.get(`${origin}/gw/v1/symbol_info?group=${encodeURIComponent(group)}`);
  expect(response.ok()).toBe(true);
  const body = (await response.json()) as { symbol: string[]; ticker: string[] };
  return body.symbol.map((symbol, i) => ({ symbol, ticker: body.ticker[i] ?? '' }));
}

/** The pool ID of a symbol name of `group`. */
export async function poolOf(
  request: APIRequestContext,
  group: string,
  symbol: string,
  origin: Origin = '',
): Promise<string> {
  const row = (await groupSymbols(request, group, origin)).find((r) => r.symbol === symbol);
  expect(row, `${symbol} on ${group}`).toBeDefined();
  return row?.ticker ?? '';
}

/** The group's deepest pool by TVL (what `/` shows for the group). */
export async function deepestPool(
  request: APIRequestContext,
  group = 'Aggregate',
  origin: Origin = '',
): Promise<SymbolRow> {
  const liquidity = await request.get(`${origin}/gw/v1/liquidity?group=${encodeURIComponent(group)}`);
  expect(liquidity.ok()).toBe(true);
  const body = (await liquidity.json()) as { ticker: string[]; tvl_ada: number[] };
  let best = 0;
  body.tvl_ada.forEach((tvl, i) => {
    if (tvl > (body.tvl_ada[best] ?? -Infinity)) best = i;
  });
  const pool = body.ticker[best] ?? '';
  const row = (await groupSymbols(request, group, origin)).find((r) => r.ticker === pool);
  expect(row, `deepest pool ${pool} of ${group}`).toBeDefined();
  return row ?? { symbol: '', ticker: pool };
}
