import type { GatewayLiquidity, GatewayTokenNames } from '../shared/api/gateway';
import { ALL_GROUPS } from '../shared/groups';
import { poolPrice, poolTvl, pairKey, type Market } from '../service/market/model';

/**
 * TVL of every symbol of a group in the embedded market, in base units and valued in ADA (a token/token
 * pair's base is valued at its Aggregate price against ADA; without an ADA pair, 0).
 */
export function marketLiquidity(market: Market, group: string | undefined): GatewayLiquidity | undefined {
  const canonical = group === undefined ? undefined : ALL_GROUPS.find((g) => g.toLowerCase() === group.toLowerCase());
  if (canonical === undefined) return undefined;
  const body: GatewayLiquidity = { s: 'ok', ticker: [], tvl: [], tvl_ada: [] };
  const pools = [...market.poolsById.values()].filter((p) => p.group === canonical).sort((a, b) => a.id - b.id);
  for (const pool of pools) {
    const tvl = poolTvl(pool);
    const base = pool.pair.base;
    let adaPerBase = 1;
    if (base.unit !== '') {
      const adaPair = market.pairs.get(pairKey('', base.unit));
      adaPerBase = adaPair ? poolPrice(adaPair.aggregate) : 0;
    }
    body.ticker.push(pool.poolId);
    body.tvl.push(tvl);
    body.tvl_ada.push(tvl * adaPerBase);
  }
  return body;
}

/** Every token of the embedded market but ADA, with its ticker and name, in store order. */
export function marketTokenNames(market: Market): GatewayTokenNames {
  const body: GatewayTokenNames = { s: 'ok', unit: [], ticker: [], name: [] };
  for (const token of market.tokens.values()) {
    if (token.unit === '') continue;
    body.unit.push(token.unit);
    body.ticker.push(token.ticker);
    body.name.push(token.name);
  }
  return body;
}
