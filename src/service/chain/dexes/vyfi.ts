import { PaymentScripts } from '../address';
import { amountOf, type ChainOutput } from '../block';
import { DatumError, int } from '../plutus';
import { poolDatum, type DexDecoder } from './types';
import { BUNDLED_VYFI_POOLS, type VyFiPool } from './vyfi-pools';

export type { VyFiPool } from './vyfi-pools';

/**
 * The lovelace every VyFi pool output keeps beside its reserves: kitelabs-io/iris
 * src/dex/VyFiAnalyzer.ts gives each VyFi pool state `minAda: 2_000_000`, and real transactions trade
 * as if it were not there (docs/chain.md, VyFi: a swap and a withdrawal reproduced to the unit only
 * without it; the VYFI/xVYFI pool holds exactly these 2 ADA).
 */
const POOL_MIN_LOVELACE = 2_000_000n;

/**
 * A VyFi decoder for the pools of a list (group `VyFi`; vyfi-pools.ts says why a list). A pool output
 * is recognised by its address alone: the payment credential is the validator of a listed pool
 * (whatever the stake part). What it must then hold, or it is a DatumError (counted undecodable, never
 * a wrong state):
 * - its pool NFT: the one token of quantity 1 that is neither of the listed assets (the NFT's unit is
 *   our pool ID; VyFi's NFTs have an empty name, so it is their policy). None, or more than one such
 *   token (which is the NFT would be a guess), is a DatumError;
 * - no other token: a token that is neither asset nor of quantity 1 means the pool does not hold the
 *   pair the list gives its validator (a wrong or stale list);
 * - each listed token while LP tokens are out (a pool with liquidity holds both reserves);
 * - a datum by hash (dendrite `VyFiPoolDatum`): Constr 0 [barFeeA, barFeeB, totalLpTokens]. barFeeA/B
 *   are the Bar's share of the swap fees the pool has collected in A and B and not yet served to the
 *   Bar ("Embedded Liquidity Pool", VyFi's "A Dive into the BAR"): they sit in the output but do not
 *   trade. Reserves = the output's amounts of A and B less barFeeA and barFeeB (dendrite
 *   `VyFiCPPState.post_init` subtracts the same), and an ADA side also less the 2 ADA every pool keeps
 *   (POOL_MIN_LOVELACE). totalLpTokens is the LP supply issued (the pool holds no LP tokens: they are
 *   minted and burnt on deposits and withdrawals).
 * `isPool` is one Map lookup of the address's payment script (address.ts: its bech32 characters, not
 * decoded; an address paying to a key is refused on its first character); `decode`, run on the outputs
 * it took, looks the pool up again.
 */
export function vyFiDecoder(pools: readonly VyFiPool[]): DexDecoder {
  const byValidator = new PaymentScripts(pools.map((pool) => [pool.validator, pool] as const));
  const poolAt = (output: ChainOutput): VyFiPool | undefined => byValidator.get(output.address);
  return {
    group: 'VyFi',
    isPool: (output) => poolAt(output) !== undefined,
    decode(output, tx) {
      const pool = poolAt(output);
      if (!pool) throw new DatumError('VyFi: not at the address of a listed pool validator');
      const poolId = poolNft(output, pool);
      const datum = poolDatum(output, tx, 'VyFi');
      if (datum.fields.length !== 3)
        throw new DatumError(`VyFi pool datum has ${datum.fields.length} fields, expected 3`);
      const barFeeA = int(datum.fields[0], 'bar fee A');
      const barFeeB = int(datum.fields[1], 'bar fee B');
      const liquidity = int(datum.fields[2], 'total LP tokens');
      if (barFeeA < 0n || barFeeB < 0n || liquidity < 0n) throw new DatumError('VyFi pool datum has a negative amount');
      if (liquidity > 0n) {
        for (const unit of [pool.assetA, pool.assetB]) {
          if (unit !== '' && amountOf(output, unit) === 0n)
            throw new DatumError(`VyFi pool with LP tokens out holds none of its listed asset ${unit}`);
        }
      }
      const kept = (unit: string) => (unit === '' ? POOL_MIN_LOVELACE : 0n);
      const reserveA = amountOf(output, pool.assetA) - barFeeA - kept(pool.assetA);
      const reserveB = amountOf(output, pool.assetB) - barFeeB - kept(pool.assetB);
      if (reserveA < 0n || reserveB < 0n) throw new DatumError('VyFi bar fees larger than the pool (less its 2 ADA)');
      return {
        group: 'VyFi',
        poolId,
        assetA: pool.assetA,
        assetB: pool.assetB,
        reserveA,
        reserveB,
        liquidity,
        feeBps: pool.feeBps,
      };
    },
  };
}

/** The unit of a pool output's NFT (see vyFiDecoder), or a DatumError saying what the output holds instead. */
function poolNft(output: ChainOutput, pool: VyFiPool): string {
  const ones: string[] = [];
  for (const [unit, amount] of output.assets) {
    if (unit === pool.assetA || unit === pool.assetB) continue;
    if (amount !== 1n)
      throw new DatumError(
        `VyFi pool holds ${amount} of ${unit}, neither of the assets its list gives it (${pool.assetA || 'ADA'}, ${pool.assetB || 'ADA'})`,
      );
    ones.push(unit);
  }
  const [nft, ...others] = ones;
  if (nft === undefined)
    throw new DatumError('VyFi pool without its pool NFT (no token of quantity 1 beside its two assets)');
  if (others.length > 0)
    throw new DatumError(
      `VyFi pool NFT ambiguous: ${ones.length} tokens of quantity 1 beside its two assets (${ones.slice(0, 3).join(', ')}${ones.length > 3 ? ', …' : ''})`,
    );
  return nft;
}

/** The VyFi decoder registered in DECODERS: the pools of the bundled list (vyfi-pools.json). */
export const vyFi: DexDecoder = vyFiDecoder(BUNDLED_VYFI_POOLS.pools);
