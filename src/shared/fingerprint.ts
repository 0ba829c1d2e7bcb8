import { blake2b } from '@noble/hashes/blake2.js';
import { hexToBytes } from '@noble/hashes/utils.js';
import { bech32 } from '@scure/base';
import { isAssetName, isPolicyId } from './id-rules';

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
  if (!isAssetName(assetNameHex)) throw new RangeError(`not an asset name (0 to 64 hex characters, even length): "${assetNameHex.slice(0, 80)}"`);
  const digest = blake2b(hexToBytes(`${policyId}${assetNameHex}`.toLowerCase()), { dkLen: 20 });
  return bech32.encode(ASSET_FINGERPRINT_PREFIX, bech32.toWords(digest));
}

/** Whether `value` looks like a CIP-14 fingerprint (prefix and length; the checksum is not verified). */
export function isAssetFingerprint(value: string): boolean {
  return /^asset1[02-9ac-hj-np-z]{38}$/.test(value);
}
