import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useMemo } from 'react';
import { deepestOf } from '@/app/lib/first-chart';
import { gatewayInfoQueryOptions } from '@/app/api/gateway-info';
import { provisionalSymbolInfo, resolvedSymbolQueryOptions } from '@/app/api/resolve-symbol';
import { useApi, useDatafeed, useSelection } from '@/app/providers/app-providers';

/**
 * The pair the page shows: the URL's symbol (a name, a pool ID or a ticker) resolved through the
 * datafeed, or, without one, the group's deepest pool as /gw/v1/info names it (a few hundred bytes,
 * instead of the group's symbol list); a stand-in meanwhile, so the chart loads at once; the URL
 * rewritten to the symbol's canonical name once it is known.
 * - `current`: the resolved pair, kept while the next one resolves (undefined after an error);
 * - `fresh`: the resolved pair of the URL as it is now;
 * - `chartInfo`: what the chart draws (the resolved symbol, or its stand-in).
 */
export function usePair() {
  const datafeed = useDatafeed();
  const api = useApi();
  const queryClient = useQueryClient();
  const group = useSelection((s) => s.group);
  const symbol = useSelection((s) => s.symbol);
  const view = useSelection((s) => s.view);
  const select = useSelection((s) => s.select);
  // The overview needs no symbol: nothing is resolved (no symbol list loaded) while it is shown.
  const resolved = useQuery({
    ...resolvedSymbolQueryOptions(datafeed, symbol, group),
    placeholderData: keepPreviousData,
    enabled: view === 'chart',
  });
  const current = resolved.isError ? undefined : resolved.data;
  const fresh = resolved.isPlaceholderData ? undefined : current;
  const info = useQuery(gatewayInfoQueryOptions(api));
  const deepest = symbol === undefined ? deepestOf(info.data, group) : undefined;
  const provisional = useMemo(() => provisionalSymbolInfo(symbol ?? deepest), [symbol, deepest]);

  // The URL names the symbol canonically (a ticker or an empty symbol becomes the symbol's name).
  useEffect(() => {
    const data = resolved.data;
    if (!data || resolved.isPlaceholderData || view !== 'chart') return;
    if (symbol === data.info.name && group === data.info.exchange) return;
    queryClient.setQueryData(resolvedSymbolQueryOptions(datafeed, data.info.name, data.info.exchange).queryKey, data);
    select({ symbol: data.info.name, group: data.info.exchange }, { replace: true });
  }, [resolved.data, resolved.isPlaceholderData, symbol, group, datafeed, queryClient, select, view]);

  return { resolved, current, fresh, chartInfo: fresh?.info ?? provisional, info: info.data };
}

export type PairState = ReturnType<typeof usePair>;
