import { registryEntryOf, type RegistryEntry } from '../importers/registry';

/**
 * A CIP-26 token metadata server's batch query (`POST {server}/metadata/query` with `subjects` and `properties`, the
 * API wallets use: cardano-foundation/cf-token-metadata-registry, api.yaml "Batch Metadata Query"; the answer is
 * `{ subjects: [mapping, ...] }`, each mapping as a registry file holds it). Subjects the server does not know are
 * absent from the answer. Bounded: at most `MAX_SUBJECTS` subjects a request, an answer of at most `maxBytes`, no
 * redirect followed, a timeout; an answer that is not the documented shape is an error naming what is wrong, and one
 * malformed mapping in it is skipped alone (named in `skipped`).
 */

/** Subjects per request: the answers carry base64 logos (up to ~90 KB each), so a batch stays a few MB. */
export const MAX_SUBJECTS = 50;
/** The properties asked for. */
const PROPERTIES = ['name', 'ticker', 'decimals', 'logo', 'description', 'url'] as const;

export interface RegistryQueryOptions {
  /** Largest answer read (bytes); default 16 MiB. */
  readonly maxBytes?: number;
  /** Milliseconds before the request is abandoned; default 20 s. */
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

export interface RegistryAnswer {
  /** The server's mappings of the subjects asked, by unit (lowercase). */
  readonly entries: ReadonlyMap<string, RegistryEntry>;
  /** Mappings of the answer that were not valid, with why. */
  readonly skipped: readonly string[];
}

/** Thrown for a server that cannot be asked or answers something else than the documented shape. */
export class RegistryServerError extends Error {}

/** Reads at most `max` bytes of a body, or throws. */
async function readCapped(response: Response, max: number, what: string): Promise<string> {
  const declared = Number(response.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > max)
    throw new RegistryServerError(`${what}: the answer is ${declared} bytes, more than the ${max} read`);
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      throw new RegistryServerError(`${what}: the answer is more than the ${max} bytes read`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * Asks the metadata server at `server` (its base URL, e.g. `https://tokens.cardano.org`) for the mappings of `units`
 * (at most MAX_SUBJECTS). Throws a RegistryServerError when it cannot be reached, answers an error status or
 * something that is not a batch answer.
 */
export async function queryRegistry(
  server: string,
  units: readonly string[],
  options: RegistryQueryOptions = {},
): Promise<RegistryAnswer> {
  if (units.length > MAX_SUBJECTS)
    throw new RangeError(`queryRegistry: ${units.length} subjects, at most ${MAX_SUBJECTS} a request`);
  const url = new URL('metadata/query', server.endsWith('/') ? server : `${server}/`);
  const what = 'the token registry';
  const timeout = AbortSignal.timeout(options.timeoutMs ?? 20_000);
  const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout;
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
      body: JSON.stringify({ subjects: units, properties: PROPERTIES }),
      redirect: 'manual',
      signal,
    });
  } catch (error) {
    const reason = timeout.aborted ? 'no answer in time' : error instanceof Error ? error.message : String(error);
    throw new RegistryServerError(`${what} did not answer (${reason})`, { cause: error });
  }
  if (response.status >= 300 && response.status < 400) {
    await response.body?.cancel();
    throw new RegistryServerError(`${what} answered a redirect (${response.status}), which is not followed`);
  }
  if (!response.ok) {
    await response.body?.cancel();
    throw new RegistryServerError(`${what} answered ${response.status} to POST /metadata/query`);
  }
  const text = await readCapped(response, options.maxBytes ?? 16 * 1024 * 1024, what);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new RegistryServerError(`${what}'s answer is not JSON`);
  }
  const subjects = (body as { subjects?: unknown } | null)?.subjects;
  if (typeof body !== 'object' || body === null || !Array.isArray(subjects))
    throw new RegistryServerError(`${what}'s answer has no subjects list`);
  const asked = new Set(units.map((unit) => unit.toLowerCase()));
  const entries = new Map<string, RegistryEntry>();
  const skipped: string[] = [];
  for (const [i, raw] of (subjects as unknown[]).entries()) {
    const parsed = registryEntryOf(raw);
    if ('error' in parsed) {
      skipped.push(`subjects[${i}]: ${parsed.error}`);
      continue;
    }
    if (!asked.has(parsed.entry.unit)) {
      skipped.push(`subjects[${i}]: ${parsed.entry.unit} was not asked for`);
      continue;
    }
    if (!entries.has(parsed.entry.unit)) entries.set(parsed.entry.unit, parsed.entry);
  }
  return { entries, skipped };
}
