import { Decoder, Tag } from 'cbor-x';

/**
 * Plutus data (the datums DEX pools carry), decoded from CBOR with cbor-x: constructors (CBOR tags
 * 121-127, 1280-1400 and 102), integers (always bigint here), byte strings (hex), lists and maps.
 * Only the shapes, nothing DEX-specific; the decoders in dexes/ read fields out of them.
 */
export type PlutusData =
  | { readonly constructor: number; readonly fields: readonly PlutusData[] }
  | bigint
  | string
  | readonly PlutusData[]
  | ReadonlyMap<PlutusData, PlutusData>;

const decoder = new Decoder({ mapsAsObjects: false, useRecords: false });

/** Thrown for CBOR that is not Plutus data. */
export class DatumError extends Error {}

function convert(value: unknown): PlutusData {
  if (value instanceof Tag) {
    const { tag } = value;
    const items = value.value as unknown;
    if (tag >= 121 && tag <= 127) return { constructor: tag - 121, fields: list(items) };
    if (tag >= 1280 && tag <= 1400) return { constructor: tag - 1280 + 7, fields: list(items) };
    if (tag === 102 && Array.isArray(items) && items.length === 2) return { constructor: Number(items[0]), fields: list(items[1]) };
    if (tag === 2 || tag === 3) return value.value as bigint;
    throw new DatumError(`unexpected CBOR tag ${tag}`);
  }
  if (typeof value === 'number') {
    if (!Number.isInteger(value)) throw new DatumError('a float is not Plutus data');
    return BigInt(value);
  }
  if (typeof value === 'bigint') return value;
  if (value instanceof Uint8Array) return Buffer.from(value).toString('hex');
  if (Array.isArray(value)) return value.map(convert);
  if (value instanceof Map) return new Map([...value.entries()].map(([k, v]) => [convert(k), convert(v)]));
  throw new DatumError(`unexpected CBOR value of type ${typeof value}`);
}

function list(value: unknown): PlutusData[] {
  if (!Array.isArray(value)) throw new DatumError('constructor fields must be a list');
  return value.map(convert);
}

/** Decodes a datum's CBOR (hex). Throws DatumError (or cbor-x's error) for anything else. */
export function decodePlutusData(cborHex: string): PlutusData {
  if (!/^(?:[0-9a-f]{2})+$/i.test(cborHex)) throw new DatumError('datum is not hex CBOR');
  return convert(decoder.decode(Buffer.from(cborHex, 'hex')));
}

type Constr = { readonly constructor: number; readonly fields: readonly PlutusData[] };

/** The constructor at `data` (with `index` if given), or a DatumError naming `what`. */
export function constr(data: PlutusData | undefined, what: string, index?: number): Constr {
  if (data === undefined || typeof data !== 'object' || data instanceof Map || Array.isArray(data) || !('fields' in data)) throw new DatumError(`${what}: not a constructor`);
  if (index !== undefined && data.constructor !== index) throw new DatumError(`${what}: constructor ${data.constructor}, expected ${index}`);
  return data;
}

export function int(data: PlutusData | undefined, what: string): bigint {
  if (typeof data !== 'bigint') throw new DatumError(`${what}: not an integer`);
  return data;
}

export function bytes(data: PlutusData | undefined, what: string): string {
  if (typeof data !== 'string') throw new DatumError(`${what}: not bytes`);
  return data;
}

/** An asset class `Constr 0 [policy, name]` as a unit ('' for ADA). */
export function assetClass(data: PlutusData | undefined, what: string): string {
  const c = constr(data, what, 0);
  return bytes(c.fields[0], `${what} policy`) + bytes(c.fields[1], `${what} name`);
}
