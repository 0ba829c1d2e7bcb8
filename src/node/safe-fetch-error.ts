/** The one error the safe fetcher rejects with (src/node/safe-fetch.ts). */

/**
 * Why a fetch failed: `url` (malformed, wrong scheme, credentials), `refused` (an address not allowed),
 * `redirect` (too many, to another scheme, unreadable), `too-large`, `encoding` (a content coding we do
 * not decode, or corrupt), `tls`, `network` (DNS, connection), `timeout`, `aborted` (by the caller).
 */
export type SafeFetchErrorKind =
  'url' | 'refused' | 'redirect' | 'too-large' | 'encoding' | 'tls' | 'network' | 'timeout' | 'aborted';

export class SafeFetchError extends Error {
  override readonly name = 'SafeFetchError';
  constructor(
    readonly kind: SafeFetchErrorKind,
    message: string,
    /** Whether the same fetch may work later (timeouts, connection failures). */
    readonly retryable: boolean,
  ) {
    super(message);
  }
}

/** The first SafeFetchError in an error's cause chain. */
export function ownError(error: unknown): SafeFetchError | undefined {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; depth++) {
    if (current instanceof SafeFetchError) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
