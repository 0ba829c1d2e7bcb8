import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { brotliCompressSync, constants, createBrotliCompress, createGzip, gzipSync } from 'node:zlib';
import type { Context } from 'hono';
import { accepts } from 'hono/accepts';
import { LRUCache } from 'lru-cache';
import { z } from 'zod';
import { pagePreferences, renderSkeleton, type PagePreferences } from '../app/skeleton';
import { groupStatsUrl } from '../app/features/overview/lib/group-stats-url';
import {
  firstChartOf,
  INLINED_BARS_ELEMENT_ID,
  INLINED_INFO_ELEMENT_ID,
  INLINED_PREFERENCES_ELEMENT_ID,
  pageChart,
  type InlinedFirstBars,
} from '../app/lib/first-chart';
import type { Gateway } from '../gateway/gateway';
import type { RequestLimiter } from '../node/rate-limits';
import { pagePolicy } from '../node/security-headers';

/**
 * The page's first paint on the server: the app's page (the built index.html) as it is sent, in three
 * parts, each compressed and flushed as soon as it is known:
 * 1. its head, at once, with the app's stylesheet in it (inlineStylesheets): the browser asks the page's
 *    one script while the server waits for the rest; on the market overview, also what the overview's
 *    rows wait for (overviewPreloads);
 * 2. the skeleton (src/app/skeleton.tsx: the app's own first render, by React's renderer on the
 *    server, from the URL, the preferences cookie and /gw/v1/info), once /info is in: the browser lays
 *    the page out and paints it before the script has come;
 * 3. /gw/v1/info and the first chart's first bars inlined (JSON script elements, not run: a strict
 *    Content-Security-Policy allows them), once the bars are in, and the page's end.
 * The server waits BOOT_ANSWERS_WAIT_MS at most for /info and the bars (a remote upstream far away),
 * then sends what it has: the page's script asks the rest (src/app/first-paint.ts). The script is a
 * module script, which runs once the whole page is in, so it always finds what the server put in.
 */

/** Longest the page waits for /gw/v1/info and its first chart's bars (a remote upstream's first answers). */
const BOOT_ANSWERS_WAIT_MS = 100;
/** Skeletons kept, by what they are made of: the most asked pages are sent without being rendered again. */
const SKELETONS_KEPT = 256;

/** The element carrying /gw/v1/info, or nothing without an answer in time. */
export function inlinedInfoElement(info: unknown): string {
  return info === undefined ? '' : jsonElement(INLINED_INFO_ELEMENT_ID, info);
}

/** A JSON script element (not run: a strict Content-Security-Policy allows it) carrying `value`. */
function jsonElement(id: string, value: unknown): string {
  // `<` escaped: no `</script>` (nor `<!--`) can end the element early.
  return `<script type="application/json" id="${id}">${JSON.stringify(value).replace(/</g, '\\u003c')}</script>`;
}

/**
 * The preferences the page is laid out with (the cookie's: the skeleton's), for the page's first paint
 * (src/app/first-paint.ts). Only what the first screen shows: the watchlist and the recent picks are
 * the browser's (the cookie has none of them).
 */
export function inlinedPreferencesElement(preferences: PagePreferences): string {
  return jsonElement(INLINED_PREFERENCES_ELEMENT_ID, preferences);
}

/**
 * The page's head in the preferences' theme: the root element's `data-theme` (the built page's is the
 * default's), so that the first frame, drawn before any script has run, is in the user's colours.
 */
export function headInTheme(head: string, theme: PagePreferences['theme']): string {
  return head.replace(/<html\b[^>]*>/, (tag) =>
    tag.replace(/\sdata-theme="[^"]*"/, '').replace(/>$/, ` data-theme="${theme}">`),
  );
}

const ATTRIBUTE_ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '"': '&quot;', '<': '&lt;', '>': '&gt;' };

