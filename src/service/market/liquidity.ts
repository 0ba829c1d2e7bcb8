import type { Liquidity, TokenNames } from '../../shared/api/extensions';
import { ALL_GROUPS } from '../../shared/groups';
import { poolPrice, poolTvl, pairKey, type Market, type Pool } from './model';

/**
 * TVL of every symbol of a group in the market, in base units and valued in ADA (a token/token
 * pair's base is valued at its Aggregate price against ADA; without an ADA pair, 0).
 */
export function marketLiquidity(market: Market, group: string | undefined): Liquidity | undefined {
  const canonical = group === undefined ? undefined : ALL_GROUPS.find((g) => g.toLowerCase() === group.toLowerCase());
  if (canonical === undefined) return undefined;
  const body: Liquidity = { s: 'ok', ticker: [], tvl: [], tvl_ada: [] };
  const pools = [...market.poolsById.values()].filter((p) => p.group === canonical).sort((a, b) => a.id - b.id);
  for (const pool of pools) {
    const tvl = poolTvl(pool);
    body.ticker.push(pool.poolId);
    body.tvl.push(tvl);
    body.tvl_ada.push(tvl * adaPerBase(market, pool));
  }
  return body;
}

/** ADA per whole unit of a pool's base token: 1 for ADA, the base's Aggregate price against ADA, else 0. */
export function adaPerBase(market: Market, pool: Pool): number {
  const base = pool.pair.base;
  if (base.unit === '') return 1;
  const adaPair = market.pairs.get(pairKey('', base.unit));
  return adaPair ? poolPrice(adaPair.aggregate) : 0;
}

/** The pool ID of each group's deepest pool (TVL valued in ADA, as /api/x/liquidity ranks them). */
export function marketDeepest(market: Market): Record<string, string> {
  const best = new Map<string, { poolId: string; tvl: number }>();
  for (const pool of market.poolsById.values()) {
    const tvl = poolTvl(pool) * adaPerBase(market, pool);
    const current = best.get(pool.group);
    if (!current || tvl > current.tvl) best.set(pool.group, { poolId: pool.poolId, tvl });
  }
  return Object.fromEntries([...best].map(([group, { poolId }]) => [group, poolId]));
}

/** Every token of the market but ADA, with its ticker and name, in store order. */
export function marketTokenNames(market: Market): TokenNames {
  const body: TokenNames = { s: 'ok', unit: [], ticker: [], name: [] };
  for (const token of market.tokens.values()) {
    if (token.unit === '') continue;
    body.unit.push(token.unit);
    body.ticker.push(token.ticker);
    body.name.push(token.name);
  }
  return body;
}
