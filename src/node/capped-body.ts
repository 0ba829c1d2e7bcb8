import { Transform, Writable, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { ownError, SafeFetchError } from './safe-fetch-error';

/**
 * A response body read within a byte cap, counted while it streams, before and after decompression: a
 * gzip bomb stops at the cap. Part of the safe fetcher (src/node/safe-fetch.ts).
 */

/** A pass-through that fails once more than `max` bytes went through it. */
function byteCap(max: number, what: string): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      seen += chunk.length;
      if (seen > max) done(new SafeFetchError('too-large', `${what} is larger than ${max} bytes`, false));
      else done(null, chunk);
    },
  });
}

/** Decoders for a Content-Encoding header, in the order to apply them. */
function decoders(header: string | undefined): Transform[] {
  const codings = (header ?? '')
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
  if (codings.length > 2) throw new SafeFetchError('encoding', `too many content codings (${header ?? ''})`, false);
  return codings.reverse().map((coding) => {
    if (coding === 'gzip' || coding === 'x-gzip') return createGunzip();
    if (coding === 'deflate') return createInflate();
    if (coding === 'br') return createBrotliDecompress();
    throw new SafeFetchError('encoding', `content coding ${JSON.stringify(coding)} is not supported`, false);
  });
}

/** Drops a body not to be read (undici reports a destroyed body as an error: nobody waits for it). */
export function discard(body: Readable): void {
  body.on('error', () => undefined);
  body.destroy();
}

/** Reads a body through its decoders, counting raw and decoded bytes against `maxBytes`. */
export async function readBody(
  body: Readable,
  headers: Record<string, string>,
  maxBytes: number,
  url: string,
): Promise<Buffer> {
  const declared = Number(headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) {
    discard(body);
    throw new SafeFetchError('too-large', `${url} declares ${declared} bytes, more than ${maxBytes}`, false);
  }
  let steps: Transform[];
  try {
    steps = decoders(headers['content-encoding']);
  } catch (error) {
    discard(body);
    throw error;
  }
  const chunks: Buffer[] = [];
  try {
    const collect = new Writable({
      write(chunk: Buffer, _encoding, done) {
        chunks.push(chunk);
        done();
      },
    });
    await pipeline([
      body,
      byteCap(maxBytes, `the body of ${url}`),
      ...steps,
      byteCap(maxBytes, `the decompressed body of ${url}`),
      collect,
    ]);
  } catch (error) {
    const own = ownError(error);
    if (own) throw own;
    const code = (error as NodeJS.ErrnoException).code ?? '';
    if (code.startsWith('Z_') || code.startsWith('ERR_BROTLI') || code === 'ERR__ERROR_FORMAT_PADDING_1')
      throw new SafeFetchError('encoding', `the body of ${url} is not valid ${headers['content-encoding']}`, false);
    throw error;
  }
  return Buffer.concat(chunks);
}
