import type { Bar as WireBar } from '../shared/bars';
import { AGGREGATE_GROUP } from '../shared/groups';
import { secondsToMillis } from '../shared/time';
import { INTRADAY_MULTIPLIERS, SUPPORTED_RESOLUTIONS } from './resolution-map';
import type { CatalogSymbol } from './symbol-catalog';
import type { SearchRow } from './symbol-search';
import type { Bar as LibraryBar, LibrarySymbolInfo, SearchSymbolResultItem } from './tradingview-types';

/** Volumes carry millionths of a base unit on the wire (the service's integer volume unit). */
const VOLUME_PRECISION = 6;

/**
 * A bar (seconds) as the library's bar (milliseconds), keeping `tvl` (the pool's TVL after the bucket's
 * last trade, in base units) for a TVL study; the library ignores the extra field.
 */
export function toLibraryBar(bar: WireBar): LibraryBar & { readonly tvl: number } {
  return {
    time: secondsToMillis(bar.time),
    open: bar.open,
    high: bar.high,
    low: bar.low,
    close: bar.close,
    volume: bar.volume,
    tvl: bar.tvl,
  };
}

/**
 * A symbol as the library's LibrarySymbolInfo. Only Aggregate symbols stream (`data_status:
 * streaming`); the others have history but no live updates.
 */
export function toLibrarySymbolInfo(symbol: CatalogSymbol): LibrarySymbolInfo {
  const group = symbol.exchange;
  return {
    name: symbol.symbol,
    ticker: symbol.ticker,
    description: symbol.description,
    type: symbol.type || 'spot',
    session: symbol.session || '24x7',
    timezone: 'Etc/UTC',
    exchange: group,
    listed_exchange: group,
    format: 'price',
    pricescale: symbol.pricescale,
    minmov: symbol.minmov,
    has_intraday: symbol.hasIntraday,
    intraday_multipliers: [...INTRADAY_MULTIPLIERS],
    has_daily: true,
    daily_multipliers: ['1'],
    has_weekly_and_monthly: false,
    has_empty_bars: false,
    supported_resolutions: symbol.hasIntraday
      ? [...SUPPORTED_RESOLUTIONS]
      : SUPPORTED_RESOLUTIONS.filter((r) => r.endsWith('D')),
    volume_precision: VOLUME_PRECISION,
    ...(group === AGGREGATE_GROUP ? { data_status: 'streaming' as const } : {}),
    currency_code: symbol.base,
  };
}

/** A search row as the library's search result. */
export function toSearchResultItem(row: SearchRow): SearchSymbolResultItem {
  return {
    symbol: row.symbol,
    full_name: `${row.exchange}:${row.symbol}`,
    description: row.description,
    exchange: row.exchange,
    ticker: row.ticker,
    type: row.type,
  };
}
