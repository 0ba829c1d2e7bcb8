import { queryOptions } from '@tanstack/react-query';
import { tokenLogoSchema, type TokenLogo } from '../../shared/api/tokens';
import type { ApiClient } from '../lib/api-client';

/** GET /gw/v1/tokens/logo/<unit>: base64 PNG or null. Logos hardly change: kept for the session. */
export function tokenLogoQueryOptions(api: ApiClient, unit: string) {
  return queryOptions({
    queryKey: ['token-logo', unit],
    queryFn: ({ signal }): Promise<TokenLogo> => api.get(`/tokens/logo/${encodeURIComponent(unit)}`, {}, tokenLogoSchema, signal),
    staleTime: Infinity,
    gcTime: 30 * 60_000,
    retry: false,
  });
}
