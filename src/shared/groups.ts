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
