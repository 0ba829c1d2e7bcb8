/**
 * Identifier rules of the wire contract (spec "Identifier formats" + decisions "Identifiers"), without
 * zod: what the page's first paint needs before the app's code (and zod) loads. `ids.ts` re-exports them beside
 * its schemas. Hex is accepted in either case and answered in lowercase.
 */

/** The native currency (ADA) has the empty string as policy ID and as token identifier. */
export const ADA_UNIT = '';
export const ADA_TICKER = 'ADA';
export const ADA_DECIMALS = 6;

export const POLICY_ID_HEX_LENGTH = 56;
export const ASSET_NAME_MAX_HEX_LENGTH = 64;
export const POOL_ID_MAX_HEX_LENGTH = 128;

const HEX = /^[0-9a-fA-F]*$/;

export function isHex(value: string): boolean {
  return HEX.test(value);
}

export function isPolicyId(value: string): boolean {
  return value.length === POLICY_ID_HEX_LENGTH && isHex(value);
}

export function isAssetName(value: string): boolean {
  return value.length <= ASSET_NAME_MAX_HEX_LENGTH && value.length % 2 === 0 && isHex(value);
}

/** A token: policy ID immediately followed by an asset name (56 to 120 hex characters, even length). */
export function isTokenUnit(value: string): boolean {
  return (
    value.length >= POLICY_ID_HEX_LENGTH &&
    value.length <= POLICY_ID_HEX_LENGTH + ASSET_NAME_MAX_HEX_LENGTH &&
    value.length % 2 === 0 &&
    isHex(value)
  );
}

/** A pool ID: non-empty, even-length hex, at most 128 characters. */
export function isPoolId(value: string): boolean {
  return value.length > 0 && value.length <= POOL_ID_MAX_HEX_LENGTH && value.length % 2 === 0 && isHex(value);
}

export interface TokenParts {
  readonly policyId: string;
  readonly assetName: string;
}

/** Splits a token unit into policy ID and asset name. ADA ('') gives two empty strings. */
export function splitTokenUnit(unit: string): TokenParts {
  return { policyId: unit.slice(0, POLICY_ID_HEX_LENGTH), assetName: unit.slice(POLICY_ID_HEX_LENGTH) };
}

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
