import { Decoder, Tag } from 'cbor-x';
import { describe, expect, it } from 'vitest';
import {
  DatumError,
  decodePlutusData,
  MAX_DATUM_BYTES,
  MAX_DATUM_DEPTH,
  MAX_DATUM_NODES,
  type PlutusData,
} from '../../../src/service/chain/plutus';
import {
  BREAK,
  deepNesting,
  encodePlutus,
  head,
  minswapV2DatumAround,
  sharedReferenceBomb,
  sharedReferenceCycle,
  toHex,
  type EncodeOptions,
} from '../../support/plutus-cbor';
import { hasPrise } from '../../support/prise';
import { realDatums } from '../../support/real-datums';

/**
 * Datum decoding accepts exactly Plutus data (IntersectMBO/plutus doc/plutus-core-spec/data-cbor.tex)
 * and refuses everything else, and every datum over its budgets, with a DatumError. The fuzz test
 * (plutus-fuzz.test.ts) throws thousands of hostile datums at it; these name each rule once.
 */
const decode = (bytes: readonly number[]) => decodePlutusData(toHex(bytes));
const refusal = (bytes: readonly number[]): string => {
  try {
    decode(bytes);
  } catch (error) {
    if (error instanceof DatumError) return error.message;
    throw error;
  }
  throw new Error(`decoded: ${toHex(bytes)}`);
};
const c = (constructor: number, ...fields: PlutusData[]): PlutusData => ({ constructor, fields });
const zeros = (n: number) => new Array<number>(n).fill(0);

describe('Plutus data decoding: what it accepts', () => {
  const value: PlutusData = c(
    0,
    c(1, 'ab'.repeat(28)),
    [0n, 23n, 24n, 255n, 256n, 65_535n, 65_536n, 2n ** 32n, 2n ** 64n - 1n, -1n, -24n, -25n, -(2n ** 64n)],
    [2n ** 64n, 2n ** 512n + 7n, -(2n ** 64n) - 1n, -(3n ** 300n)],
    new Map<PlutusData, PlutusData>([
      ['', 1n],
      ['00'.repeat(64), c(6)],
      ['0102'.repeat(50), [c(7), c(127)]],
    ]),
    c(128, 'ff'.repeat(1000)),
    c(Number.MAX_SAFE_INTEGER),
  );

  it.each<[string, EncodeOptions]>([
    ['as the specification encodes it (indefinite lists, definite maps, 64-byte chunks)', {}],
    ['with definite lists', { definiteLists: true }],
    ['with indefinite maps', { indefiniteMaps: true }],
    ['with every constructor as tag 102', { tag102: true }],
  ])('decodes constructors, integers, big integers, byte strings, lists and maps %s', (_name, options) => {
    expect(decode(encodePlutus(value, options))).toEqual(value);
  });

  it('keeps integers of 64 bits and beyond exact', () => {
    expect(decode(head(0, 2n ** 64n - 1n))).toBe(18_446_744_073_709_551_615n);
    expect(decode(head(1, 2n ** 64n - 1n))).toBe(-18_446_744_073_709_551_616n);
    expect(decode([...head(6, 2), ...head(2, 0)])).toBe(0n);
    // A big integer in an indefinite byte string of 64-byte chunks: 15,000 bytes, 120,000 bits, exact.
    const digits = 'f1'.repeat(15_000);
    expect(decode(encodePlutus(BigInt(`0x${digits}`)))).toBe(BigInt(`0x${digits}`));
    expect(decode(encodePlutus(-1n - BigInt(`0x${digits}`)))).toBe(-1n - BigInt(`0x${digits}`));
  });

  it('accepts non-shortest heads and a tag 102 as an indefinite list of two, as the ledger does', () => {
    expect(decode([...head(6, 121, 2), ...head(4, 1, 8), ...head(0, 5, 4)])).toEqual(c(0, 5n));
    expect(decode([...head(6, 102), 0x9f, ...head(0, 3), 0x80, BREAK])).toEqual(c(3));
  });

  it('accepts a datum of exactly the size budget, and items, nesting up to their budgets', () => {
    // A byte string in 64-byte chunks (66 bytes each) filling the budget to the byte.
    const chunks = Math.floor((MAX_DATUM_BYTES - 2) / 66);
    const tail = MAX_DATUM_BYTES - 2 - chunks * 66;
    const body = [
      0x5f,
      ...Array.from({ length: chunks }, () => [...head(2, 64), ...zeros(64)]).flat(),
      ...head(2, tail - 1),
      ...zeros(tail - 1),
      BREAK,
    ];
    expect(body).toHaveLength(MAX_DATUM_BYTES);
    expect(decode(body)).toBe('00'.repeat(chunks * 64 + tail - 1));
    expect(decode([...head(4, MAX_DATUM_NODES - 1), ...zeros(MAX_DATUM_NODES - 1)])).toHaveLength(MAX_DATUM_NODES - 1);
    for (const kind of ['list', 'indefinite', 'constr', 'map'] as const)
      expect(() => decode(deepNesting(MAX_DATUM_DEPTH, kind))).not.toThrow();
  });
});