/** The element carrying the first chart's first bars (`data-url` is the request they answer), or nothing. */
export function inlinedBarsElement(bars: InlinedFirstBars | undefined): string {
  if (bars === undefined) return '';
  // JSON has `<` only inside strings, where `\u003c` means the same: no `</script>` can end the element early.
  const body = bars.body.replace(/</g, '\\u003c');
  const url = bars.url.replace(/[&"<>]/g, (ch) => ATTRIBUTE_ESCAPES[ch] ?? ch);
  return `<script type="application/json" id="${INLINED_BARS_ELEMENT_ID}" data-url="${url}">${body}</script>`;
}

/** The build's manifest (Vite's `build.manifest`, dist/.vite/manifest.json): each module's chunk and the chunks it imports. */
const manifestSchema = z.record(
  z.string(),
  z.object({ file: z.string(), imports: z.array(z.string()).optional(), isEntry: z.boolean().optional() }),
);
type Manifest = z.infer<typeof manifestSchema>;

/** Where Vite writes the manifest, beside index.html. */
const MANIFEST_FILE = join('.vite', 'manifest.json');

/**
 * What the page's script imports when it opens on the market overview (src/app/main.tsx): the app and
 * the overview's chunk, keyed as the manifest names them (their source files).
 */
export const OVERVIEW_MODULES = ['src/app/start.tsx', 'src/app/features/overview/index.ts'] as const;

/**
 * The files of `modules`' chunks and of every chunk they import statically, as the page asks them
 * (`/assets/…`), less the page's entry (its script tag asks it already): what the browser would fetch
 * only once the entry had run and imported them.
 */
export function chunkFiles(manifest: Manifest, modules: readonly string[]): readonly string[] {
  const files = new Set<string>();
  const seen = new Set<string>();
  const visit = (key: string) => {
    if (seen.has(key)) return;
    seen.add(key);
    const chunk = manifest[key];
    if (!chunk || chunk.isEntry) return;
    files.add(`/${chunk.file}`);
    for (const imported of chunk.imports ?? []) visit(imported);
  };
  for (const module of modules) visit(module);
  return [...files];
}

/**
 * The head's preloads of a page opened on the market overview (`view=markets`), none elsewhere (the
 * chart page's head stays as built): the app's and the overview's chunks, fetched beside the page's
 * script rather than once it has run and imported them; then its group's statistics, the one answer its
 * rows wait for, asked as the page's script asks it (a `fetch` of the same URL with the same mode and
 * credentials, which takes the preload's answer: one request).
 */
export function overviewPreloads(search: string, chunks: () => readonly string[]): string {
  const page = pageChart(search);
  if (page.view !== 'markets') return '';
  const link = (rel: string, href: string, as = '') =>
    `<link rel="${rel}"${as ? ` as="${as}"` : ''} crossorigin href="${href.replace(/[&"<>]/g, (ch) => ATTRIBUTE_ESCAPES[ch] ?? ch)}">`;
  // The chunks first: the server answers them at once, then computes the list (on its one thread), not
  // the other way round, which held the page's script back behind the list.
  return [
    ...chunks().map((file) => link('modulepreload', file)),
    link('preload', groupStatsUrl(page.group), 'fetch'),
  ].join('');
}

/** The manifest beside `indexFile`, or undefined (none, or unreadable: the page goes without preloads). */
function readManifest(indexFile: string, log: ((line: string) => void) | undefined): Manifest | undefined {
  const file = join(dirname(indexFile), MANIFEST_FILE);
  if (!existsSync(file)) return undefined;
  try {
    return manifestSchema.parse(JSON.parse(readFileSync(file, 'utf8')));
  } catch (error) {
    log?.(
      `page: the build's manifest could not be read (${file}): ${error instanceof Error ? error.message : String(error)}`,
    );
    return undefined;
  }
}

/** A built stylesheet link of the page's head (Vite's: `<link rel="stylesheet" crossorigin href="/assets/…css">`). */
const STYLESHEET_LINK = /<link rel="stylesheet"(?: crossorigin)? href="(\/assets\/[\w.-]+\.css)">/g;
/** A `url(…)` in CSS that is not absolute (`/…`, a scheme, `#…`): it would mean another file once inlined. */
const RELATIVE_URL = /url\(\s*(?!\s|['"]?(?:[/#]|[a-z][\w+.-]*:))/i;

/**
 * The page as built with its stylesheets inlined (`<style>`, the file's text; `dir` is the build's
 * root): the browser styles, lays out and paints the skeleton as soon as it is parsed, while the
 * page's script is still coming, instead of once a second file is in, just as the script arrives.
 * Measured on this kind of machine: the stylesheet came with the script (60-70 ms after the
 * navigation), and the skeleton's first style and layout (about 30 ms in a fresh page) then came
 * before the first candles. A stylesheet that cannot be inlined as it is (unreadable, a relative
 * `url()`, a `</style`) stays a link.
 */
export function inlineStylesheets(html: string, dir: string): string {
  return html.replace(STYLESHEET_LINK, (link, href: string) => {
    let css: string;
    try {
      css = readFileSync(join(dir, href), 'utf8');
    } catch {
      return link;
    }
    if (RELATIVE_URL.test(css) || /<\/style/i.test(css)) return link;
    // No link is left: no chunk of the app lists the stylesheet (vite.config.ts, cssCodeSplit), so
    // nothing asks for it again.
    return `<style>${css}</style>`;
  });
}

/** The page as built, cut where the server puts things: its head (to the app's root element's opening tag), the rest to `</body>`, and the end. */
export function splitPage(html: string): readonly [head: string, middle: string, end: string] {
  const root = /<div id="root">/.exec(html);
  const bodyEnd = html.lastIndexOf('</body>');
  const end = bodyEnd < 0 ? html.length : bodyEnd;
  const headEnd = root && root.index < end ? root.index + root[0].length : end;
  return [html.slice(0, headEnd), html.slice(headEnd, end), html.slice(end)];
}

/** The encodings the page is sent in, best first. */
const PAGE_ENCODINGS = ['br', 'gzip'] as const;
export type PageEncoding = (typeof PAGE_ENCODINGS)[number] | 'identity';

/** The browser's most wanted encoding of PAGE_ENCODINGS (ours first among equals), else none. */
export function pageEncoding(c: Context): PageEncoding {
  const chosen = accepts(c, {
    header: 'Accept-Encoding',
    supports: [...PAGE_ENCODINGS],
    default: 'identity',
    match: (wanted, config) => {
      const q = (encoding: string) =>
        wanted.find((w) => w.type.toLowerCase() === encoding)?.q ?? wanted.find((w) => w.type === '*')?.q ?? 0;
      const best = Math.max(...config.supports.map(q));
      return best > 0 ? (config.supports.find((encoding) => q(encoding) === best) ?? config.default) : config.default;
    },
  });
  return chosen === 'br' || chosen === 'gzip' ? chosen : 'identity';
}

/**
 * A body of `parts` in order, each sent (compressed and flushed, so it leaves the server at once) as
 * soon as it and those before it are known. The promises must not reject.
 */
export function streamPage(
  parts: readonly (string | Promise<string>)[],
  encoding: PageEncoding,
): ReadableStream<Uint8Array> {
  if (encoding === 'identity') {
    const bytes = new TextEncoder();
    let cancelled = false;
    return new ReadableStream<Uint8Array>({
      async start(controller) {
        for (const part of parts) {
          const text = await part;
          if (cancelled) return;
          controller.enqueue(bytes.encode(text));
        }
        controller.close();
      },
      cancel() {
        cancelled = true;
      },
    });
  }
  // Brotli at a quality made for answers compressed as they are sent (11, the default, is for files built once).
  const zip =
    encoding === 'br' ? createBrotliCompress({ params: { [constants.BROTLI_PARAM_QUALITY]: 5 } }) : createGzip();
  const flush = encoding === 'br' ? constants.BROTLI_OPERATION_FLUSH : constants.Z_SYNC_FLUSH;
  void (async () => {
    for (const part of parts) {
      const text = await part;
      // A browser gone meanwhile (the stream cancelled, the compressor destroyed) takes nothing more.
      if (zip.destroyed) return;
      zip.write(text);
      zip.flush(flush);
    }
    if (!zip.destroyed) zip.end();
  })();
  return Readable.toWeb(zip) as ReadableStream<Uint8Array>;
}

/**
 * Renders per minute per client address (`PAGE_RENDERS_PER_MINUTE_PER_ADDRESS`). A render costs the
 * server /info, the first bars, React's server render and a compression; past the budget, the page is
 * sent as built (the app renders itself and asks what it needs, as under Vite), from bytes compressed
 * once per build: a flood of page loads from one address costs the others nothing.
 */
export interface PageBudget {
  readonly perMinute: number;
  readonly clientAddress: (c: Context) => string;
  readonly limiter: RequestLimiter;
}

export interface FirstPaintPageOptions {
  /** The built app's index.html. */
  readonly indexFile: string;
  /** The gateway: its /info, and its routes (the first bars are asked through them, as the browser's own request). */
  readonly gateway: Pick<Gateway, 'info' | 'app'>;
  readonly log?: (line: string) => void;
  /** Server renders per client address; none: every page is rendered. */
  readonly budget?: PageBudget;
}

/** The handler of the app's page (`/`, `/index.html` and the app's other paths): the page's first paint. */
export function firstPaintPage(options: FirstPaintPageOptions): (c: Context) => Response | Promise<Response> {
  const { indexFile, gateway, log } = options;
  // The first chart's first bars as the page's first paint will ask them (the same function builds the
  // URL), through the gateway as the browser's own request: the client's address pays for it.
  const firstBars = async (c: Context, url: string, signal: AbortSignal): Promise<InlinedFirstBars | undefined> => {
    const answer = await gateway.app.fetch(
      new Request(new URL(url, c.req.url), { headers: { Accept: 'application/json' }, signal }),
      c.env,
    );
    if (answer.status !== 200 || !(answer.headers.get('Content-Type') ?? '').includes('application/json')) {
      await answer.body?.cancel();
      return undefined;
    }
    return { url, body: await answer.text() };
  };
  // A skeleton is a function of the page's path and query, the preferences its cookie carries (read
  // once per request, for the head too) and /info (less its clock, which it does not show): the same
  // ones are not rendered again.
  const skeletons = new LRUCache<string, string>({ max: SKELETONS_KEPT });
  // The page with its stylesheets inlined, its policy, the overview's chunks (read from the manifest)
  // and its bytes as built, compressed once, of the build the page is of (a new build, a new page: the
  // file's time and size are looked at per request, not its text).
  interface Built {
    readonly stamp: string;
    readonly page: string;
    readonly policy: string;
    readonly chunks: readonly string[];
    readonly plain: Partial<Record<PageEncoding, Uint8Array>>;
  }
  let built: Built | undefined;
  const builtOf = (): Built | undefined => {
    const stat = statSync(indexFile, { throwIfNoEntry: false });
    if (!stat) return undefined;
    const stamp = `${stat.mtimeMs}:${stat.size}`;
    if (built?.stamp !== stamp) {
      const page = inlineStylesheets(readFileSync(indexFile, 'utf8'), dirname(indexFile));
      const manifest = readManifest(indexFile, log);
      built = {
        stamp,
        page,
        // The page as it is sent: its inlined stylesheets' hashes are in it.
        policy: pagePolicy(page),
        chunks: manifest ? chunkFiles(manifest, OVERVIEW_MODULES) : [],
        plain: {},
      };
    }
    return built;
  };
  /** The page as built (no skeleton, nothing inlined), in `encoding`, compressed once per build. */
  const plainPage = (page: Built, encoding: PageEncoding): Uint8Array => {
    const kept = page.plain[encoding];
    if (kept) return kept;
    const bytes = Buffer.from(page.page, 'utf8');
    const made =
      encoding === 'br'
        ? brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } })
        : encoding === 'gzip'
          ? gzipSync(bytes, { level: 9 })
          : bytes;
    const out = new Uint8Array(made.buffer, made.byteOffset, made.byteLength);
    page.plain[encoding] = out;
    return out;
  };
  const pageHeaders = (policy: string, encoding: PageEncoding): Record<string, string> => ({
    'Content-Type': 'text/html; charset=UTF-8',
    'Cache-Control': 'no-cache',
    // Made from the page as built: what the server adds (the skeleton's markup, the answers' JSON
    // elements, never run) needs nothing of it.
    'Content-Security-Policy': policy,
    Vary: 'Accept-Encoding, Cookie',
    ...(encoding === 'identity' ? {} : { 'Content-Encoding': encoding }),
  });
  const budget = options.budget;
  const rendersLeft = async (c: Context): Promise<boolean> => {
    if (!budget || budget.perMinute <= 0) return true;
    return (await budget.limiter.take(`page:${budget.clientAddress(c)}`, budget.perMinute)).allowed;
  };
  const skeletonOf = async (url: URL, preferences: PagePreferences, info: unknown): Promise<string> => {
    const key = JSON.stringify([
      url.pathname,
      url.search,
      preferences,
      typeof info === 'object' && info !== null ? { ...info, time: undefined } : info,
    ]);
    const kept = skeletons.get(key);
    if (kept !== undefined) return kept;
    try {
      const skeleton = await renderSkeleton({ pathname: url.pathname, search: url.search, preferences, info });
      skeletons.set(key, skeleton);
      return skeleton;
    } catch (error) {
      // The app renders the page on its own: it only comes later.
      log?.(`page: the skeleton could not be rendered: ${error instanceof Error ? error.message : String(error)}`);
      return '';
    }
  };
  return async (c) => {
    const current = builtOf();
    if (!current) return c.notFound();
    const { page: html, chunks, policy } = current;
    if (!(await rendersLeft(c))) {
      const encoding = pageEncoding(c);
      return new Response(plainPage(current, encoding) as Uint8Array<ArrayBuffer>, {
        headers: pageHeaders(policy, encoding),
      });
    }
    const url = new URL(c.req.url);
    const [asBuilt, middle, end] = splitPage(html);
    const preloads = overviewPreloads(url.search, () => chunks);
    // The preferences the skeleton is laid out with, and the page's first paint draws with.
    const preferences = pagePreferences(c.req.header('Cookie'));
    const head = headInTheme(asBuilt, preferences.theme).replace(
      '</head>',
      `${preloads}${inlinedPreferencesElement(preferences)}</head>`,
    );
    const stop = new AbortController();
    const late = sleep(BOOT_ANSWERS_WAIT_MS, undefined, { signal: stop.signal }).catch(() => undefined);
    const info = Promise.race([gateway.info().catch(() => undefined), late]);
    // A pair in the URL is asked at once; the group's deepest once /info names it.
    const inUrl = firstChartOf(url.search, undefined, Date.now());
    const bars = (inUrl ? Promise.resolve(inUrl) : info.then((body) => firstChartOf(url.search, body, Date.now())))
      .then((chart) => (chart && !stop.signal.aborted ? firstBars(c, chart.url, stop.signal) : undefined))
      .catch(() => undefined);
    const skeleton = info.then(async (body) => `${await skeletonOf(url, preferences, body)}${middle}`);
    const answers = Promise.all([info, Promise.race([bars, late])])
      .then(([infoBody, barsBody]) => `${inlinedInfoElement(infoBody)}${inlinedBarsElement(barsBody)}${end}`)
      .catch(() => end)
      .finally(() => stop.abort());
    const encoding = pageEncoding(c);
    return new Response(streamPage([head, skeleton, answers], encoding), { headers: pageHeaders(policy, encoding) });
  };
}
