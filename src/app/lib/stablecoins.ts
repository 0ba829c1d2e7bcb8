/**
 * The USD stablecoins of Cardano, by their mainnet identities (token unit = policy ID + asset name
 * hex): where the app's ADA/USD rate comes from (the Aggregate of ADA against each one present). By
 * unit, never by ticker, so a token that merely calls itself `USDM` is not taken for it; the same
 * units hold for the simulator (its catalog uses them), the chain source and imported trades. DJED
 * and iUSD are in the CIP-26 registry under these units; USDM appears in real Minswap V2 swaps.
 */
export interface Stablecoin {
  readonly ticker: string;
  readonly name: string;
  /** Policy ID + asset name, lowercase hex. */
  readonly unit: string;
}

export const STABLECOINS: readonly Stablecoin[] = [
  // Moneta's USDM (a CIP-68 fungible token: asset name label 0014df10, then "USDM").
  { ticker: 'USDM', name: 'USDM', unit: 'c48cbb3d5e57ed56e276bc45f99ab39abe94e6cd7ac39fb402da47ad0014df105553444d' },
  // COTI's Djed ("DjedMicroUSD").
  {
    ticker: 'DJED',
    name: 'Djed USD',
    unit: '8db269c3ec630e06ae29f74bc39edd1f87c819f1056206e879a1cd61446a65644d6963726f555344',
  },
  // Indigo's iUSD.
  { ticker: 'iUSD', name: 'iUSD', unit: 'f66d78b4a3cb3d37afa0ec36461e51ecbde00f26c8f0a68f94b6988069555344' },
  // Anzens' USDA.
  { ticker: 'USDA', name: 'USDA', unit: 'fe7c786ab321f41c654ef6c1af7b3250a613c24e4213e0425a7ae45655534441' },
];

/** Whether a token unit (any case) is one of the USD stablecoins. */
export function isStablecoin(unit: string): boolean {
  const lower = unit.toLowerCase();
  return STABLECOINS.some((coin) => coin.unit === lower);
}
