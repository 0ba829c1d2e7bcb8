import { deflateRaw, constants } from 'node:zlib';
import { promisify } from 'node:util';

const deflateRawAsync = promisify(deflateRaw);

/**
 * /history bodies in `Content-Encoding: deflate` (the zlib format, RFC 1950) without compressing them
 * per request: each piece of a body (a cached chunk's column fragment, mostly) is deflated once on its
 * own, ending on a byte boundary (a sync flush, no final block), and a body is these pieces side by
 * side between a zlib header and a final empty block, with the Adler-32 of the whole combined from
 * the pieces' own. Deflate streams put together this way are one valid stream (each piece starts with
 * an empty window, so nothing refers across pieces). Compression runs on libuv's threads, never on the
 * event loop; a piece is compressed again only when its chunk is rebuilt (a new trade in it).
 */

interface Deflated {
  /** Raw deflate blocks, byte-aligned, not final. */
  readonly data: Uint8Array;
  readonly adler: number;
  readonly length: number;
}

/** zlib header: deflate, 32 KiB window, default level, no dictionary (0x789c: a multiple of 31). */
const ZLIB_HEADER = Uint8Array.of(0x78, 0x9c);
/** A final, empty stored block. */
const FINAL_BLOCK = Uint8Array.of(0x01, 0x00, 0x00, 0xff, 0xff);
/** Pieces up to this size go as stored blocks: calling zlib costs more than it saves on them. */
const STORED_MAX = 128;
const ADLER_BASE = 65_521;

/**
 * Compressed pieces by the memory they view: a cached fragment is the same bytes for as long as its
 * chunk lives, and its entry goes with it (a WeakMap on the buffer). Slices at a range's edges are
 * keyed too, but few per buffer are kept.
 */
const compressed = new WeakMap<ArrayBufferLike, Map<string, Deflated>>();
const SLICES_PER_BUFFER = 16;

function adler32(bytes: Uint8Array): number {
  let a = 1;
  let b = 0;
  // Sums stay exact (far below 2^53) over runs of 3,800 bytes: reduce once per run, not per byte.
  for (let i = 0; i < bytes.length;) {
    const end = Math.min(bytes.length, i + 3800);
    for (; i < end; i++) {
      a += bytes[i] as number;
      b += a;
    }
    a %= ADLER_BASE;
    b %= ADLER_BASE;
  }
  return ((b << 16) | a) >>> 0;
}

/** The Adler-32 of two pieces one after the other, from theirs (zlib's adler32_combine). */
function adlerCombine(adler1: number, adler2: number, length2: number): number {
  const rem = length2 % ADLER_BASE;
  let sum1 = adler1 & 0xffff;
  let sum2 = (rem * sum1) % ADLER_BASE;
  sum1 += (adler2 & 0xffff) + ADLER_BASE - 1;
  sum2 += ((adler1 >>> 16) & 0xffff) + ((adler2 >>> 16) & 0xffff) + ADLER_BASE - rem;
  if (sum1 >= ADLER_BASE) sum1 -= ADLER_BASE;
  if (sum1 >= ADLER_BASE) sum1 -= ADLER_BASE;
  if (sum2 >= ADLER_BASE * 2) sum2 -= ADLER_BASE * 2;
  if (sum2 >= ADLER_BASE) sum2 -= ADLER_BASE;
  return ((sum2 << 16) | sum1) >>> 0;
}

/** A stored (uncompressed) block holding `bytes` (at most 65,535). */
function storedBlock(bytes: Uint8Array): Uint8Array {
  const block = new Uint8Array(5 + bytes.length);
  const n = bytes.length;
  block[1] = n & 0xff;
  block[2] = n >>> 8;
  block[3] = ~n & 0xff;
  block[4] = (~n >>> 8) & 0xff;
  block.set(bytes, 5);
  return block;
}

async function deflatePiece(piece: Uint8Array): Promise<Deflated> {
  const key = `${piece.byteOffset}:${piece.byteLength}`;
  let entries = compressed.get(piece.buffer);
  const known = entries?.get(key);
  if (known) return known;
  const data =
    piece.byteLength <= STORED_MAX
      ? storedBlock(piece)
      : new Uint8Array(await deflateRawAsync(piece, { level: 6, finishFlush: constants.Z_SYNC_FLUSH }));
  const made: Deflated = { data, adler: adler32(piece), length: piece.byteLength };
  if (!entries) {
    entries = new Map();
    compressed.set(piece.buffer, entries);
  }
  if (entries.size >= SLICES_PER_BUFFER) entries.delete(entries.keys().next().value as string);
  entries.set(key, made);
  return made;
}

/** The deflate-encoded body of `pieces` (the identity body's parts in order), as pieces to send. */
export async function deflateBody(
  pieces: readonly Uint8Array[],
): Promise<{ readonly pieces: Uint8Array[]; readonly bytes: number }> {
  const parts = await Promise.all(pieces.map(deflatePiece));
  const out: Uint8Array[] = [ZLIB_HEADER];
  let adler = 1;
  let bytes = ZLIB_HEADER.byteLength + FINAL_BLOCK.byteLength + 4;
  for (const part of parts) {
    out.push(part.data);
    bytes += part.data.byteLength;
    adler = adlerCombine(adler, part.adler, part.length);
  }
  const trailer = new Uint8Array(4);
  new DataView(trailer.buffer).setUint32(0, adler);
  out.push(FINAL_BLOCK, trailer);
  return { pieces: out, bytes };
}
