import { Readable } from 'node:stream';
import { constants, createBrotliCompress, createGzip } from 'node:zlib';
import type { Context } from 'hono';
import { accepts } from 'hono/accepts';
import { BOOT_BARS_ELEMENT_ID, BOOT_INFO_ELEMENT_ID } from '../shared/api/gateway-prefix';

/**
 * The app's page as the server sends it (platform.ts): the built index.html in two parts. Everything
 * up to `</body>` goes at once, so the browser asks the page's script and stylesheet and parses the
 * page frame while the server still waits for the first chart's answers (a remote upstream's /info and
 * bars, at most platform.ts's BOOT_ANSWERS_WAIT_MS); the elements carrying those answers and the end
 * of the page follow. The page's script is a module script: it runs once the whole page is in, so it
 * always finds them.
 */

/**
 * The element carrying /gw/v1/info (a JSON script element, not run: a strict Content-Security-Policy
 * allows it), or nothing without an answer in time (the boot script then asks /info itself).
 */
export function bootInfoElement(info: unknown): string {
  if (info === undefined) return '';
  // `<` escaped: no `</script>` (nor `<!--`) can end the element early.
  const json = JSON.stringify(info).replace(/</g, '\\u003c');
  return `<script type="application/json" id="${BOOT_INFO_ELEMENT_ID}">${json}</script>`;
}

/** The first chart's first request and its answer's body, as the gateway gave it. */
export interface BootBars {
  readonly url: string;
  readonly body: string;
}

const ATTRIBUTE_ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '"': '&quot;', '<': '&lt;', '>': '&gt;' };

/**
 * The element carrying the answer to the first chart's first request (`data-url` is the request's
 * URL): the boot script draws the first candles from it and the chart takes it as the answer to that
 * request, instead of a round trip after the page. Nothing without one.
 */
export function bootBarsElement(bars: BootBars | undefined): string {
  if (bars === undefined) return '';
  // JSON has `<` only inside strings, where `\u003c` means the same: no `</script>` can end the element early.
  const body = bars.body.replace(/</g, '\\u003c');
  const url = bars.url.replace(/[&"<>]/g, (ch) => ATTRIBUTE_ESCAPES[ch] ?? ch);
  return `<script type="application/json" id="${BOOT_BARS_ELEMENT_ID}" data-url="${url}">${body}</script>`;
}

/** The page split where the answers go: before its last `</body>` (at its end without one). */
export function splitPage(html: string): readonly [string, string] {
  const at = html.lastIndexOf('</body>');
  return at < 0 ? [html, ''] : [html.slice(0, at), html.slice(at)];
}

/** The encodings the page is sent in, best first. */
const PAGE_ENCODINGS = ['br', 'gzip'] as const;
type PageEncoding = (typeof PAGE_ENCODINGS)[number] | 'identity';

/** The browser's most wanted encoding of PAGE_ENCODINGS (ours first among equals), else none. */
export function pageEncoding(c: Context): PageEncoding {
  const chosen = accepts(c, {
    header: 'Accept-Encoding',
    supports: [...PAGE_ENCODINGS],
    default: 'identity',
    match: (wanted, config) => {
      const q = (encoding: string) => wanted.find((w) => w.type.toLowerCase() === encoding)?.q ?? wanted.find((w) => w.type === '*')?.q ?? 0;
      const best = Math.max(...config.supports.map(q));
      return best > 0 ? (config.supports.find((encoding) => q(encoding) === best) ?? config.default) : config.default;
    },
  });
  return chosen === 'br' || chosen === 'gzip' ? chosen : 'identity';
}

/**
 * The page's body: `head` at once (compressed and flushed, so it leaves the server in the first
 * packet), then `rest` once it settles, and the end. `rest` must not reject.
 */
export function streamPage(head: string, rest: Promise<string>, encoding: PageEncoding): ReadableStream<Uint8Array> {
  if (encoding === 'identity') {
    const bytes = new TextEncoder();
    let cancelled = false;
    return new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.encode(head));
        void rest.then((text) => {
          if (cancelled) return;
          controller.enqueue(bytes.encode(text));
          controller.close();
        });
      },
      cancel() {
        cancelled = true;
      },
    });
  }
  // Brotli at a quality made for answers compressed as they are sent (11, the default, is for files built once).
  const zip = encoding === 'br' ? createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: 5 } }) : createGzip();
  zip.write(head);
  zip.flush(encoding === 'br' ? constants.BROTLI_OPERATION_FLUSH : constants.Z_SYNC_FLUSH);
  // A browser gone before the rest (the stream cancelled, the compressor destroyed) takes nothing more.
  void rest.then((text) => {
    if (!zip.destroyed) zip.end(text);
  });
  return Readable.toWeb(zip) as ReadableStream<Uint8Array>;
}
