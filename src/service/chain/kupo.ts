import { pipeline, type Readable } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { request } from 'undici';
import { z } from 'zod';
import type { ChainPoint } from './block';

/**
 * A bounded client of a Kupo chain index (https://cardanosolutions.github.io/kupo), whose answers are
 * not trusted: one generic call, `kupoGet` — GET this path, take at most this many bytes of JSON, check
 * it with this schema — and the calls built on it (`kupoCheckpoint`). Every call:
 * - never follows a redirect (a 3xx is an error naming it: a redirect could send the request, and
 *   what the URL carries, to another host);
 * - reads at most `maxBytes` of body, after decompression: a `Content-Length` above it is refused
 *   before the body is read, and a body (gzip, deflate or br; any other coding is refused) is cut off,
 *   and refused, once its decoded bytes pass it, so a small compressed bomb costs at most that much;
 * - ends within `timeoutMs` (default 15 s) from the request to the last byte, or when `signal` aborts;
 * - parses the body as JSON and checks every field with the zod schema given;
 * - fails only with a `KupoError` whose message says which call and what was wrong.
 * To add a call (`/matches/{pattern}?unspent`, `/datums/{hash}`): a schema of what Kupo documents for
 * it, a bound for its answer, and `kupoGet` (encode path segments with `encodeURIComponent`).
 */

/** Why a Kupo call failed: unreachable, an error status, a redirect, too large, not JSON, not the documented shape, too slow. */
export class KupoError extends Error {}

export interface KupoGetOptions<T> {
  /** What the answer must be (the fields Kupo's API documents for the route), checked once parsed. */
  readonly schema: z.ZodType<T>;
  /** Most bytes of body taken, after decompression. */
  readonly maxBytes: number;
  /** From the request to the body's last byte (default 15 s). */
  readonly timeoutMs?: number;
  /** Ends the call early (a stop). */
  readonly signal?: AbortSignal;
}

/** A checkpoint is one small JSON object: `{"slot_no":…,"header_hash":"<64 hex>"}` or `null`. */
export const KUPO_CHECKPOINT_MAX_BYTES = 4 * 1024;
const DEFAULT_TIMEOUT_MS = 15_000;

const decoders: Readonly<Record<string, () => NodeJS.ReadWriteStream>> = {
  gzip: createGunzip,
  'x-gzip': createGunzip,
  deflate: createInflate,
  br: createBrotliDecompress,
};

/** What a call is, in messages: `GET /checkpoints/123` (the path only: Kupo's address may carry a key). */
const callOf = (path: string) => `GET /${path.replace(/^\//, '')}`;

function issueText(error: z.ZodError): string {
  const first = error.issues[0];
  if (!first) return 'not the documented shape';
  return `${first.path.length > 0 ? `${first.path.join('.')}: ` : ''}${first.message}`;
}

/**
 * GETs `path` (relative to `kupoUrl`, e.g. `checkpoints/123`) and returns its JSON answer checked by
 * `options.schema`, within the bounds the module's comment lists. Throws KupoError.
 */
