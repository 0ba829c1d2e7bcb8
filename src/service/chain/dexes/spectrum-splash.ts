import { bech32 } from '@scure/base';
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

/**
 * CIP-19 headers of mainnet (network 1) addresses whose payment credential is a script: types 1
 * (script, stake key), 3 (script, stake script), 5 (script, pointer) and 7 (script, no stake part).
 */
const SCRIPT_PAYMENT_HEADERS = [0x11, 0x31, 0x51, 0x71];

/**
 * Bech32 characters after `addr1` that depend on the header byte and the 28-byte payment credential
 * only: 46 five-bit groups cover 230 of their 232 bits (the 47th mixes in the stake part). Equal
 * prefixes mean the same header and the same first 222 bits of the script hash.
 */
const PREFIX_LENGTH = 'addr1'.length + 46;

/** The prefixes of every mainnet address paying to `scriptHash`, whatever its stake part. */
function addressPrefixes(scriptHash: string): string[] {
  return SCRIPT_PAYMENT_HEADERS.map((header) => {
    // A Uint8Array of this realm (a Buffer is not one under the app tests' jsdom, which @scure/base checks).
    const bytes = Uint8Array.from(Buffer.from(header.toString(16) + scriptHash + '00'.repeat(28), 'hex'));
    return bech32.encode('addr', bech32.toWords(bytes), false).slice(0, PREFIX_LENGTH);
  });
}

/** Characters of an address looked up first (its header and the first 42 bits of the script hash): cheap to hash. */
const KEY_LENGTH = 'addr1'.length + 10;

/** Pool kinds by the script their addresses pay to: a lookup of an address's prefix. */
export class PoolScripts<K> {
  // Every output of every transaction is tested: a short key first, the whole prefix only on a hit.
  private readonly byKey = new Map<string, { readonly prefix: string; readonly kind: K }[]>();
  /** The character after `addr1` (the header's type) of script-paying addresses: most outputs fail on it. */
  private readonly typeChars = new Set<number>();

  constructor(scripts: Readonly<Record<string, K>>) {
    for (const [hash, kind] of Object.entries(scripts)) {
      for (const prefix of addressPrefixes(hash)) {
        const key = prefix.slice(0, KEY_LENGTH);
        this.byKey.set(key, [...(this.byKey.get(key) ?? []), { prefix, kind }]);
        this.typeChars.add(prefix.charCodeAt('addr1'.length));
      }
    }
  }

  /** The kind of pool script `address` pays to, if any. */
  kindOf(address: string): K | undefined {
    if (address.length <= PREFIX_LENGTH || !this.typeChars.has(address.charCodeAt('addr1'.length))) return undefined;
    const candidates = this.byKey.get(address.slice(0, KEY_LENGTH));
    return candidates?.find((c) => address.startsWith(c.prefix))?.kind;
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
  if (nft === '' || amountOf(output, nft) !== 1n) throw new DatumError(`${group} pool without the pool NFT its datum names`);
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
  if (setAside < 0n || reserve < 0n) throw new DatumError(`${what}: set-aside ${setAside} out of range for a pool holding ${amountOf(output, unit)}`);
  return reserve;
}
