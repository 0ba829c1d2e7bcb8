import {
  createSafeFetcher,
  DEFAULT_MAX_BYTES,
  SafeFetchError,
  type SafeFetcher,
  type SafeFetchOptions,
} from '../../../node/safe-fetch';
import { logoPng, type LogoImageOptions } from './logo-image';
import { logoSource, type LogoGateways, type LogoInput } from './logo-uri';

/**
 * One logo, from what token metadata says to the PNG the API serves: the URI is followed (through the
 * operator's gateways for `ipfs://` and `ar://`), fetched by the safe fetcher, and the bytes made a PNG.
 * Each failure says why and whether trying again later may help.
 */

export type LogoOutcome =
  | {
      readonly ok: true;
      readonly png: Buffer;
      /** Where the image came from: the URL fetched, or `inline`. */
      readonly from: string;
    }
  | {
      readonly ok: false;
      readonly reason: string;
      /** Worth another try later (a timeout, a connection failure, a 5xx or 429 answer). */
      readonly retryable: boolean;
      /** The server's Retry-After, in milliseconds, when it gave one. */
      readonly retryAfterMs?: number;
    };

export interface LogoLoaderOptions {
  /** The operator's gateways (`--ipfs-gateway`, `--arweave-gateway`); they are trusted origins of the fetcher. */
  readonly gateways?: LogoGateways;
  /**
   * The fetcher's options: `allowCidrs` (the operator's networks), `timeoutMs`, `ca`, `resolve`; `maxBytes`
   * (default 2 MiB) bounds inline logos too.
   */
  readonly fetch?: Omit<SafeFetchOptions, 'trustedOrigins' | 'allowHttp'>;
  readonly image?: LogoImageOptions;
}

export interface LogoLoader {
  /** The logo as a PNG, or why not. Never throws. */
  load(logo: LogoInput, signal?: AbortSignal): Promise<LogoOutcome>;
  close(): Promise<void>;
}

/** Statuses worth another try: the server is busy or failing, not saying the logo is not there. */
const RETRYABLE_STATUS = new Set([408, 425, 429, 500, 502, 503, 504]);
const MAX_URL_SHOWN = 200;

const shown = (url: string) => (url.length > MAX_URL_SHOWN ? `${url.slice(0, MAX_URL_SHOWN)}…` : url);

/** Retry-After as milliseconds from now (seconds or an HTTP date), when readable and ahead. */
function retryAfterMs(header: string | undefined, nowMs: number): number | undefined {
  if (header === undefined) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isFinite(date) && date > nowMs ? date - nowMs : undefined;
}

export function createLogoLoader(options: LogoLoaderOptions = {}): LogoLoader {
  const bare = (url: string | undefined) => url?.replace(/\/+$/, '');
  const ipfs = bare(options.gateways?.ipfs);
  const arweave = bare(options.gateways?.arweave);
  const gateways: LogoGateways = { ...(ipfs ? { ipfs } : {}), ...(arweave ? { arweave } : {}) };
  const maxBytes = options.fetch?.maxBytes ?? DEFAULT_MAX_BYTES;
  const trustedOrigins = [gateways.ipfs, gateways.arweave]
    .filter((url) => url !== undefined)
    .map((url) => new URL(url).origin);
  const fetcher: SafeFetcher = createSafeFetcher({ ...options.fetch, trustedOrigins });

  const image = async (bytes: Buffer, from: string): Promise<LogoOutcome> => {
    const result = await logoPng(bytes, options.image);
    return result.ok ? { ok: true, png: result.png, from } : { ok: false, reason: result.reason, retryable: false };
  };

  return {
    async load(logo, signal) {
      try {
        const source = await logoSource(logo, gateways, maxBytes);
        if (source.kind === 'unusable') return { ok: false, reason: source.reason, retryable: false };
        if (source.kind === 'bytes') return await image(source.bytes, 'inline');
        let response;
        try {
          response = await fetcher.fetch(source.url, { headers: { accept: 'image/*' }, ...(signal ? { signal } : {}) });
        } catch (error) {
          if (error instanceof SafeFetchError) return { ok: false, reason: error.message, retryable: error.retryable };
          throw error;
        }
        if (response.status < 200 || response.status > 299) {
          const retryable = RETRYABLE_STATUS.has(response.status);
          const after = retryable ? retryAfterMs(response.headers['retry-after'], Date.now()) : undefined;
          return {
            ok: false,
            reason: `HTTP ${response.status} from ${shown(response.url)}`,
            retryable,
            ...(after !== undefined ? { retryAfterMs: after } : {}),
          };
        }
        const result = await image(response.body, response.url);
        return result.ok ? result : { ...result, reason: `${result.reason} (from ${shown(response.url)})` };
      } catch (error) {
        return {
          ok: false,
          reason: `logo failed: ${error instanceof Error ? error.message : String(error)}`,
          retryable: false,
        };
      }
    },
    close: () => fetcher.close(),
  };
}
