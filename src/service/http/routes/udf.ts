import { Hono } from 'hono';
import { historyResponseSchema } from '../../../shared/api/history';
import {
  UDF_QUOTES_MAX,
  UDF_RESOLUTIONS,
  type UdfConfig,
  type UdfHistoryResponse,
  type UdfQuote,
  type UdfQuoteValues,
  type UdfQuotesResponse,
  type UdfSearchItem,
  type UdfSymbol,
} from '../../../shared/api/udf';
import { ALL_GROUPS } from '../../../shared/groups';
import type { Resolution } from '../../../shared/resolutions';
import { isAggregate, poolPrice, type Market, type Pool } from '../../market/model';
import { DAY, priceChange } from '../../market/stats';
import type { SymbolNames } from '../../market/symbols';
import { wholeBase, wholePrice } from '../../market/units';
import type { BarStore, TradeStore, WindowStats } from '../../store/ports';
import { priceError } from '../errors';
import { guard, type GuardOptions, type ServiceEnv } from '../guard';
import type { HistoryCache } from '../history-cache';
import { pricescaleFor, type SymbolInfoCache } from '../symbol-info-cache';
import { findSymbol } from './price';

/**
 * TradingView's UDF protocol (the stock `UDFCompatibleDatafeed` of the Charting Library) under /udf:
 * a translation layer over the same market, bars and limits as /api/v1, which keeps the spec's shapes.
 * `/config`, `/time`, `/symbols`, `/search`, `/history` as TradingView documents them, with its
 * resolution names and `no_data` + `nextTime` for empty ranges (docs/udf.md).
 */

/** TradingView resolution names and ours. */
const RESOLUTIONS: Readonly<Record<string, Resolution>> = {
  '1': '1min',
  '5': '5min',
  '15': '15min',
  '60': '60min',
  '1D': '1d',
  D: '1d',
  '1440': '1d',
};

export interface UdfRoutesOptions extends GuardOptions {
  readonly market: Market;
  readonly symbols: SymbolNames;
  readonly bars: BarStore;
  readonly trades: TradeStore;
  readonly history: HistoryCache;
  readonly symbolInfo: SymbolInfoCache;
  readonly nowMs: () => number;
}

/** A symbol as the UDF `/symbols` answers it (TradingView's LibrarySymbolInfo fields). */
function symbolInfo(pool: Pool, symbols: SymbolNames): UdfSymbol {
  return {
    name: symbols.name(pool),
    ticker: pool.poolId,
    description: symbols.description(pool),
    type: 'spot',
    session: '24x7',
    exchange: pool.group,
    listed_exchange: pool.group,
    timezone: 'Etc/UTC',
    format: 'price',
    minmov: 1,
    pricescale: pricescaleFor(poolPrice(pool)),
    has_intraday: true,
    has_daily: true,
    has_weekly_and_monthly: false,
    supported_resolutions: [...UDF_RESOLUTIONS],
    intraday_multipliers: ['1', '5', '15', '60'],
    volume_precision: 6,
    data_status: 'streaming',
    currency_code: pool.pair.base.ticker,
  };
}

/** `EXCHANGE:SYMBOL` as TradingView may send it: the part after the colon. */
function withoutExchange(symbol: string): string {
  const colon = symbol.indexOf(':');
  return colon === -1 ? symbol : symbol.slice(colon + 1);
}