describe('Plutus data decoding: what it refuses, each with a DatumError', () => {
  it('refuses shared references (tags 28 and 29): the bomb of issue 29, a cycle, a lone reference', () => {
    const bomb = [0xd8, 0x79, 0x9f, ...sharedReferenceBomb(24), BREAK];
    expect(bomb.length).toBeLessThan(160);
    expect(refusal(bomb)).toMatch(
      /byte 3: CBOR tag 28 \(a shared value\) is refused: Plutus data has no shared references/,
    );
    expect(refusal(sharedReferenceCycle())).toMatch(/tag 28/);
    expect(refusal([...head(6, 29), 0x00])).toMatch(/CBOR tag 29 \(a reference to one\) is refused/);
    expect(refusal([...Buffer.from(minswapV2DatumAround(sharedReferenceBomb(30)), 'hex')])).toMatch(/tag 28/);
  });

  it.each([0, 1, 4, 24, 32, 120, 128, 258, 1279, 1401, 55_799, 2 ** 32 + 121])('refuses CBOR tag %i', (tag) => {
    expect(refusal([...head(6, tag), 0x80])).toMatch(new RegExp(`CBOR tag ${tag} is not Plutus data`));
  });

  it.each<[string, number[], RegExp]>([
    ['a half-precision float', [0xf9, 0x3c, 0x00], /a float is not Plutus data/],
    ['a single-precision float', [0xfa, 0x3f, 0x80, 0, 0], /a float/],
    ['a double-precision float', [0xfb, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0], /a float/],
    ['false', [0xf4], /simple value 20/],
    ['true', [0xf5], /simple value 21/],
    ['null', [0xf6], /simple value 22/],
    ['undefined', [0xf7], /simple value 23/],
    ['a one-byte simple value', [0xf8, 0xff], /simple value 255/],
    ['a text string', [0x63, 0x61, 0x62, 0x63], /a text string is not Plutus data/],
    ['an indefinite text string', [0x7f, 0x61, 0x61, BREAK], /a text string/],
    ['a break outside an indefinite item', [BREAK], /a break outside/],
    ['reserved additional information', [0x1c], /reserved additional information 28/],
    ['an indefinite integer', [0x1f], /indefinite length is not well-formed/],
    ['an indefinite tag', [0xdf, 0x00], /indefinite length is not well-formed/],
    ['a byte string of 65 bytes', [...head(2, 65), ...zeros(65)], /65 bytes: Plutus data allows at most 64/],
    ['a 65-byte chunk in an indefinite byte string', [0x5f, ...head(2, 65), ...zeros(65), BREAK], /65 bytes/],
    [
      'an integer as a chunk of a byte string',
      [0x5f, 0x00, BREAK],
      /chunk .* must be a definite byte string, not an unsigned integer/,
    ],
    ['an indefinite chunk in an indefinite byte string', [0x5f, 0x5f, BREAK, BREAK], /not an indefinite one/],
    [
      'a big integer holding a list',
      [...head(6, 2), 0x80],
      /a big integer \(tag 2\) must hold a byte string, not a list/,
    ],
    ['a big integer holding a 65-byte string', [...head(6, 3), ...head(2, 65), ...zeros(65)], /65 bytes/],
    ['constructor fields that are a map', [0xd8, 0x79, 0xa0], /constructor fields must be a list, not a map/],
    [
      'constructor fields that are an integer',
      [0xd9, 0x05, 0x00, 0x00],
      /constructor fields must be a list, not an unsigned integer/,
    ],
    ['a tag 102 of three items', [...head(6, 102), 0x83, 0x00, 0x80, 0x00], /list of two/],
    ['an indefinite tag 102 of three items', [...head(6, 102), 0x9f, 0x00, 0x80, 0x00, BREAK], /list of two/],
    [
      'a tag 102 whose index is negative',
      [...head(6, 102), 0x82, 0x20, 0x80],
      /index must be an unsigned integer, not a negative integer/,
    ],
    [
      'a tag 102 whose index is a big integer',
      [...head(6, 102), 0x82, 0xc2, 0x41, 0x01, 0x80],
      /index must be an unsigned integer, not a tag/,
    ],
    [
      'a tag 102 whose index is beyond 2^53',
      [...head(6, 102), 0x82, ...head(0, 2n ** 53n), 0x80],
      /constructor index 9007199254740992 is beyond/,
    ],
    ['anything after the first item', [0x00, 0x00], /1 byte\(s\) after the datum/],
  ])('refuses %s', (_name, bytes, message) => {
    expect(refusal(bytes)).toMatch(message);
  });

  it('refuses what is not hex CBOR, and an empty datum', () => {
    for (const text of ['', '0', 'zz', 'd879 80', '0x00'])
      expect(() => decodePlutusData(text)).toThrow(new DatumError('datum is not hex CBOR'));
  });

  it('refuses every truncation of a datum', () => {
    const datum = [...Buffer.from(minswapV2DatumAround(encodePlutus(c(0, 'ab'.repeat(100)))), 'hex')];
    expect(decode(datum)).toBeTruthy();
    for (let length = 0; length < datum.length; length++)
      expect(() => decode(datum.slice(0, length)), `first ${length} bytes`).toThrow(DatumError);
  });

  it('refuses a datum over the size budget before reading it', () => {
    // One byte more than the datum of exactly the budget above: refused without a look at its content.
    expect(refusal([0x5f, ...zeros(MAX_DATUM_BYTES)])).toBe(
      `datum refused: ${MAX_DATUM_BYTES + 1} bytes, more than the ${MAX_DATUM_BYTES} a transaction can hold`,
    );
    // Ten megabytes of hex are refused by their length alone.
    expect(() => decodePlutusData('zz'.repeat(5_000_000))).toThrow(/more than the 16384 a transaction can hold/);
  });

  it('refuses more items than the node budget, counted as they come (indefinite) or from the length (definite)', () => {
    expect(refusal([...head(4, MAX_DATUM_NODES), ...zeros(MAX_DATUM_NODES)])).toMatch(
      /list of 4096 item\(s\) exceeds 4096 items/,
    );
    expect(refusal([0x9f, ...zeros(MAX_DATUM_NODES), BREAK])).toMatch(/more than 4096 items/);
    expect(refusal([0xbf, ...zeros(MAX_DATUM_NODES), BREAK])).toMatch(/more than 4096 items/);
  });

  it('refuses nesting deeper than the depth budget, 10,000 deep included', () => {
    for (const kind of ['list', 'indefinite', 'constr', 'map'] as const) {
      expect(refusal(deepNesting(MAX_DATUM_DEPTH + 1, kind))).toMatch(/nested deeper than 64/);
      expect(refusal(deepNesting(10_000, kind))).toMatch(/nested deeper than 64|more than the 16384/);
    }
    // A tag-102 constructor and its fields list are one level, as a tag-121 one and its fields are.
    expect(() => decode([...head(6, 102), 0x82, 0x00, ...deepNesting(MAX_DATUM_DEPTH, 'list')])).not.toThrow();
    expect(refusal([...head(6, 102), 0x82, 0x00, ...deepNesting(MAX_DATUM_DEPTH + 1, 'list')])).toMatch(
      /nested deeper than 64/,
    );
  });

  it.each<[string, number[]]>([
    ['a list of 2^32 - 1 items', [...head(4, 2 ** 32 - 1), 0x00]],
    ['a list of 2^64 - 1 items', [...head(4, 2n ** 64n - 1n), 0x00]],
    ['a map of 2^53 entries', [...head(5, 2n ** 53n), 0x00, 0x00]],
    ['a byte string of 2^64 - 1 bytes', [...head(2, 2n ** 64n - 1n), 0x00]],
    ['a 40-byte string in 20 bytes', [...head(2, 40), ...zeros(20)]],
    ['constructor fields of 2^31 items', [0xd8, 0x79, ...head(4, 2 ** 31), 0x00]],
  ])('refuses lengths the input cannot hold: %s', (_name, bytes) => {
    expect(refusal(bytes)).toMatch(/claims \d+ item|needs \d+ byte|at most 64/);
  });

  it.each<[string, number[]]>([
    ['list', [0x9f, ...zeros(100)]],
    ['map', [0xbf, ...zeros(100)]],
    ['byte string', [0x5f, ...Array.from({ length: 50 }, () => [0x41, 0x00]).flat()]],
    ['constructor', [0xd8, 0x79, 0x9f, 0x00]],
    ['nest of lists', new Array<number>(60).fill(0x9f)],
  ])('refuses an indefinite %s without its end', (_name, bytes) => {
    expect(refusal(bytes)).toMatch(/without|its break|needs 1 byte/);
  });
});

