import { isTokenUnit, splitTokenUnit } from '../../shared/id-rules';
import { DatumError, decodePlutusData, type PlutusData } from '../chain/plutus';

/**
 * CIP-68 token metadata (cardano-foundation/CIPs CIP-0068): a token whose asset name carries a CIP-67 label
 * keeps its metadata in the datum of a **reference NFT**, the asset of the same policy whose name is the same
 * body under label 100 (`000643b0`). The datum is `Constr 0 [metadata, version, extra]`, the metadata a map of
 * byte-string keys (UTF-8 field names) to values. For fungible tokens (label 333, `0014df10`) the fields are
 * `name`, `ticker`, `decimals`, `logo`, `description` and `url`; `logo` and `description` may be one byte string
 * or a list of byte-string chunks (Plutus data's byte strings are at most 64 bytes, so longer texts are split).
 *
 * Accepted as it is on chain: reference datums with two fields and no `extra` (USDM's), any version (0 included:
 * GNRC's), indefinite-length maps and byte strings, the site under `website` when there is no `url`; other fields
 * ignored. Decoded with the pool datums' decoder and budgets (docs/chain.md "Hostile datums").
 */

/** CIP-67 labels as asset-name prefixes (the label, its CRC-8, in CIP-67's 4-byte form). */
export const CIP67_LABELS = {
  reference: '000643b0',
  nft: '000de140',
  fungible: '0014df10',
  rich: '001bc280',
} as const;

/** The largest decimals a token may have here (the store's check, the registry importer's). */
export const MAX_TOKEN_DECIMALS = 19;
/** Longest text kept of a name, ticker, description or URL (characters); longer values are refused. */
const MAX_TEXT = { name: 100, ticker: 32, description: 1_000, url: 512, website: 512, logo: 16_384 } as const;

/** The metadata a reference NFT's datum gives a fungible token. */
export interface Cip68Metadata {
  readonly name: string | undefined;
  readonly ticker: string | undefined;
  readonly decimals: number | undefined;
  readonly description: string | undefined;
  readonly url: string | undefined;
  /** The logo's bytes (one byte string, or the chunks joined): a URI in UTF-8, or image data. */
  readonly logo: Buffer | undefined;
  /** The datum's version field. */
  readonly version: number;
}

/** The unit of the reference NFT that holds `unit`'s metadata, or undefined when `unit` is not a CIP-68 token. */
export function referenceUnitOf(unit: string): string | undefined {
  if (!isTokenUnit(unit)) return undefined;
  const { policyId, assetName } = splitTokenUnit(unit.toLowerCase());
  const label = assetName.slice(0, 8);
  if (label !== CIP67_LABELS.fungible && label !== CIP67_LABELS.nft && label !== CIP67_LABELS.rich) return undefined;
  return `${policyId}${CIP67_LABELS.reference}${assetName.slice(8)}`;
}

/** The unit of the fungible token (label 333) whose metadata the reference NFT `unit` holds, or undefined. */
export function fungibleUnitOf(referenceUnit: string): string | undefined {
  if (!isTokenUnit(referenceUnit)) return undefined;
  const { policyId, assetName } = splitTokenUnit(referenceUnit.toLowerCase());
  if (!assetName.startsWith(CIP67_LABELS.reference)) return undefined;
  return `${policyId}${CIP67_LABELS.fungible}${assetName.slice(8)}`;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });

/** A byte string (hex) as UTF-8 text, or undefined when it is not UTF-8. */
function utf8(bytes: Buffer): string | undefined {
  try {
    return UTF8.decode(bytes);
  } catch {
    return undefined;
  }
}

/** A byte string, or a list of byte-string chunks joined, as bytes; undefined for anything else. */
function chunks(value: PlutusData): Buffer | undefined {
  if (typeof value === 'string') return Buffer.from(value, 'hex');
  if (!Array.isArray(value)) return undefined;
  const parts: Buffer[] = [];
  for (const part of value as readonly PlutusData[]) {
    if (typeof part !== 'string') return undefined;
    parts.push(Buffer.from(part, 'hex'));
  }
  return Buffer.concat(parts);
}

/** Whether a Plutus value is a map (the decoder gives maps as Map). */
function isMap(value: PlutusData | undefined): value is ReadonlyMap<PlutusData, PlutusData> {
  return value instanceof Map;
}

/** A map's entries by UTF-8 key (keys that are not UTF-8 bytes are skipped; the first of a repeated key wins). */
function byName(map: ReadonlyMap<PlutusData, PlutusData>): Map<string, PlutusData> {
  const fields = new Map<string, PlutusData>();
  for (const [key, value] of map) {
    if (typeof key !== 'string') continue;
    const name = utf8(Buffer.from(key, 'hex'));
    if (name !== undefined && !fields.has(name)) fields.set(name, value);
  }
  return fields;
}

