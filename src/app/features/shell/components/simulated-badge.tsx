import { useQuery } from '@tanstack/react-query';
import { useApi } from '../../../providers/app-providers';
import { gatewayInfoQueryOptions } from '../api/gateway-info';

/** How long ago, in words: "12 s", "4 min", "3 h". */
function lagText(seconds: number): string {
  if (seconds < 120) return `${Math.round(seconds)} s`;
  if (seconds < 7_200) return `${Math.round(seconds / 60)} min`;
  return `${Math.round(seconds / 3_600)} h`;
}

/**
 * Where the prices come from (/gw/v1/info): a warning badge for the embedded market simulator; for the
 * chain source, its state and how far it is behind the node; for imported data only, a plain badge.
 */
export function SimulatedBadge() {
  const api = useApi();
  const info = useQuery({ ...gatewayInfoQueryOptions(api), refetchInterval: (query) => (query.state.data?.market?.source === 'chain' ? 15_000 : false) });
  const market = info.data?.market;
  if (info.data?.simulated) {
    return (
      <span className="badge badge--warning" data-testid="simulated-badge" title="Prices, trades and pools are produced by the embedded simulator, not the real chain">
        Simulated market
      </span>
    );
  }
  if (market?.source === 'chain') {
    const chain = market.chain;
    const state = chain?.state ?? 'connecting';
    const lag = chain?.lagSeconds;
    return (
      <span className="badge" data-testid="source-badge" title={`Following the Cardano chain through Ogmios${chain?.tipSlot != null ? ` (slot ${chain.tipSlot})` : ''}`}>
        Cardano chain · {state}
        {lag != null ? ` · ${lagText(lag)} behind` : ''}
      </span>
    );
  }
  if (market?.source === 'none') {
    return (
      <span className="badge" data-testid="source-badge" title="Only imported trades: no live source">
        Imported data
      </span>
    );
  }
  return null;
}