/** The decoding before this one (cbor-x and a conversion), kept here as the reference for real datums. */
const reference = new Decoder({ mapsAsObjects: false, useRecords: false });
function before(value: unknown): PlutusData {
  if (value instanceof Tag) {
    const items = value.value as unknown[];
    if (value.tag >= 121 && value.tag <= 127) return { constructor: value.tag - 121, fields: items.map(before) };
    if (value.tag >= 1280 && value.tag <= 1400) return { constructor: value.tag - 1280 + 7, fields: items.map(before) };
    if (value.tag === 102) return { constructor: Number(items[0]), fields: (items[1] as unknown[]).map(before) };
    if (value.tag === 2 || value.tag === 3) return value.value as bigint;
    throw new Error(`tag ${value.tag}`);
  }
  if (typeof value === 'number' && Number.isInteger(value)) return BigInt(value);
  if (typeof value === 'bigint') return value;
  if (value instanceof Uint8Array) return Buffer.from(value).toString('hex');
  if (Array.isArray(value)) return value.map(before);
  if (value instanceof Map) return new Map([...value].map(([k, v]) => [before(k), before(v)]));
  throw new Error(`type ${typeof value}`);
}

describe('real datums', () => {
  it.skipIf(!hasPrise)('every real datum we have (chain fixtures, prise) decodes to the same value as before', () => {
    const datums = realDatums();
    expect(datums.size).toBeGreaterThan(2_000);
    const differ: string[] = [];
    let decoded = 0;
    for (const [cbor, where] of datums) {
      let expected: PlutusData | undefined;
      try {
        expected = before(reference.decode(Buffer.from(cbor, 'hex')));
      } catch {
        // Not Plutus data before either (prise's files list a few 32-byte hashes among datums): refused now too.
        if (!throwsDatumError(cbor)) differ.push(`${where}: decoded now, not before`);
        continue;
      }
      try {
        expect(decodePlutusData(cbor)).toEqual(expected);
        decoded++;
      } catch (error) {
        differ.push(`${where}: ${error instanceof Error ? error.message.slice(0, 200) : String(error)}`);
      }
    }
    expect(differ).toEqual([]);
    expect(decoded).toBeGreaterThan(2_000);
  });
});

function throwsDatumError(cbor: string): boolean {
  try {
    decodePlutusData(cbor);
    return false;
  } catch (error) {
    return error instanceof DatumError;
  }
}
