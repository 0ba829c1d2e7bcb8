import { queryOptions } from '@tanstack/react-query';
import { tokenLogoSchema, type TokenLogo } from '@/shared/api/tokens';
import type { GatewayClient } from '@/datafeed';

/** GET /gw/v1/tokens/logo/<unit>: base64 PNG or null. Logos hardly change: kept for the session. */
export function tokenLogoQueryOptions(api: GatewayClient, unit: string) {
  return queryOptions({
    queryKey: ['token-logo', unit],
    queryFn: ({ signal }): Promise<TokenLogo> =>
      api.getOrThrow(`/tokens/logo/${encodeURIComponent(unit)}`, {}, tokenLogoSchema, signal),
    staleTime: Infinity,
    gcTime: 30 * 60_000,
    retry: false,
  });
}
