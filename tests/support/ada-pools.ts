import type { Ingestor } from '../../src/service/market/ingest';
import { LOGO_NONE, type Pool } from '../../src/service/market/model';
import { ADA_UNIT } from '../../src/shared/id-rules';

export interface UnknownTokenPool {
  /** The token's unit (policy ID + asset name). */
  readonly unit: string;
  /** What the chain source makes of it when nothing is known: its asset name as ticker and name. */
  readonly ticker: string;
  readonly poolId: string;
  /** ADA (lovelace) and token (raw units) reserves. */
  readonly lovelace: number;
  readonly tokens: number;
}

/**
 * A token nothing is known of yet (its asset name as ticker and name, 0 decimals), as a chain source first meets it,
 * in a Minswap V2 pool against ADA (added to the market when missing); committed by the caller.
 */
export function addUnknownTokenPool(ingestor: Ingestor, pool: UnknownTokenPool): Pool {
  const ada =
    ingestor.market.tokens.get(ADA_UNIT) ??
    ingestor.addToken({ unit: ADA_UNIT, ticker: 'ADA', name: 'Cardano', decimals: 6, logoKind: LOGO_NONE });
  const token = ingestor.addToken({
    unit: pool.unit,
    ticker: pool.ticker,
    name: pool.ticker,
    decimals: 0,
    logoKind: LOGO_NONE,
  });
  return ingestor.addPool(ingestor.ensurePair(ada, token), {
    poolId: pool.poolId,
    group: 'MinswapV2',
    baseReserve: pool.lovelace,
    quoteReserve: pool.tokens,
    feeBps: 30,
    simulated: false,
  });
}
