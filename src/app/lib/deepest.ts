import type { GatewayInfo } from '../../shared/api/gateway';

/** The pool ID of a group's deepest pool, when the gateway names it (group names match in any case). */
export function deepestOf(info: Pick<GatewayInfo, 'deepest'> | undefined, group: string): string | undefined {
  const deepest = info?.deepest;
  if (!deepest) return undefined;
  const key = Object.keys(deepest).find((g) => g.toLowerCase() === group.toLowerCase());
  return key === undefined ? undefined : deepest[key];
}

