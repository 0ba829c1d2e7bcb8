import { queryOptions } from '@tanstack/react-query';
import { gatewayInfoSchema } from '../../../../shared/api/gateway';
import type { ApiClient } from '../../../lib/api-client';

/** GET /gw/v1/info: where the data come from (the simulator badge). */
export function gatewayInfoQueryOptions(api: ApiClient) {
  return queryOptions({
    queryKey: ['gateway-info'],
    queryFn: ({ signal }) => api.get('/info', {}, gatewayInfoSchema, signal),
    staleTime: Infinity,
  });
}
