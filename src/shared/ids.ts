import { z } from 'zod';

/** The wire contract's identifiers as zod schemas; the rules themselves are in id-rules.ts. */

export {
  ADA_UNIT,
  ADA_TICKER,
  ADA_DECIMALS,
  POLICY_ID_HEX_LENGTH,
  ASSET_NAME_MAX_HEX_LENGTH,
  POOL_ID_MAX_HEX_LENGTH,
  isHex,
  isPolicyId,
  isAssetName,
  isTokenUnit,
  isPoolId,
  splitTokenUnit,
  type TokenParts,
} from './id-rules';
import { isPoolId, isTokenUnit } from './id-rules';

export const tokenUnitSchema = z
  .string()
  .refine(isTokenUnit, {
    message: 'must be a policy ID (56 hex characters) followed by an asset name (0 to 64 hex characters, even length)',
  })
  .transform((value) => value.toLowerCase());

export const poolIdSchema = z
  .string()
  .refine(isPoolId, { message: 'must be a non-empty, even-length hex string of at most 128 characters' })
  .transform((value) => value.toLowerCase());

/**
 * Decodes a hex asset name for display: printable UTF-8 as text, anything else as the hex itself.
 * CIP-67/68 labels (e.g. 0014df10 for fungible tokens) are stripped before decoding.
 */
export function displayAssetName(assetNameHex: string): string {
  const label = /^(000643b0|000de140|0014df10|001bc280)/.exec(assetNameHex);
  const body = label ? assetNameHex.slice(8) : assetNameHex;
  if (body.length === 0) return assetNameHex;
  const bytes = new Uint8Array(body.length / 2);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(body.slice(i * 2, i * 2 + 2), 16);
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    // eslint-disable-next-line no-control-regex
    return /^[^\u0000-\u001f\u007f]+$/.test(text) ? text : assetNameHex;
  } catch {
    return assetNameHex;
  }
}
