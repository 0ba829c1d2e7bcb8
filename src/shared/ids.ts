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
  displayAssetName,
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
