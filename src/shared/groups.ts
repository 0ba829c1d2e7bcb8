/** The DEX groups, named as the real service names them (decisions "Groups"). */
export const DEX_GROUPS = [
  'Minswap',
  'MinswapV2',
  'SundaeSwap',
  'SundaeSwapV3',
  'WingRiders',
  'WingRidersV2',
  'Spectrum',
  'Splash',
  'MuesliSwap',
  'VyFi',
] as const;

export type DexGroup = (typeof DEX_GROUPS)[number];

/** The special group whose pools sum the reserves of every pool of a pair. */
export const AGGREGATE_GROUP = 'Aggregate';

export type GroupName = DexGroup | typeof AGGREGATE_GROUP;

export const ALL_GROUPS: readonly GroupName[] = [...DEX_GROUPS, AGGREGATE_GROUP];

export function isGroupName(value: string): value is GroupName {
  return (ALL_GROUPS as readonly string[]).includes(value);
}

/** The group `value` names in any letter case (`aggregate`, `MINSWAP`), or undefined when none does. */
export function groupNamed(value: string): GroupName | undefined {
  const lower = value.toLowerCase();
  return ALL_GROUPS.find((group) => group.toLowerCase() === lower);
}
