import { useQuery } from '@tanstack/react-query';
import { useApi } from '@/app/providers/app-providers';
import { gatewayInfoQueryOptions } from '@/app/api/gateway-info';
import { sourceBadgeOf } from '../lib/source-badge';

/**
 * Where the prices come from (/gw/v1/info, lib/source-badge.ts): a warning badge for the embedded
 * market simulator; for the chain source, its state and how far it is behind the node; for imported
 * data only, a plain badge.
 */
export function SimulatedBadge() {
  const api = useApi();
  const info = useQuery({
    ...gatewayInfoQueryOptions(api),
    refetchInterval: (query) => (query.state.data?.market?.source === 'chain' ? 15_000 : false),
  });
  const badge = sourceBadgeOf(info.data);
  if (!badge) return null;
  return (
    <span className={badge.warning ? 'badge badge--warning' : 'badge'} data-testid={badge.testId} title={badge.title}>
      {badge.text}
    </span>
  );
}
