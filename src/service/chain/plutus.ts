/**
 * Plutus data (the datums DEX pools carry): constructors, integers (always bigint here), byte strings
 * (hex), lists and maps. Only the shapes, nothing DEX-specific; the decoders in dexes/ read fields out
 * of them.
 *
 * Decoding accepts exactly the CBOR that Plutus data is (the Plutus Core specification's appendix
 * "Serialising data objects using the CBOR format", IntersectMBO/plutus
 * doc/plutus-core-spec/data-cbor.tex, as its decoder `PlutusCore.Data.decodeData` implements it, which
 * is what the ledger runs on every datum): constructor tags 121-127, 1280-1400 and 102 `[index,
 * fields]`, integers (major types 0 and 1, and big integers as tags 2/3 on a byte string), byte strings
 * of at most 64 bytes or an indefinite string of such chunks, lists and maps, definite or indefinite.
 * Everything else is refused with a DatumError: other tags (the shared references 28/29 first among
 * them), text strings, floats, simple values, null and undefined, malformed heads, and anything after
 * the first item. Budgets of size, nodes and depth bound the work and memory of any input.
 *
 * Why a decoder of our own rather than a CBOR library (docs/chain.md "Hostile datums"): cbor-x cannot
 * read indefinite-length byte strings (the form Plutus uses for every byte string or big integer over
 * 64 bytes), honours the shared-reference tags 28/29 through handlers global to the module that one
 * decoder cannot turn off (a 153-byte datum then describes 2^24 nodes), has no depth or node budget,
 * and builds big integers in quadratic time; a validating pass before it would have to read every head
 * anyway. Plutus data is a small, fully specified subset of CBOR, and this is that subset, nothing more.
 */
export type PlutusData =
  | { readonly constructor: number; readonly fields: readonly PlutusData[] }
  | bigint
  | string
  | readonly PlutusData[]
  | ReadonlyMap<PlutusData, PlutusData>;

/** Thrown for CBOR that is not Plutus data, or a datum that is not what a decoder expects. */
export class DatumError extends Error {}

/**
 * Largest datum accepted (bytes): mainnet's maximum transaction size, 16,384 bytes (protocol parameter
 * `maxTxSize`, shelley-genesis.json `protocolParams.maxTxSize`, unchanged since). A datum travels
 * inline in an output or in the witness set, both inside its transaction, so no real one is larger.
 */
export const MAX_DATUM_BYTES = 16_384;

/**
 * Most items in one datum: every constructor, list, map key and value, integer and byte string counts
 * one. Pool datums are small fixed records: the 2,296 distinct real datums of our chain fixtures and
 * prise's mainnet data hold at most 48. Without shared references an item takes at least one byte, so
 * the size budget alone would allow 16,384; this keeps a hostile datum's decoded form to a few hundred
 * kilobytes of heap.
 */
export const MAX_DATUM_NODES = 4_096;

/**
 * Deepest nesting of constructors, lists and maps. Real datums nest at most 7 deep; 64 leaves room for
 * any record shape and keeps the decoder's recursion (two stack frames a level) far from the JS stack's end.
 */
export const MAX_DATUM_DEPTH = 64;

/** Longest byte string or chunk of one (bytes): the ledger's limit on Plutus data's leaves (data-cbor.tex, "bounded bytes"). */
const MAX_CHUNK = 64;
const BREAK = 0xff;
/** Each CBOR major type, as messages name it. */
const MAJOR = [
  'an unsigned integer',
  'a negative integer',
  'a byte string',
  'a text string',
  'a list',
  'a map',
  'a tag',
  'a float or simple value',
] as const;

/** One pass over a datum's bytes: a cursor, the budgets spent, and the head last read. */
class DatumReader {
  private pos = 0;
  private nodes = 0;
  private major = 0;
  private info = 0;
  /** The head's argument; exact up to 2^53, beyond that only known to be huge (exact values via `hi`/`lo`). */
  private arg = 0;
  private hi = 0;
  private lo = 0;

  constructor(private readonly bytes: Buffer) {}

  read(): PlutusData {
    const data = this.item(0);
    if (this.pos !== this.bytes.length) this.fail(`${this.bytes.length - this.pos} byte(s) after the datum`);
    return data;
  }

  private fail(reason: string, at = this.pos): never {
    throw new DatumError(`datum refused at byte ${at}: ${reason}`);
  }

  private left(): number {
    return this.bytes.length - this.pos;
  }

  private need(n: number, what: string): void {
    if (n > this.left()) this.fail(`${what} needs ${n} byte(s), ${this.left()} left`);
  }

