import { PaymentScripts } from '../address';
import { amountOf, type ChainOutput } from '../block';
import { DatumError, type PlutusData } from '../plutus';

/**
 * What the Spectrum and Splash decoders share. Splash is Spectrum's successor on Cardano (the same
 * team and code: splashprotocol/splash-offchain-multiplatform reads both generations' pools in
 * spectrum-offchain-cardano/src/data/cfmm_pool.rs), and their constant-product pools are built alike:
 * - a pool sits at the address of its pool validator (any stake part: the pool's ADA may be delegated),
 *   and no token marks every pool, so the payment credential (a script hash) says which kind it is;
 * - each pool has its own NFT (our pool ID) and LP token, both named in its inline datum;
 * - each pool is minted 2^63 − 1 LP tokens and holds those not issued: issued = 2^63 − 1 − held
 *   (MAX_LQ_CAP in spectrum-offchain-cardano/src/constants.rs; maxLqCap in
 *   spectrum-finance/cardano-dex-contracts ErgoDex/Contracts/Pool.hs; EMISSION_LP in
 *   splashprotocol/protocol-sdk packages/core/src/models/pool/common/emissionLp.ts).
 */
export const LQ_CAP = 9_223_372_036_854_775_807n;

/**
 * An output at a pool script holds more than this of one token (its unissued LP tokens): what tells a
 * pool from a stray output anyone can send to the script's address (which must not be taken for a
 * broken pool: that would skip its block). Issued LP is about √(reserve A × reserve B), far below 2^62
 * for any real pool, so a pool holds more than 2^63 − 1 − 2^62 = 2^62 − 1 of its LP token.
 */
const UNISSUED_LP_FLOOR = 1n << 62n;

/** Pool kinds by the script their addresses pay to (any stake part: address.ts). */
export class PoolScripts<K> {
  private readonly scripts: PaymentScripts<K>;

  constructor(scripts: Readonly<Record<string, K>>) {
    this.scripts = new PaymentScripts(Object.entries(scripts));
  }

  /** The kind of pool script `address` pays to, if any. */
  kindOf(address: string): K | undefined {
    return this.scripts.get(address);
  }

  /** Is `output` a pool: at one of these scripts, and holding unissued LP tokens? */
  isPool(output: ChainOutput): boolean {
    if (this.kindOf(output.address) === undefined) return false;
    for (const amount of output.assets.values()) if (amount > UNISSUED_LP_FLOOR) return true;
    return false;
  }
}

/** A list field, or a DatumError naming `what`. */
export function list(data: PlutusData | undefined, what: string): readonly PlutusData[] {
  if (!Array.isArray(data)) throw new DatumError(`${what}: not a list`);
  return data;
}

/** Checks the pool holds its NFT (named in the datum); returns its unit, the pool ID. */
export function poolNft(output: ChainOutput, nft: string, group: string): string {
  if (nft === '' || amountOf(output, nft) !== 1n)
    throw new DatumError(`${group} pool without the pool NFT its datum names`);
  return nft;
}

/** LP tokens issued: the cap less the pool's own LP tokens (a pool cannot hold more than the cap). */
export function issuedLp(output: ChainOutput, lp: string, group: string): bigint {
  const held = lp === '' ? -1n : amountOf(output, lp);
  if (held <= 0n || held > LQ_CAP) throw new DatumError(`${group} pool LP token holding out of range`);
  return LQ_CAP - held;
}

/** An output's amount of `unit` less what the DEX sets aside; a DatumError if that is more than it holds. */
export function reserveOf(output: ChainOutput, unit: string, setAside: bigint, what: string): bigint {
  const reserve = amountOf(output, unit) - setAside;
  if (setAside < 0n || reserve < 0n)
    throw new DatumError(`${what}: set-aside ${setAside} out of range for a pool holding ${amountOf(output, unit)}`);
  return reserve;
}