export function udfRoutes(options: UdfRoutesOptions): Hono<ServiceEnv> {
  const { market, symbols, bars, trades, history, nowMs } = options;
  const app = new Hono<ServiceEnv>({ strict: false });
  const auth = guard(options, 'price');

  app.get('/config', auth, (c) =>
    c.json<UdfConfig>({
      supported_resolutions: [...UDF_RESOLUTIONS],
      supports_group_request: false,
      supports_marks: false,
      supports_timescale_marks: false,
      supports_search: true,
      supports_time: true,
      exchanges: [
        { value: '', name: 'All DEXs', desc: '' },
        ...ALL_GROUPS.map((g) => ({ value: g, name: g, desc: g })),
      ],
      symbols_types: [
        { name: 'All types', value: '' },
        { name: 'Spot', value: 'spot' },
      ],
    }),
  );

  app.get('/time', auth, (c) => c.text(String(Math.floor(nowMs() / 1000))));

  // UDF's group request: every symbol of a group, columnar (the spec's /symbol_info is this shape).
  app.get('/symbol_info', auth, (c) => {
    const requested = c.req.query('group')?.trim();
    if (!requested) return priceError(c, 400, 'group is required');
    const group = ALL_GROUPS.find((g) => g.toLowerCase() === requested.toLowerCase());
    if (group === undefined)
      return priceError(c, 404, `unknown group ${requested.slice(0, 100)} (known: ${ALL_GROUPS.join(', ')})`);
    c.header('Cache-Control', 'private, max-age=60');
    c.header('Content-Type', 'application/json');
    return c.body(options.symbolInfo.get(group).json);
  });

  app.get('/symbols', auth, (c) => {
    const symbol = c.req.query('symbol');
    if (!symbol) return priceError(c, 400, 'symbol is required');
    const pool = findSymbol(market, symbols, withoutExchange(symbol.trim()));
    if (!pool) return priceError(c, 404, 'unknown_symbol');
    return c.json(symbolInfo(pool, symbols));
  });

  app.get('/search', auth, (c) => {
    const query = (c.req.query('query') ?? '').trim().toLowerCase();
    const exchange = c.req.query('exchange') ?? '';
    const type = c.req.query('type') ?? '';
    const limitRaw = Number(c.req.query('limit') ?? '30');
    const limit = Number.isInteger(limitRaw) && limitRaw > 0 ? Math.min(limitRaw, 100) : 30;
    if (type !== '' && type !== 'spot') return c.json([]);
    const found: UdfSearchItem[] = [];
    for (const pool of market.poolsById.values()) {
      if (exchange !== '' && pool.group.toLowerCase() !== exchange.toLowerCase()) continue;
      const name = symbols.name(pool);
      if (query !== '' && !name.toLowerCase().includes(query) && !pool.poolId.startsWith(query)) continue;
      found.push({
        symbol: name,
        full_name: `${pool.group}:${name}`,
        description: symbols.description(pool),
        exchange: pool.group,
        ticker: pool.poolId,
        type: 'spot',
      });
      if (found.length >= limit) break;
    }
    return c.json(found);
  });

  // A watchlist's quotes: the price now and the last 24 hours of each symbol, in one request.
  app.get('/quotes', auth, async (c) => {
    const raw = c.req.query('symbols');
    if (raw === undefined || raw.trim() === '') return priceError(c, 400, 'symbols is required');
    const names = raw.split(',').map((n) => n.trim());
    if (names.some((n) => n === '')) return priceError(c, 400, 'symbols must not hold an empty name');
    if (names.length > UDF_QUOTES_MAX)
      return priceError(c, 400, `at most ${UDF_QUOTES_MAX} symbols a request (${names.length} given)`);
    const pools = names.map((n) => findSymbol(market, symbols, withoutExchange(n)));
    const now = nowMs() / 1000;
    const found = [...new Set(pools.filter((p): p is Pool => p !== undefined))];
    // The 24 h window's opening price and volume: one store query for the pools, one for the Aggregates.
    const windows = new Map<Pool, WindowStats | undefined>();
    for (const aggregate of [false, true]) {
      const group = found.filter((p) => isAggregate(p) === aggregate);
      if (group.length === 0) continue;
      const stats = await trades.windowStats(
        group.map((p) => p.id),
        aggregate,
        now - DAY,
      );
      for (const pool of group) windows.set(pool, stats.get(pool.id));
    }
    const quotes = new Map<Pool, UdfQuoteValues>();
    for (const pool of found) {
      const lp = poolPrice(pool);
      const day = windows.get(pool);
      const open = day?.price !== undefined ? wholePrice(pool.pair, day.price) : lp;
      const [high, low] = await dayRange(pool, now, [open, lp]);
      quotes.set(pool, {
        short_name: symbols.name(pool),
        exchange: pool.group,
        description: symbols.description(pool),
        lp,
        ch: lp - open,
        chp: priceChange(lp, open),
        open_price: open,
        high_price: high,
        low_price: low,
        prev_close_price: open,
        volume: wholeBase(pool.pair, day?.volume ?? 0),
      });
    }
    c.header('Cache-Control', 'private, max-age=5');
    return c.json<UdfQuotesResponse>({
      s: 'ok',
      d: names.map((n, i): UdfQuote => {
        const pool = pools[i];
        const v = pool && quotes.get(pool);
        return v ? { s: 'ok', n, v } : { s: 'error', n, v: {} };
      }),
    });
  });

  /**
   * Highest and lowest price of a pool over the 24 h before `now`, `also` included: minute bars for the part of the
   * window before its first whole hour, hourly bars after.
   */
  async function dayRange(pool: Pool, now: number, also: readonly number[]): Promise<[number, number]> {
    const start = now - DAY;
    const hour = Math.ceil(start / 3600) * 3600;
    const [minutes, hours] = await Promise.all([
      bars.range(pool.id, '1min', Math.ceil(start / 60) * 60, hour),
      bars.range(pool.id, '60min', hour, now + 1),
    ]);
    let high = Math.max(...also);
    let low = Math.min(...also);
    for (const [, , h, l] of [...minutes, ...hours]) {
      high = Math.max(high, wholePrice(pool.pair, h));
      low = Math.min(low, wholePrice(pool.pair, l));
    }
    return [high, low];
  }

  app.get('/history', auth, async (c) => {
    const q = c.req.query();
    const resolution = RESOLUTIONS[q.resolution ?? ''];
    if (!q.symbol) return priceError(c, 400, 'symbol is required');
    if (!resolution) return priceError(c, 400, `resolution must be one of ${UDF_RESOLUTIONS.join(', ')}`);
    const from = Number(q.from);
    const to = Number(q.to);
    // TradingView's adapter sends countback=0 when it wants the range only (found by running it).
    const countback = q.countback === undefined || q.countback === '0' ? undefined : Number(q.countback);
    if (!Number.isFinite(to) || (countback === undefined && !Number.isFinite(from)))
      return priceError(c, 400, 'from and to must be Unix seconds');
    if (countback !== undefined && !(Number.isInteger(countback) && countback > 0))
      return priceError(c, 400, 'countback must be a whole number of bars (0: the range only)');
    if (countback === undefined && from > to) return priceError(c, 400, 'from must not be later than to');
    const pool = findSymbol(market, symbols, withoutExchange(q.symbol.trim()));
    if (!pool) return priceError(c, 404, 'unknown_symbol');
    // TradingView asks for [from, to) and, with countback, for that many bars before `to` at least.
    let start = Math.floor(from);
    if (countback !== undefined) {
      const back = await bars.countbackStart(pool.id, resolution, to, countback);
      start = Number.isFinite(from) ? Math.min(start, back ?? start) : (back ?? to);
    }
    const { pieces } = await history.body(pool.id, resolution, start, to, false);
    const body = historyResponseSchema.parse(
      JSON.parse(Buffer.concat(pieces.map((p) => Buffer.from(p))).toString('utf8')),
    );
    if (body.t.length > 0) return c.json(body);
    // Nothing in the range: where the data before it ends, so the chart can jump there.
    const previous = await bars.countbackStart(pool.id, resolution, start, 1);
    return c.json<UdfHistoryResponse>(previous === undefined ? { s: 'no_data' } : { s: 'no_data', nextTime: previous });
  });

  return app;
}