  /** Reads a head: major type (returned), additional information and argument (indefinite: info 31). */
  private head(): number {
    this.need(1, 'an item');
    const start = this.pos;
    const first = this.bytes[this.pos++] as number;
    this.major = first >> 5;
    this.info = first & 0x1f;
    if (this.info < 24) {
      this.arg = this.info;
      return this.major;
    }
    if (this.info === 31) {
      // Indefinite lengths exist for byte and text strings, lists and maps; 0xff is the break.
      if (this.major === 0 || this.major === 1 || this.major === 6)
        this.fail(`${MAJOR[this.major]} of indefinite length is not well-formed CBOR`, start);
      return this.major;
    }
    if (this.info > 27) this.fail(`reserved additional information ${this.info} is not well-formed CBOR`, start);
    // 24-27: the argument in the next 1, 2, 4 or 8 bytes (a float's bits for major type 7, refused anyway).
    const size = 2 ** (this.info - 24);
    this.need(size, 'a head');
    if (size === 8) {
      this.hi = this.bytes.readUInt32BE(this.pos);
      this.lo = this.bytes.readUInt32BE(this.pos + 4);
      this.arg = this.hi * 2 ** 32 + this.lo;
    } else this.arg = this.bytes.readUIntBE(this.pos, size);
    this.pos += size;
    return this.major;
  }

  /** The unsigned integer of the head just read, exactly. */
  private uint(): bigint {
    return this.info === 27 ? (BigInt(this.hi) << 32n) | BigInt(this.lo) : BigInt(this.arg);
  }

  private item(depth: number): PlutusData {
    if (++this.nodes > MAX_DATUM_NODES) this.fail(`more than ${MAX_DATUM_NODES} items`);
    const start = this.pos;
    this.head();
    switch (this.major) {
      case 0:
        return this.uint();
      case 1:
        return -1n - this.uint();
      case 2:
        return this.byteString(start).toString('hex');
      case 4:
        return this.listBody(depth + 1, start);
      case 5:
        return this.mapBody(depth + 1, start);
      case 6:
        return this.tagged(depth, start);
      case 3:
        return this.fail('a text string is not Plutus data', start);
      default:
        if (this.info === 31) return this.fail('a break outside an indefinite item', start);
        return this.fail(
          this.info >= 25 && this.info <= 27
            ? 'a float is not Plutus data'
            : `simple value ${this.info === 24 ? this.arg : this.info} (false, true, null, undefined or other) is not Plutus data`,
          start,
        );
    }
  }

  /** The bytes of a byte string whose head was just read: at most 64, or an indefinite string of chunks of at most 64. */
  private byteString(start: number): Buffer {
    if (this.info !== 31) return this.chunk(start);
    const chunks: Buffer[] = [];
    for (;;) {
      this.need(1, 'an indefinite byte string (its chunks or its break)');
      if (this.bytes[this.pos] === BREAK) {
        this.pos++;
        return Buffer.concat(chunks);
      }
      const at = this.pos;
      this.head();
      if (this.major !== 2 || this.info === 31)
        this.fail(
          `a chunk of an indefinite byte string must be a definite byte string, not ${this.info === 31 ? 'an indefinite one' : MAJOR[this.major]}`,
          at,
        );
      chunks.push(this.chunk(at));
    }
  }

  private chunk(start: number): Buffer {
    if (this.arg > MAX_CHUNK)
      this.fail(
        `a byte string of ${this.lengthText()} bytes: Plutus data allows at most ${MAX_CHUNK} (longer ones are sent as chunks of ${MAX_CHUNK})`,
        start,
      );
    this.need(this.arg, 'a byte string');
    const chunk = this.bytes.subarray(this.pos, this.pos + this.arg);
    this.pos += this.arg;
    return chunk;
  }

  private lengthText(): string {
    return this.info === 27 ? this.uint().toString() : String(this.arg);
  }

  private enter(depth: number, start: number): void {
    if (depth > MAX_DATUM_DEPTH) this.fail(`nested deeper than ${MAX_DATUM_DEPTH}`, start);
  }

  /** Items up to a break (indefinite), or `count` of them after checking that the bytes left can hold them. */
  private items(what: string, perItem: number, each: () => void): void {
    if (this.info === 31) {
      for (;;) {
        this.need(1, `an indefinite ${what} (its items or its break)`);
        if (this.bytes[this.pos] === BREAK) {
          this.pos++;
          return;
        }
        each();
      }
    }
    // Every item takes at least a byte: a length the bytes left cannot hold is refused before any work.
    if (this.arg * perItem > this.left())
      this.fail(`${what} claims ${this.lengthText()} item(s), ${this.left()} byte(s) left`);
    if (this.nodes + this.arg * perItem > MAX_DATUM_NODES)
      this.fail(`${what} of ${this.arg} item(s) exceeds ${MAX_DATUM_NODES} items`);
    for (let i = this.arg; i > 0; i--) each();
  }

