/**
 * Where a pair's drawings are kept: one localStorage entry per symbol and group (the symbol's name is
 * the pool's, so each group's pool of a pair has drawings of its own). Its own small module: the page
 * asks `hasDrawings` before the drawings' chunk loads, to load it only where there is something to draw.
 */
export const DRAWINGS_PREFIX = 'cardano-dex-charts:drawings:';

export function drawingsKey(group: string, symbol: string): string {
  return `${DRAWINGS_PREFIX}${group}:${symbol}`;
}

/** Whether drawings are kept for this pair (false where storage cannot be read). */
export function hasDrawings(group: string, symbol: string): boolean {
  try {
    return globalThis.localStorage?.getItem(drawingsKey(group, symbol)) != null;
  } catch {
    return false;
  }
}