export async function kupoGet<T>(kupoUrl: string, path: string, options: KupoGetOptions<T>): Promise<T> {
  const call = callOf(path);
  const url = new URL(path.replace(/^\//, ''), kupoUrl.endsWith('/') ? kupoUrl : `${kupoUrl}/`);
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  // One signal for the whole call, its timer and listener gone once the call is over.
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const stop = () => controller.abort();
  options.signal?.addEventListener('abort', stop, { once: true });
  if (options.signal?.aborted) controller.abort();
  try {
    return await get(url, call, timeoutMs, controller.signal, () => timedOut, options);
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', stop);
  }
}

async function get<T>(
  url: URL,
  call: string,
  timeoutMs: number,
  signal: AbortSignal,
  timedOut: () => boolean,
  options: KupoGetOptions<T>,
): Promise<T> {
  const failure = (error: unknown, what: string): KupoError => {
    if (timedOut())
      return new KupoError(`Kupo did not answer ${call} within ${Math.round(timeoutMs / 1000)} s`, { cause: error });
    return new KupoError(`${what} (${error instanceof Error ? error.message : String(error)})`, { cause: error });
  };
  let answer: Awaited<ReturnType<typeof request>>;
  try {
    answer = await request(url, {
      method: 'GET',
      headers: { accept: 'application/json', 'accept-encoding': 'gzip, deflate, br' },
      signal,
    });
  } catch (error) {
    throw failure(error, `Kupo did not answer ${call}`);
  }
  const { statusCode, headers, body } = answer;
  // Whatever happens to the body once this call is done with it (an abort, a reset) is not an error of anyone's.
  body.on('error', () => undefined);
  const drop = () => body.destroy();
  if (statusCode >= 300 && statusCode < 400) {
    drop();
    throw new KupoError(`Kupo answered ${call} with a redirect (${statusCode}), which is not followed`);
  }
  if (statusCode !== 200) {
    drop();
    throw new KupoError(`Kupo answered ${statusCode} to ${call}`);
  }
  const declared = Number(headers['content-length']);
  if (Number.isFinite(declared) && declared > options.maxBytes) {
    drop();
    throw new KupoError(`Kupo's answer to ${call} is ${declared} bytes, over the ${options.maxBytes} this call takes`);
  }
  const coding = String(headers['content-encoding'] ?? 'identity')
    .trim()
    .toLowerCase();
  let decoded: Readable = body;
  if (coding !== '' && coding !== 'identity') {
    const decoder = decoders[coding];
    if (!decoder) {
      drop();
      throw new KupoError(`Kupo's answer to ${call} is in an unknown Content-Encoding (${coding.slice(0, 40)})`);
    }
    decoded = pipeline(body, decoder(), () => undefined) as unknown as Readable;
  }
  const chunks: Buffer[] = [];
  let bytes = 0;
  try {
    for await (const chunk of decoded as AsyncIterable<Buffer>) {
      bytes += chunk.byteLength;
      if (bytes > options.maxBytes) {
        decoded.destroy();
        drop();
        throw new KupoError(`Kupo's answer to ${call} is over the ${options.maxBytes} bytes this call takes`);
      }
      chunks.push(chunk);
    }
  } catch (error) {
    if (error instanceof KupoError) throw error;
    throw failure(error, `Kupo's answer to ${call} could not be read`);
  }
  let json: unknown;
  try {
    json = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  } catch {
    throw new KupoError(`Kupo's answer to ${call} is not JSON`);
  }
  const parsed = options.schema.safeParse(json);
  if (!parsed.success)
    throw new KupoError(`Kupo's answer to ${call} is not what its API documents: ${issueText(parsed.error)}`);
  return parsed.data;
}

const HEADER_HASH = /^[0-9a-f]{64}$/i;

/** Kupo's `Point` at or before `slot` (GET /checkpoints/{slot-no}), or null: every field checked. */
function checkpointSchema(slot: number) {
  return z
    .object(
      {
        slot_no: z
          .number({ error: 'must be a number' })
          .min(0, 'must be at least 0')
          .max(slot, `must be at most ${slot}, the slot asked`)
          .int('must be an integer'),
        header_hash: z.string({ error: 'must be a string' }).regex(HEADER_HASH, 'must be a block hash (64 hex digits)'),
      },
      { error: 'must be a point { slot_no, header_hash } or null' },
    )
    .nullable();
}

/**
 * The newest block at or before `slot` in a Kupo index (`GET /checkpoints/{slot-no}`: a point
 * `{ slot_no, header_hash }` with 0 ≤ slot_no ≤ slot, or null when it holds none that old), within
 * KUPO_CHECKPOINT_MAX_BYTES. Throws a KupoError that says what went wrong.
 */
export async function kupoCheckpoint(
  kupoUrl: string,
  slot: number,
  options: { readonly signal?: AbortSignal; readonly timeoutMs?: number } = {},
): Promise<ChainPoint | undefined> {
  if (!Number.isSafeInteger(slot) || slot < 0) throw new KupoError(`no checkpoint can be asked at slot ${slot}`);
  const point = await kupoGet(kupoUrl, `checkpoints/${slot}`, {
    schema: checkpointSchema(slot),
    maxBytes: KUPO_CHECKPOINT_MAX_BYTES,
    ...options,
  });
  return point === null ? undefined : { slot: point.slot_no, id: point.header_hash.toLowerCase() };
}
