import { queryOptions } from '@tanstack/react-query';
import type { LibrarySymbolInfo, SearchRow, UdfDatafeed } from '@/datafeed';
import { isPoolId } from '@/shared/id-rules';
import { parseSymbolName } from '@/shared/symbols';

/** A symbol as the app needs it: the library's info (chart) and the search row (tokens, TVL). */
export interface ResolvedSymbol {
  readonly info: LibrarySymbolInfo;
  readonly row: SearchRow;
}

/** The URL named a symbol that does not exist. */
export class UnknownSymbolError extends Error {
  override readonly name = 'UnknownSymbolError';
}

function resolveInfo(datafeed: UdfDatafeed, name: string): Promise<LibrarySymbolInfo> {
  return new Promise((resolve, reject) =>
    datafeed.resolveSymbol(name, resolve, (reason) =>
      reject(reason.startsWith('Unknown symbol') ? new UnknownSymbolError(reason) : new Error(reason)),
    ),
  );
}

const lower = (s: string) => s.toLowerCase();

/**
 * What the URL's `symbol` names: a symbol name (`ADA.SNEK_Aggregate_Pool1`), `GROUP:NAME`, a pool ID,
 * or a token ticker (`SNEK`, `ADA/SNEK`: the group's deepest pool of that pair). Undefined: the
 * group's deepest pool.
 */
export async function resolveSelection(
  datafeed: UdfDatafeed,
  symbol: string | undefined,
  group: string,
): Promise<ResolvedSymbol> {
  let name: string;
  if (symbol === undefined) {
    const [deepest] = await datafeed.search('', group, 1);
    if (!deepest) throw new UnknownSymbolError(`The group ${group} has no symbols`);
    name = deepest.symbol;
  } else if (parseSymbolName(symbol) || isPoolId(symbol) || symbol.includes(':')) {
    name = symbol;
  } else {
    const wanted = lower(symbol.replace('/', '.'));
    const rows = await datafeed.search(symbol, group, 50);
    const match = rows.find((r) => lower(r.quote) === wanted || lower(`${r.base}.${r.quote}`) === wanted);
    if (!match) throw new UnknownSymbolError(`Unknown symbol: ${symbol} (no pair of that ticker on ${group})`);
    name = match.symbol;
  }
  const info = await resolveInfo(datafeed, name);
  const row = await datafeed.lookup(info.ticker ?? name, info.exchange);
  if (!row) throw new UnknownSymbolError(`Unknown symbol: ${symbol ?? name}`);
  return { info, row };
}

export function resolvedSymbolQueryOptions(datafeed: UdfDatafeed, symbol: string | undefined, group: string) {
  return queryOptions({
    queryKey: ['resolved-symbol', group, symbol ?? ''],
    queryFn: () => resolveSelection(datafeed, symbol, group),
    staleTime: Infinity,
    retry: false,
  });
}

/** The pool of the same pair (same base and quote tokens) on `group` with the most TVL, if any. */
export async function findPairInGroup(
  datafeed: UdfDatafeed,
  row: SearchRow,
  group: string,
): Promise<SearchRow | undefined> {
  const rows = await datafeed.search(row.quoteUnit || row.symbol, group, 200);
  return rows.find(
    (r) =>
      r.baseUnit === row.baseUnit && r.quoteUnit === row.quoteUnit && r.exchange.toLowerCase() === group.toLowerCase(),
  );
}

export { provisionalSymbolInfo } from '@/app/lib/provisional-symbol';