/**
 * Version 4's nested layout (CIP-68's `{"721": {policy: {asset name: metadata}}}`, policy and asset name as raw
 * bytes): the entry of the reference NFT `referenceUnit`, or the only entry when no unit is given. Undefined when
 * the datum is not nested (a flat version 4 datum is read as it is).
 */
function nestedEntry(
  fields: Map<string, PlutusData>,
  referenceUnit: string | undefined,
): ReadonlyMap<PlutusData, PlutusData> | undefined | 'none' {
  const root = fields.get('721');
  if (!isMap(root)) return undefined;
  const entries: [string, PlutusData][] = [];
  for (const [policy, assets] of root) {
    if (typeof policy !== 'string' || !isMap(assets)) continue;
    for (const [asset, metadata] of assets) if (typeof asset === 'string') entries.push([policy + asset, metadata]);
  }
  const chosen = referenceUnit
    ? entries.find(([unit]) => unit === referenceUnit.toLowerCase())
    : entries.length === 1
      ? entries[0]
      : undefined;
  return chosen && isMap(chosen[1]) ? chosen[1] : 'none';
}

/** A decoded reference datum: the metadata, and what in it was ignored and why. */
export interface Cip68Decoding {
  readonly metadata: Cip68Metadata;
  /** Fields present but unusable (e.g. `decimals 300 is outside 0-19`): ignored, the rest kept. */
  readonly ignored: readonly string[];
}

/**
 * The metadata of a reference NFT's datum (CBOR hex). A DatumError when the datum is not Plutus data (or over a
 * budget) or not CIP-68's `Constr 0 [metadata map, version, ...]`; a known field of the wrong type or out of range is
 * ignored and named in `ignored`, the others kept (as the registry's own CIP-68 reader does). Unknown fields are
 * ignored silently; an empty text counts as absent. `referenceUnit` picks the entry of a version 4 nested datum.
 */
export function decodeCip68Datum(cborHex: string, referenceUnit?: string): Cip68Decoding {
  const data = decodePlutusData(cborHex);
  if (typeof data !== 'object' || data instanceof Map || Array.isArray(data) || !('fields' in data))
    throw new DatumError('reference datum: not a constructor');
  if (data.constructor !== 0) throw new DatumError(`reference datum: constructor ${data.constructor}, expected 0`);
  if (data.fields.length < 2)
    throw new DatumError(`reference datum: ${data.fields.length} field(s), expected metadata and version`);
  const [metadata, version] = data.fields;
  if (!isMap(metadata)) throw new DatumError('reference datum: its metadata is not a map');
  // Version 0 is outside the versions CIP-68 defines, but real tokens carry it (GNRC on mainnet): read the same.
  if (typeof version !== 'bigint' || version < 0n || version > 1_000n)
    throw new DatumError('reference datum: its version is not a small non-negative integer');
  let fields = byName(metadata);
  if (version >= 4n) {
    const nested = nestedEntry(fields, referenceUnit);
    if (nested === 'none') throw new DatumError('reference datum: its nested metadata has no entry for this token');
    if (nested) fields = byName(nested);
  }
  const ignored: string[] = [];
  const textOf = (key: keyof typeof MAX_TEXT): string | undefined => {
    const value = fields.get(key);
    if (value === undefined) return undefined;
    const joined = chunks(value);
    if (joined === undefined) {
      ignored.push(`${key} is neither bytes nor a list of byte chunks`);
      return undefined;
    }
    const text = utf8(joined)?.trim();
    if (text === undefined) {
      ignored.push(`${key} is not UTF-8 text`);
      return undefined;
    }
    if (text.length > MAX_TEXT[key]) {
      ignored.push(`${key} is longer than ${MAX_TEXT[key]} characters`);
      return undefined;
    }
    return text === '' ? undefined : text;
  };
  let decimals: number | undefined;
  const rawDecimals = fields.get('decimals');
  if (rawDecimals !== undefined) {
    if (typeof rawDecimals !== 'bigint') ignored.push('decimals is not an integer');
    else if (rawDecimals < 0n || rawDecimals > BigInt(MAX_TOKEN_DECIMALS))
      ignored.push(`decimals ${rawDecimals} is outside 0-${MAX_TOKEN_DECIMALS}`);
    else decimals = Number(rawDecimals);
  }
  let logo: Buffer | undefined;
  const rawLogo = fields.get('logo');
  if (rawLogo !== undefined) {
    const joined = chunks(rawLogo);
    if (joined === undefined) ignored.push('logo is neither bytes nor a list of byte chunks');
    else if (joined.length > MAX_TEXT.logo) ignored.push(`logo is longer than ${MAX_TEXT.logo} bytes`);
    else if (joined.length > 0) logo = joined;
  }
  return {
    metadata: {
      name: textOf('name'),
      ticker: textOf('ticker'),
      decimals,
      description: textOf('description'),
      // Some tokens name their site `website` (FLDT on mainnet) rather than CIP-68's `url`.
      url: textOf('url') ?? textOf('website'),
      logo,
      version: Number(version),
    },
    ignored,
  };
}
