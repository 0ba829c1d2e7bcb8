import { gatewayUrl } from '@/shared/api/gateway-urls';
import { GATEWAY_PREFIX } from '@/shared/api/gateway-prefix';

/** A group's statistics through the gateway (the service's /api/x/group-stats, or derived from spec endpoints). */
export const GROUP_STATS_PATH = '/group-stats';

/**
 * The URL of the overview's first request for `group`: built by the same function as the gateway
 * client's, without zod, so the page's first paint (src/app/first-paint.ts) can ask it before
 * the app's code has loaded.
 */
export function groupStatsUrl(group: string): string {
  return gatewayUrl(GATEWAY_PREFIX, GROUP_STATS_PATH, { group });
}
