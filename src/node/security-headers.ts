import { createHash } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';

/**
 * The headers every answer of the server carries (the app's page and files, /docs, the API, the
 * gateway, /healthz, and the refusals Node and the raw-path guard write themselves): a
 * Content-Security-Policy fitted to what the answer is, no MIME sniffing, no Referer, never framed.
 *
 * The app's page gets a policy made from the page itself (`pagePolicy`): scripts from this origin and
 * the SHA-256 hashes of the inline scripts and styles it holds, computed from the HTML that is served,
 * so the policy follows the page as it changes and nobody keeps hashes by hand. An inline script that
 * is not in the HTML the policy was made from (one injected by an attacker's markup) does not run.
 */

/** Headers of every answer, whatever it is. */
export const COMMON_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  // A JSON answer or a user's token name is never run as script or style by a browser guessing its type.
  'X-Content-Type-Options': 'nosniff',
  // Page URLs carry the pair a user looks at: other sites need not learn it.
  'Referrer-Policy': 'no-referrer',
  // For browsers without CSP's frame-ancestors (every policy below says 'none' too).
  'X-Frame-Options': 'DENY',
};

/**
 * The policy of answers that are not pages (JSON, the SSE stream, images, text): they load nothing and
 * run nothing, and a browser that is made to open one as a document gets nothing either.
 */
export const API_POLICY = "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

/**
 * /docs (Swagger UI from swagger-ui-dist, its start in an external file): scripts from this origin only.
 * Swagger UI sets inline styles and draws its icons from `data:` SVGs in its stylesheet (its issues
 * #3370 and #7540 upstream), hence `'unsafe-inline'` for styles and `data:` images; `connect-src 'self'`
 * lets "Try it out" call this API and nothing else.
 */
export const DOCS_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

export interface PagePolicyOptions {
  /**
   * Vite's dev server (`npm run dev`): its client injects each stylesheet as a `<style>` element
   * from script, which no hash can name; styles may then be inline. Never for a built page.
   */
  readonly devStyles?: boolean;
}

/** `<script>` and `<style>` elements with their attributes and content (raw text: what the browser hashes). */
const ELEMENT = /<(script|style)\b([^>]*)>([\s\S]*?)<\/\1\s*>/gi;

/**
 * Script types a browser runs (or treats as script: import maps and speculation rules), which CSP's
 * script-src governs. Any other type (`application/json`, `application/ld+json`) is a data block: never
 * run, and not subject to the policy, so the page's JSON elements need no hash.
 */
const SCRIPT_TYPES =
  /^(|module|importmap|speculationrules|(text|application)\/(x-)?(java|ecma)script|text\/(jscript|livescript)|text\/javascript1\.[0-5])$/i;

/** An element's `type` attribute ('' without one). */
function typeOf(attributes: string): string {
  const match = /(?:^|\s)type\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))/i.exec(attributes);
  return (match?.[1] ?? match?.[2] ?? match?.[3] ?? '').trim();
}

/** Whether an element has a `src` attribute (with a value or not): an external script, not inline. */
const HAS_SRC = /(?:^|\s)src(?:\s*=|\s|$)/i;

/** A CSP source expression of some text: `'sha256-<base64>'` of its UTF-8 bytes. */
export function cspHash(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

/** The hashes of a page's inline scripts (those a browser would run) and inline styles, in page order, each once. */
export function inlineHashes(html: string): {
  readonly scripts: readonly string[];
  readonly styles: readonly string[];
} {
  const scripts = new Set<string>();
  const styles = new Set<string>();
  for (const [, element = '', attributes = '', content = ''] of html.matchAll(ELEMENT)) {
    if (element.toLowerCase() === 'style') {
      styles.add(cspHash(content));
      continue;
    }
    if (!HAS_SRC.test(attributes) && SCRIPT_TYPES.test(typeOf(attributes))) scripts.add(cspHash(content));
  }
  return { scripts: [...scripts], styles: [...styles] };
}

let lastPage: { readonly html: string; readonly dev: boolean; readonly policy: string } | undefined;

/**
 * The Content-Security-Policy of an app page: `html` is all of the page that holds inline scripts or
 * styles, as it is sent. Remembers the last page's policy (the page is the same file every time).
 */
export function pagePolicy(html: string, options: PagePolicyOptions = {}): string {
  const dev = options.devStyles === true;
  if (lastPage && lastPage.html === html && lastPage.dev === dev) return lastPage.policy;
  const { scripts, styles } = inlineHashes(html);
  const policy = [
    "default-src 'self'",
    `script-src ${["'self'", ...scripts].join(' ')}`,
    `style-src ${["'self'", ...(dev ? ["'unsafe-inline'"] : styles)].join(' ')}`,
    // Style attributes: the skeleton is React's server render, whose few `style=""` (a list's height,
    // a logo's colour) the policy cannot hash before the page's head is sent. An attribute's CSS has
    // no selectors and runs nothing; <style> elements stay held to their hashes above.
    "style-src-attr 'unsafe-inline'",
    // Token logos are data: PNGs; a chart exported as PNG is shown from a blob: URL.
    "img-src 'self' data: blob:",
    // The gateway's REST answers and its EventSource (and Vite's HMR socket in dev: 'self' covers ws: to this origin).
    "connect-src 'self'",
    "font-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
  lastPage = { html, dev, policy };
  return policy;
}

/** A page that said nothing of its own inline content: scripts and styles from this origin only. */
const PLAIN_PAGE_POLICY = pagePolicy('');

/**
 * Sets the common headers on every answer, and a Content-Security-Policy on every answer that has none
 * of its own: the API's to anything but HTML, and to HTML a page's policy that allows no inline script
 * (a page with inline scripts sets its own, made by `pagePolicy` from its HTML).
 */
export function securityHeaders(): MiddlewareHandler {
  return async (c, next) => {
    // Before too: a stream writes its head before the answer comes back through here (response-sink.ts
    // adds the policy itself). Never a policy here: it would override the one a handler's answer has.
    for (const [name, value] of Object.entries(COMMON_SECURITY_HEADERS)) c.header(name, value);
    await next();
    const apply = (headers: Headers) => {
      for (const [name, value] of Object.entries(COMMON_SECURITY_HEADERS)) headers.set(name, value);
      if (!headers.has('Content-Security-Policy')) {
        const html = /^text\/html\b/i.test(headers.get('Content-Type') ?? '');
        headers.set('Content-Security-Policy', html ? PLAIN_PAGE_POLICY : API_POLICY);
      }
    };
    try {
      apply(c.res.headers);
    } catch {
      // A Response whose headers are immutable (one handed on from fetch()): a copy takes them.
      c.res = new Response(c.res.body, c.res);
      apply(c.res.headers);
    }
  };
}

/** The common headers and the API's policy as raw header lines, for answers written to the socket directly. */
export const RAW_SECURITY_HEADER_LINES = Object.entries({
  ...COMMON_SECURITY_HEADERS,
  'Content-Security-Policy': API_POLICY,
})
  .map(([name, value]) => `${name}: ${value}\r\n`)
  .join('');
