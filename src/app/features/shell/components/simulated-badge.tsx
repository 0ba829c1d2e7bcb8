import { useQuery } from '@tanstack/react-query';
import { useApi } from '../../../providers/app-providers';
import { gatewayInfoQueryOptions } from '../api/gateway-info';

/** A visible badge when the data come from the embedded market simulator (/gw/v1/info). */
export function SimulatedBadge() {
  const api = useApi();
  const info = useQuery(gatewayInfoQueryOptions(api));
  if (!info.data?.simulated) return null;
  return (
    <span className="badge badge--warning" data-testid="simulated-badge" title="Prices, trades and pools are produced by the embedded simulator, not the real chain">
      Simulated market
    </span>
  );
}