  private listBody(depth: number, start: number): PlutusData[] {
    if (this.major !== 4) this.fail(`constructor fields must be a list, not ${MAJOR[this.major]}`, start);
    this.enter(depth, start);
    const list: PlutusData[] = [];
    this.items('list', 1, () => list.push(this.item(depth)));
    return list;
  }

  private mapBody(depth: number, start: number): Map<PlutusData, PlutusData> {
    this.enter(depth, start);
    const map = new Map<PlutusData, PlutusData>();
    this.items('map', 2, () => {
      const key = this.item(depth);
      map.set(key, this.item(depth));
    });
    return map;
  }

  private tagged(depth: number, start: number): PlutusData {
    const tag = this.arg;
    if (this.info === 27 && this.hi > 0) this.fail(`CBOR tag ${this.uint()} is not Plutus data`, start);
    if (tag >= 121 && tag <= 127) return { constructor: tag - 121, fields: this.fields(depth + 1) };
    if (tag >= 1280 && tag <= 1400) return { constructor: tag - 1280 + 7, fields: this.fields(depth + 1) };
    if (tag === 102) return this.constrExtended(depth + 1, start);
    if (tag === 2 || tag === 3) {
      const at = this.pos;
      this.head();
      if (this.major !== 2)
        this.fail(`a big integer (tag ${tag}) must hold a byte string, not ${MAJOR[this.major]}`, at);
      const hex = this.byteString(at).toString('hex');
      const magnitude = hex === '' ? 0n : BigInt(`0x${hex}`);
      return tag === 2 ? magnitude : -1n - magnitude;
    }
    if (tag === 28 || tag === 29)
      this.fail(
        `CBOR tag ${tag} (${tag === 28 ? 'a shared value' : 'a reference to one'}) is refused: Plutus data has no shared references`,
        start,
      );
    return this.fail(`CBOR tag ${tag} is not Plutus data`, start);
  }

  private fields(depth: number): PlutusData[] {
    const at = this.pos;
    this.head();
    return this.listBody(depth, at);
  }

  /** Tag 102: `[index, fields]`, a list of exactly two (definite or indefinite), the index an unsigned integer. */
  private constrExtended(depth: number, start: number): PlutusData {
    this.enter(depth, start);
    const at = this.pos;
    this.head();
    const indefinite = this.info === 31;
    if (this.major !== 4 || (!indefinite && this.arg !== 2))
      this.fail('a constructor with tag 102 must be a list of two: [index, fields]', at);
    const indexAt = this.pos;
    if (this.head() !== 0)
      this.fail(`a constructor index must be an unsigned integer, not ${MAJOR[this.major]}`, indexAt);
    const index = this.uint();
    // The specification allows indexes up to 2^64 - 1; ours are JS numbers, exact up to 2^53 (no DEX comes near).
    if (index > BigInt(Number.MAX_SAFE_INTEGER))
      this.fail(`constructor index ${index} is beyond ${Number.MAX_SAFE_INTEGER}`, indexAt);
    const fields = this.fields(depth);
    if (indefinite) {
      this.need(1, 'the end of a tag 102 list');
      if (this.bytes[this.pos] !== BREAK)
        this.fail('a constructor with tag 102 must be a list of two: [index, fields]');
      this.pos++;
    }
    return { constructor: Number(index), fields };
  }
}

/** Decodes a datum's CBOR (hex) as Plutus data; anything else, or a datum over budget, is a DatumError. */
export function decodePlutusData(cborHex: string): PlutusData {
  if (cborHex.length > MAX_DATUM_BYTES * 2)
    throw new DatumError(
      `datum refused: ${Math.ceil(cborHex.length / 2)} bytes, more than the ${MAX_DATUM_BYTES} a transaction can hold`,
    );
  if (!/^(?:[0-9a-f]{2})+$/i.test(cborHex)) throw new DatumError('datum is not hex CBOR');
  return new DatumReader(Buffer.from(cborHex, 'hex')).read();
}

type Constr = { readonly constructor: number; readonly fields: readonly PlutusData[] };

/** The constructor at `data` (with `index` if given), or a DatumError naming `what`. */
export function constr(data: PlutusData | undefined, what: string, index?: number): Constr {
  if (
    data === undefined ||
    typeof data !== 'object' ||
    data instanceof Map ||
    Array.isArray(data) ||
    !('fields' in data)
  )
    throw new DatumError(`${what}: not a constructor`);
  if (index !== undefined && data.constructor !== index)
    throw new DatumError(`${what}: constructor ${data.constructor}, expected ${index}`);
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
