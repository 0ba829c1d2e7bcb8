import { amountOf } from '../block';
import { DatumError, int } from '../plutus';
import { poolDatum, type DexDecoder } from './types';

/**
 * A VyFi pool, as VyFi's own pool list describes it (https://api.vyfi.io/lp?networkId=1, its `json`
 * field: `mainNFT`, `aAsset`, `bAsset`, `feesSettings`). Every VyFi pool has its own validator, order
 * address and NFT policy (the validator is parameterised by the NFT), and its datum does not name its
 * assets: nothing on chain tells a VyFi pool output from another script output without this list
 * (IndigoProtocol/dexter src/dex/vyfinance.ts: "VyFinance pools are not easily identifiable
 * on-chain"; iris's VyFiAnalyzer and Charli3-Official/charli3-dendrite dexs/amm/vyfi.py read the list
 * from the API).
 */
export interface VyFiPool {
  /** `mainNFT.currencySymbol`: the policy of the pool's NFT (its name is empty), held by the pool output. */
  readonly nftPolicy: string;
  /** Units of `aAsset` and `bAsset` ('' is ADA): the order of the datum's bar-fee fields. */
  readonly assetA: string;
  readonly assetB: string;
  /** `feesSettings.barFee + feesSettings.liqFee`, in basis points (dexter's and iris's pool fee). */
  readonly feeBps: number;
}

/**
 * The VyFi pools known here, each from a real mainnet transaction in a public repository:
 * - ADA/VYFI: transaction 39d10447… (maestro-org/maestro-cardano-indexer
 *   services/mapi/tests/polyphony_integration_tests.rs, its full CBOR; tests/fixtures/chain/README.md):
 *   output 0 holds the NFT of policy c285d6d7… with ADA and VYFI (policy 804f5544…, `VYFI`), and the
 *   transaction mints that pool's LP token `VyFi_ADA/VYFI_LP`: A is ADA, B is VYFI (the bar fee of B
 *   is in VYFI: see docs/chain.md, the LP tokens minted agree with it to the unit). Fee 0.3 %, of which
 *   0.1 % to the Bar (VyFi, "A Dive into the BAR", vyfinance.medium.com/a-dive-into-the-bar-8fbde5acbb04).
 */
export const KNOWN_VYFI_POOLS: readonly VyFiPool[] = [
  {
    nftPolicy: 'c285d6d7e61163b7f7a918f28e450e37d55dc684450d87b96750d8db',
    assetA: '',
    assetB: '804f5544c1962a40546827cab750a88404dc7108c0f588b72964754f56594649',
    feeBps: 30,
  },
];

/**
 * A VyFi decoder for the given pools (group `VyFi`). A pool output holds its NFT (policy, empty
 * name: the unit is the policy; our pool ID) and a datum by hash (dendrite `VyFiPoolDatum`):
 * Constr 0 [barFeeA, barFeeB, totalLpTokens]. barFeeA/B are the Bar's share of the swap fees the pool
 * has collected in A and B and not yet served to the Bar ("Embedded Liquidity Pool", VyFi's BAR
 * article above): they sit in the output but do not trade. Reserves = the output's amounts of A and
 * B less barFeeA and barFeeB (dendrite `VyFiCPPState.post_init` subtracts the same). totalLpTokens is
 * the LP supply issued (the pool holds no LP tokens: they are minted and burnt on deposits and
 * withdrawals).
 */
export function vyFiDecoder(pools: readonly VyFiPool[]): DexDecoder {
  const byNft = new Map(pools.map((pool) => [pool.nftPolicy, pool]));
  const poolOf = (assets: ReadonlyMap<string, bigint>): VyFiPool | undefined => {
    for (const [unit, amount] of assets) {
      const pool = amount === 1n ? byNft.get(unit) : undefined;
      if (pool) return pool;
    }
    return undefined;
  };
  return {
    group: 'VyFi',
    isPool: (output) => poolOf(output.assets) !== undefined,
    decode(output, tx) {
      const pool = poolOf(output.assets);
      if (!pool) throw new DatumError('VyFi pool without its pool NFT');
      const datum = poolDatum(output, tx, 'VyFi');
      if (datum.fields.length !== 3) throw new DatumError(`VyFi pool datum has ${datum.fields.length} fields, expected 3`);
      const barFeeA = int(datum.fields[0], 'bar fee A');
      const barFeeB = int(datum.fields[1], 'bar fee B');
      const liquidity = int(datum.fields[2], 'total LP tokens');
      if (barFeeA < 0n || barFeeB < 0n || liquidity < 0n) throw new DatumError('VyFi pool datum has a negative amount');
      const reserveA = amountOf(output, pool.assetA) - barFeeA;
      const reserveB = amountOf(output, pool.assetB) - barFeeB;
      if (reserveA < 0n || reserveB < 0n) throw new DatumError('VyFi bar fees larger than the pool');
      return { group: 'VyFi', poolId: pool.nftPolicy, assetA: pool.assetA, assetB: pool.assetB, reserveA, reserveB, liquidity, feeBps: pool.feeBps };
    },
  };
}

/** The VyFi decoder registered in DECODERS: the pools of KNOWN_VYFI_POOLS. */
export const vyFi: DexDecoder = vyFiDecoder(KNOWN_VYFI_POOLS);
