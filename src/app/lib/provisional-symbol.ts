import type { LibrarySymbolInfo } from '@/datafeed';
import { historyTarget } from '@/app/lib/first-chart';
import { parseSymbolName } from '@/shared/symbols';

/**
 * A stand-in for a symbol that is still being resolved, enough for getBars (which takes a symbol name
 * or pool ID): the chart draws history while the group's symbol list loads. `pricescale` 0 means
 * "not known yet" (the chart derives one from the prices). Undefined when `target` is neither a symbol
 * name nor a pool ID (a token ticker needs the search). Its /history symbol (a pool ID in lower case)
 * is the one the page's first request is built with (shared/first-chart.ts's historyTarget).
 */
export function provisionalSymbolInfo(target: string | undefined): LibrarySymbolInfo | undefined {
  if (target === undefined) return undefined;
  const symbol = historyTarget(target);
  if (symbol === undefined) return undefined;
  const parsed = parseSymbolName(target);
  return {
    name: target,
    ...(parsed ? {} : { ticker: symbol }),
    description: target,
    type: 'spot',
    session: '24x7',
    timezone: 'Etc/UTC',
    exchange: parsed?.group ?? '',
    listed_exchange: parsed?.group ?? '',
    format: 'price',
    pricescale: 0,
    minmov: 1,
  };
}
