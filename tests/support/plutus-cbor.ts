import type { PlutusData } from '../../src/service/chain/plutus';

/**
 * A small CBOR writer for tests of datum decoding: Plutus data as the Plutus Core specification encodes
 * it (IntersectMBO/plutus doc/plutus-core-spec/data-cbor.tex: constructors 121-127, 1280-1400 or 102,
 * lists indefinite, maps definite, byte strings over 64 bytes in chunks of 64, integers beyond 64 bits
 * as tags 2/3), with switches for the other legal forms, and the hostile shapes a datum can take:
 * shared-reference bombs and cycles, deep nesting, lengths no input can hold, indefinite items without end.
 */

/** A CBOR head: major type and argument, in the shortest form unless `size` (1, 2, 4 or 8 argument bytes) is given. */
export function head(major: number, arg: number | bigint, size?: 0 | 1 | 2 | 4 | 8): number[] {
  const n = BigInt(arg);
  const width = size ?? (n < 24n ? 0 : n < 0x100n ? 1 : n < 0x10000n ? 2 : n < 0x100000000n ? 4 : 8);
  if (width === 0) return [(major << 5) | Number(n)];
  const out = [(major << 5) | { 1: 24, 2: 25, 4: 26, 8: 27 }[width]];
  for (let i = width - 1; i >= 0; i--) out.push(Number((n >> BigInt(8 * i)) & 0xffn));
  return out;
}

export const BREAK = 0xff;

export interface EncodeOptions {
  /** Lists and constructor fields definite (the specification's encoder writes them indefinite). */
  readonly definiteLists?: boolean;
  /** Maps indefinite (the specification's encoder writes them definite; its decoder takes both). */
  readonly indefiniteMaps?: boolean;
  /** Constructors 0-127 by tag 102 `[index, fields]` too (its decoder takes any index there). */
  readonly tag102?: boolean;
}

function bytesItem(data: Uint8Array, major = 2): number[] {
  if (data.length <= 64) return [...head(major, data.length), ...data];
  const out = [(major << 5) | 31];
  for (let i = 0; i < data.length; i += 64) {
    const chunk = data.subarray(i, i + 64);
    out.push(...head(major, chunk.length), ...chunk);
  }
  out.push(BREAK);
  return out;
}

function magnitude(n: bigint): Uint8Array {
  const hex = n.toString(16);
  return Uint8Array.from(Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex'));
}

/** Plutus data as CBOR bytes. */
export function encodePlutus(data: PlutusData, options: EncodeOptions = {}): number[] {
  const list = (items: readonly PlutusData[]) => {
    const body = items.flatMap((item) => encodePlutus(item, options));
    return options.definiteLists ? [...head(4, items.length), ...body] : [0x9f, ...body, BREAK];
  };
  if (typeof data === 'bigint') {
    const max = 2n ** 64n - 1n;
    if (data >= 0n) return data <= max ? head(0, data) : [...head(6, 2), ...bytesItem(magnitude(data))];
    const m = -1n - data;
    return m <= max ? head(1, m) : [...head(6, 3), ...bytesItem(magnitude(m))];
  }
  if (typeof data === 'string') return bytesItem(Uint8Array.from(Buffer.from(data, 'hex')));
  if (Array.isArray(data)) return list(data);
  if (data instanceof Map) {
    const body = [...data].flatMap(([k, v]) => [...encodePlutus(k, options), ...encodePlutus(v, options)]);
    return options.indefiniteMaps ? [0xbf, ...body, BREAK] : [...head(5, data.size), ...body];
  }
  const c = data as { readonly constructor: number; readonly fields: readonly PlutusData[] };
  if (!options.tag102 && c.constructor < 7) return [...head(6, 121 + c.constructor), ...list(c.fields)];
  if (!options.tag102 && c.constructor < 128) return [...head(6, 1280 + c.constructor - 7), ...list(c.fields)];
  return [...head(6, 102), ...head(4, 2), ...head(0, c.constructor), ...list(c.fields)];
}

export const toHex = (bytes: readonly number[] | Uint8Array): string =>
  Buffer.from(Uint8Array.from(bytes)).toString('hex');

/**
 * The shared-reference bomb of issue 29: `levels` nested values (tag 28), each a pair of the one inside
 * it and a reference to that one (tag 29), so `levels` levels describe 2^levels leaves in about 6 bytes
 * a level. A decoder that honours the tags and walks the result as a tree never finishes.
 */
export function sharedReferenceBomb(levels: number): number[] {
  // Ids are given in the order the tag-28 values start: the outermost is 0, the innermost levels - 1.
  let value = [...head(6, 28), 0x82, 0x00, 0x00];
  for (let id = levels - 2; id >= 0; id--) value = [...head(6, 28), 0x82, ...value, ...head(6, 29), ...head(0, id + 1)];
  return value;
}

/** A shared value that contains a reference to itself: a cycle. */
export const sharedReferenceCycle = (): number[] => [...head(6, 28), 0x81, ...head(6, 29), 0x00];

/** `depth` nested lists (definite or indefinite) around a 0, or constructors when `constr`. */
export function deepNesting(depth: number, kind: 'list' | 'indefinite' | 'constr' | 'map' = 'list'): number[] {
  const open = { list: [0x81], indefinite: [0x9f], constr: [0xd8, 0x79, 0x9f], map: [0xa1, 0x00] }[kind];
  const close = kind === 'indefinite' || kind === 'constr' ? [BREAK] : [];
  const out: number[] = [];
  for (let i = 0; i < depth; i++) out.push(...open);
  out.push(0x00);
  for (let i = 0; i < depth; i++) out.push(...close);
  return out;
}

/**
 * A Minswap V2 pool datum's outer constructor whose first field (the stake credential) is `field`, the
 * rest as synthetic-chain.ts writes them: the hostile part sits where a real pool datum has its data.
 */
export function minswapV2DatumAround(field: readonly number[]): string {
  const asset = (policy: string, name: string): PlutusData => ({ constructor: 0, fields: [policy, name] });
  const rest: PlutusData[] = [
    asset('', ''),
    asset('11'.repeat(28), '544f4b'),
    7_000_000_000n,
    50_000_000_000n,
    1_000_000_000_000n,
    30n,
    30n,
    { constructor: 1, fields: [] },
    { constructor: 1, fields: [] },
  ];
  return toHex([0xd8, 0x79, 0x9f, ...field, ...rest.flatMap((d) => encodePlutus(d)), BREAK]);
}
