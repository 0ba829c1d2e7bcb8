import { blake2b } from '@noble/hashes/blake2.js';
import { isAssetName, isPolicyId } from '../shared/id-rules';

/** Bech32's alphabet (BIP-173, "Bech32": the data part's characters, by value). */
const BECH32_CHARSET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';
/** The generator of bech32's BCH checksum (BIP-173, `bech32_polymod`). */
const BECH32_GENERATOR = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];

function polymod(values: readonly number[]): number {
  let chk = 1;
  for (const value of values) {
    const top = chk >>> 25;
    chk = (((chk & 0x1ffffff) << 5) ^ value) >>> 0;
    BECH32_GENERATOR.forEach((g, i) => {
      if ((top >>> i) & 1) chk = (chk ^ g) >>> 0;
    });
  }
  return chk;
}

/**
 * Bech32 (BIP-173) of `bytes` under the human-readable part `hrp`: the bytes regrouped in 5-bit words
 * (padded), and the 6-word checksum. Written here rather than taken from a codec library of every base:
 * the header and the search load it with the first chart (the CIP-14 vectors test it).
 */
function bech32Encode(hrp: string, bytes: Uint8Array): string {
  const words: number[] = [];
  let acc = 0;
  let bits = 0;
  for (const byte of bytes) {
    acc = (acc << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      bits -= 5;
      words.push((acc >>> bits) & 31);
    }
  }
  if (bits > 0) words.push((acc << (5 - bits)) & 31);
  const expanded = [...hrp]
    .map((c) => c.charCodeAt(0) >> 5)
    .concat(
      [0],
      [...hrp].map((c) => c.charCodeAt(0) & 31),
    );
  const mod = polymod([...expanded, ...words, 0, 0, 0, 0, 0, 0]) ^ 1;
  const checksum = [0, 1, 2, 3, 4, 5].map((i) => (mod >>> (5 * (5 - i))) & 31);
  return `${hrp}1${[...words, ...checksum].map((w) => BECH32_CHARSET[w]).join('')}`;
}

/** Bytes of an even-length hex string (checked by the caller). */
function hexBytes(hex: string): Uint8Array {
  const bytes = new Uint8Array(hex.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
  return bytes;
}

/** Human-readable part of a CIP-14 fingerprint. */
export const ASSET_FINGERPRINT_PREFIX = 'asset';

/**
 * The CIP-14 asset fingerprint of a native token: bech32 (prefix `asset`) of the blake2b-160 digest
 * of the policy ID bytes followed by the asset name bytes, e.g. `asset1rjklcrnsdzqp65wjgrg55sy9723kw09mlgvlc3`.
 * Hex is accepted in either case. Throws a RangeError for a malformed policy ID or asset name; ADA
 * (the empty policy ID) has no fingerprint.
 */
export function assetFingerprint(policyId: string, assetNameHex: string): string {
  if (!isPolicyId(policyId)) throw new RangeError(`not a policy ID (56 hex characters): "${policyId.slice(0, 80)}"`);
  if (!isAssetName(assetNameHex))
    throw new RangeError(`not an asset name (0 to 64 hex characters, even length): "${assetNameHex.slice(0, 80)}"`);
  const digest = blake2b(hexBytes(`${policyId}${assetNameHex}`.toLowerCase()), { dkLen: 20 });
  return bech32Encode(ASSET_FINGERPRINT_PREFIX, digest);
}

/** Whether `value` looks like a CIP-14 fingerprint (prefix and length; the checksum is not verified). */
export function isAssetFingerprint(value: string): boolean {
  return /^asset1[02-9ac-hj-np-z]{38}$/.test(value);
}
