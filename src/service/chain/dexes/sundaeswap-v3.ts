import { amountOf } from '../block';
import { bytes, DatumError, int, type PlutusData } from '../plutus';
import { assetOfPolicy, poolDatum, type DexDecoder } from './types';

/**
 * SundaeSwap V3 (group `SundaeSwapV3`), its constant-product pools. Read from the contracts,
 * SundaeSwap-finance/sundae-contracts (Aiken), and the mainnet deployment as IndigoProtocol/dexter
 * (src/dex/sundaeswap-v3.ts) and IndigoProtocol/iris (src/dex/SundaeSwapV3Analyzer.ts) list it:
 * - the pool script e0302560… is also the policy of the pool's tokens (it mints them); each pool holds
 *   one NFT named with the CIP-68 (222) prefix `000de140` + the pool identifier (lib/shared.ak
 *   `pool_nft_name`). Its unit is our pool ID. The LP tokens (prefix `0014df10`) are held by users.
 * - inline datum (lib/types/pool.ak `PoolDatum`): Constr 0 [identifier, [[policyA, nameA],
 *   [policyB, nameB]], circulating_lp, bid_fees_per_10_thousand, ask_fees_per_10_thousand,
 *   fee_manager, market_open, protocol_fees]; the assets are a list of two lists, not constructors.
 * - reserves (validators/pool.ak `has_expected_pool_value`): the pool's lovelace is exactly
 *   protocol_fees plus, when asset A is ADA, reserve A; the other reserves are the token amounts. So
 *   for an ADA pool reserve A = lovelace − protocol_fees, and for a token/token pool the lovelace is
 *   all protocol fees (its min-ADA too) and trades on neither side.
 * - the fee is in basis points, one for each direction (bid: A → B, ask: B → A); we keep the larger.
 * Left out: SundaeSwap's stableswap pools and other deployments (another script and policy, e.g.
 * 4de79a0c… for stableswaps, SundaeSwap-finance/sundae-sdk Contract.Stableswaps.ts): not matched.
 */
const POOL_POLICY = 'e0302560ced2fdcbfcb2602697df970cd0d6a38f94b32703f51c312b';
/** CIP-68 label 222 (`000de140`): the pool NFT's name prefix (lib/shared.ak `pool_nft_name`). */
const NFT_PREFIX = `${POOL_POLICY}000de140`;

/** The datum's `[policy, name]` pair (a plain list) as a unit ('' for ADA). */
function listAsset(data: PlutusData | undefined, what: string): string {
  if (!Array.isArray(data) || data.length !== 2) throw new DatumError(`${what}: not a [policy, name] list`);
  const pair = data as readonly PlutusData[];
  return bytes(pair[0], `${what} policy`) + bytes(pair[1], `${what} name`);
}

export const sundaeSwapV3: DexDecoder = {
  group: 'SundaeSwapV3',
  isPool: (output) => assetOfPolicy(output, NFT_PREFIX) !== undefined,
  decode(output, tx) {
    const nft = assetOfPolicy(output, NFT_PREFIX);
    if (!nft) throw new DatumError('SundaeSwapV3 pool without its pool NFT');
    const datum = poolDatum(output, tx, 'SundaeSwapV3');
    if (nft[0] !== NFT_PREFIX + bytes(datum.fields[0], 'pool identifier'))
      throw new DatumError('SundaeSwapV3 pool NFT does not match the datum identifier');
    const assets = datum.fields[1];
    if (!Array.isArray(assets) || assets.length !== 2)
      throw new DatumError('SundaeSwapV3 pool assets: not a list of two assets');
    const pair = assets as readonly PlutusData[];
    const assetA = listAsset(pair[0], 'asset A');
    const assetB = listAsset(pair[1], 'asset B');
    const liquidity = int(datum.fields[2], 'circulating LP');
    const bid = int(datum.fields[3], 'bid fee');
    const ask = int(datum.fields[4], 'ask fee');
    const protocolFees = int(datum.fields[7], 'protocol fees');
    if (protocolFees < 0n) throw new DatumError('SundaeSwapV3 protocol fees are negative');
    // The lovelace that is not protocol fees is reserve A (ADA sorts first); a token side is its amount.
    const reserve = (unit: string) => (unit === '' ? output.lovelace - protocolFees : amountOf(output, unit));
    const reserveA = reserve(assetA);
    const reserveB = reserve(assetB);
    if (reserveA < 0n || reserveB < 0n) throw new DatumError("SundaeSwapV3 protocol fees larger than the pool's ADA");
    return {
      group: 'SundaeSwapV3',
      poolId: nft[0],
      assetA,
      assetB,
      reserveA,
      reserveB,
      liquidity,
      feeBps: Number(bid > ask ? bid : ask),
    };
  },
};
