/**
 * The best-known Cardano native tokens with their real public identities (policy ID, asset name,
 * ticker, name, decimals), an indicative price in ADA and how deep their markets are. The simulator
 * gives them the deepest pools; the rest of the market is generated.
 */
export interface CatalogToken {
  readonly policyId: string;
  readonly assetName: string;
  readonly ticker: string;
  readonly name: string;
  readonly decimals: number;
  /** Indicative price in ADA per whole token at the start of history. */
  readonly priceAda: number;
  /** Total ADA-side TVL across the token's ADA pools, in ADA. */
  readonly depthAda: number;
  /** Daily volatility of the fair price (0.01 = 1 %). */
  readonly dailyVolatility: number;
}

export const CATALOG: readonly CatalogToken[] = [
  { policyId: '279c909f348e533da5808898f87f9a14bb2c3dfbbacccd631d927a3f', assetName: '534e454b', ticker: 'SNEK', name: 'Snek', decimals: 0, priceAda: 0.0037, depthAda: 9_000_000, dailyVolatility: 0.05 },
  { policyId: '29d222ce763455e3d7a09a665ce554f00ac89d2e99a1a83d267170c6', assetName: '4d494e', ticker: 'MIN', name: 'Minswap', decimals: 6, priceAda: 0.032, depthAda: 5_000_000, dailyVolatility: 0.04 },
  { policyId: '533bb94a8850ee3ccbe483106489399112b74c905342cb1792a797a0', assetName: '494e4459', ticker: 'INDY', name: 'Indigo DAO Token', decimals: 6, priceAda: 1.1, depthAda: 3_000_000, dailyVolatility: 0.04 },
  { policyId: 'a0028f350aaabe0545fdcb56b039bfb08e4bb4d8c4d7c3c7d481c235', assetName: '484f534b59', ticker: 'HOSKY', name: 'HOSKY Token', decimals: 0, priceAda: 0.00000012, depthAda: 1_500_000, dailyVolatility: 0.06 },
  { policyId: 'f66d78b4a3cb3d37afa0ec36461e51ecbde00f26c8f0a68f94b69880', assetName: '69555344', ticker: 'iUSD', name: 'iUSD', decimals: 6, priceAda: 1.62, depthAda: 4_000_000, dailyVolatility: 0.025 },
  { policyId: '8db269c3ec630e06ae29f74bc39edd1f87c819f1056206e879a1cd61', assetName: '446a65644d6963726f555344', ticker: 'DJED', name: 'Djed USD', decimals: 6, priceAda: 1.6, depthAda: 4_500_000, dailyVolatility: 0.025 },
  { policyId: '8db269c3ec630e06ae29f74bc39edd1f87c819f1056206e879a1cd61', assetName: '5368656e4d6963726f555344', ticker: 'SHEN', name: 'Shen', decimals: 6, priceAda: 1.25, depthAda: 900_000, dailyVolatility: 0.03 },
  { policyId: '1d7f33bd23d85e1a25d87d86fac4f199c3197a2f7afeb662a0f34e1e', assetName: '776f726c646d6f62696c65746f6b656e', ticker: 'WMT', name: 'World Mobile Token', decimals: 6, priceAda: 0.36, depthAda: 2_500_000, dailyVolatility: 0.045 },
  { policyId: 'f43a62fdc3965df486de8a0d32fe800963589c41b38946602a0dc535', assetName: '41474958', ticker: 'AGIX', name: 'SingularityNet AGIX Token', decimals: 8, priceAda: 0.55, depthAda: 1_200_000, dailyVolatility: 0.05 },
  { policyId: '9a9693a9a37912a5097918f97918d15240c92ab729a0b7c4aa144d77', assetName: '53554e444145', ticker: 'SUNDAE', name: 'SUNDAE', decimals: 6, priceAda: 0.021, depthAda: 1_000_000, dailyVolatility: 0.05 },
  { policyId: 'c0ee29a85b13209423b10447d3c2e6a50641a15c57770e27cb9d5073', assetName: '57696e67526964657273', ticker: 'WRT', name: 'WingRiders Governance Token', decimals: 6, priceAda: 0.085, depthAda: 700_000, dailyVolatility: 0.05 },
  { policyId: 'da8c30857834c6ae7203935b89278c532b3995245295456f993e1d24', assetName: '4c51', ticker: 'LQ', name: 'Liqwid DAO Token', decimals: 6, priceAda: 2.1, depthAda: 1_100_000, dailyVolatility: 0.05 },
  { policyId: 'c48cbb3d5e57ed56e276bc45f99ab39abe94e6cd7ac39fb402da47ad', assetName: '0014df105553444d', ticker: 'USDM', name: 'USDM', decimals: 6, priceAda: 1.61, depthAda: 3_500_000, dailyVolatility: 0.025 },
  { policyId: 'fe7c786ab321f41c654ef6c1af7b3250a613c24e4213e0425a7ae456', assetName: '55534441', ticker: 'USDA', name: 'USDA', decimals: 6, priceAda: 1.61, depthAda: 1_800_000, dailyVolatility: 0.025 },
  { policyId: 'edfd7a1d77bcb8b884c474bdc92a16002d1fb720e454fa6e99344479', assetName: '4e5458', ticker: 'NTX', name: 'NuNet Utility Token', decimals: 6, priceAda: 0.065, depthAda: 800_000, dailyVolatility: 0.05 },
  { policyId: '8a1cfae21368b8bebbbed9800fec304e95cce39a2a57dc35e2e3ebaa', assetName: '4d494c4b', ticker: 'MILK', name: 'MILK', decimals: 0, priceAda: 0.45, depthAda: 300_000, dailyVolatility: 0.05 },
  { policyId: 'b6a7467ea1deb012808ef4e87b5ff371e85f7142d7b356a40d9b42a0', assetName: '436f726e75636f70696173205b76696120436861696e506f72742e696f5d', ticker: 'COPI', name: 'Cornucopias', decimals: 6, priceAda: 0.028, depthAda: 600_000, dailyVolatility: 0.05 },
  { policyId: '5dac8536653edc12f6f5e1045d8164b9f59998d3bdc300fc92843489', assetName: '4e4d4b52', ticker: 'NMKR', name: 'NMKR', decimals: 6, priceAda: 0.0045, depthAda: 350_000, dailyVolatility: 0.05 },
  { policyId: 'dda5fdb1002f7389b33e036b6afee82a8189becb6cba852e8b79b4fb', assetName: '47454e53', ticker: 'GENS', name: 'Genius Yield Token', decimals: 6, priceAda: 0.055, depthAda: 500_000, dailyVolatility: 0.05 },
  { policyId: '6ac8ef33b510ec004fe11585f7c5a9f0c07f0c23428ab4f29c1d7d10', assetName: '4d454c44', ticker: 'MELD', name: 'MELD', decimals: 6, priceAda: 0.018, depthAda: 450_000, dailyVolatility: 0.05 },
  { policyId: '5d16cc1a177b5d9ba9cfa9793b07e60f1fb70fea1f8aef064415d114', assetName: '494147', ticker: 'IAG', name: 'IAGON', decimals: 6, priceAda: 0.62, depthAda: 1_300_000, dailyVolatility: 0.05 },
];

/** Token/token pairs of the catalog that real DEXs list (base ticker, quote ticker). */
export const CATALOG_TOKEN_PAIRS: readonly (readonly [string, string])[] = [
  ['iUSD', 'DJED'],
  ['DJED', 'USDM'],
  ['iUSD', 'USDM'],
  ['USDM', 'USDA'],
  ['DJED', 'SHEN'],
  ['MIN', 'SNEK'],
  ['INDY', 'iUSD'],
  ['LQ', 'iUSD'],
  ['SNEK', 'HOSKY'],
];
