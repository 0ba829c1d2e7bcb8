import { existsSync, readdirSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from '@playwright/test';
import fc from 'fast-check';
import { Client, request } from 'undici';
import { inlineHashes } from '../../src/node/security-headers';
import { generator, type FuzzRequest, type FuzzSeeds } from './fuzz';
import { SOAK_KEY, type SoakServer } from './server';

/**
 * The hardened page and API (issue 29, docs/app.md "Security headers"): every answer of every kind
 * carries the security headers, an HTML page's policy names exactly the inline scripts it was served
 * with, and in a real browser (Debian's Chromium) the app and /docs run with the policy on without a
 * single violation, a key typed in /docs is stored nowhere, injected inline script does not run, and
 * the app cannot be framed.
 */

export interface PageResult {
  readonly answers: number;
  /** Answers without one of the headers (nosniff, Referrer-Policy, X-Frame-Options, a CSP with frame-ancestors 'none'). */
  readonly missingHeaders: number;
  /** HTML pages whose policy allowed inline script, or did not name exactly the inline scripts served. */
  readonly pagePolicyMismatches: number;
  readonly byStatus: Readonly<Record<string, number>>;
  /** Browser part: skipped when there is no built app (dist/) or no Chromium. */
  readonly browser?: {
    readonly pageLoads: number;
    readonly violations: number;
    readonly docsKeyStored: boolean;
    readonly docsRequestWithKey: number;
    readonly injectedRan: boolean;
    readonly injectionRefused: number;
    readonly framed: boolean;
  };
  readonly browserSkipped?: string;
  readonly examples: readonly string[];
}

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Whether the answer's headers are all there; for an HTML page, whether its policy fits its body. */
function judge(
  headers: Record<string, string | string[] | undefined>,
  body: string | undefined,
): { missing?: string; mismatch?: string } {
  const get = (name: string) => String(headers[name] ?? '');
  const policy = get('content-security-policy');
  if (get('x-content-type-options') !== 'nosniff') return { missing: 'X-Content-Type-Options' };
  if (get('referrer-policy') !== 'no-referrer') return { missing: 'Referrer-Policy' };
  if (get('x-frame-options') !== 'DENY') return { missing: 'X-Frame-Options' };
  if (!policy.includes("frame-ancestors 'none'")) return { missing: `Content-Security-Policy (${policy || 'none'})` };
  if (body !== undefined && /^text\/html/.test(get('content-type'))) {
    const sources = (/script-src ([^;]*)/.exec(policy)?.[1] ?? '')
      .split(' ')
      .filter((s) => s !== "'self'")
      .sort();
    const served = [...inlineHashes(body).scripts].sort();
    if (
      /unsafe-inline|unsafe-eval/.test(/script-src ([^;]*)/.exec(policy)?.[1] ?? '') ||
      JSON.stringify(sources) !== JSON.stringify(served)
    ) {
      return { mismatch: `script-src ${sources.join(' ')} for inline scripts ${served.join(' ')}` };
    }
  }
  return {};
}

/** A raw exchange's status and headers (what Node and the raw-path guard write themselves). */
function rawExchange(port: number, text: string): Promise<{ status: number; headers: Record<string, string> }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.setTimeout(5_000, () => socket.destroy(new Error('no answer within 5 s')));
    socket.on('data', (chunk: Buffer) => (answer += chunk.toString('latin1')));
    socket.on('error', reject);
    socket.on('close', () => {
      const [head = ''] = answer.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines)
        headers[line.slice(0, line.indexOf(':')).trim().toLowerCase()] = line.slice(line.indexOf(':') + 1).trim();
      resolve({ status: Number(statusLine.split(' ')[1]), headers });
    });
    socket.write(text);
  });
}

/** Requests of the page's own surfaces: the app with odd queries and deep links, its files, /docs, /openapi.json, /healthz. */
function pageRequests(count: number, seed: number): FuzzRequest[] {
  const assets = existsSync('dist/assets')
    ? readdirSync('dist/assets')
        .filter((f) => !/\.(br|gz|map)$/.test(f))
        .map((f) => `/assets/${f}`)
    : [];
  const odd = fc.oneof(
    fc.constantFrom(
      '<script>alert(1)</script>',
      '"><img src=x onerror=alert(1)>',
      "'",
      '%00',
      '../../etc/passwd',
      'ADA.SNEK_Aggregate_Pool1',
      'javascript:alert(1)',
    ),
    fc.string({ maxLength: 30 }),
  );
  const path = fc.oneof(
    fc.constantFrom(
      '/',
      '/index.html',
      '/favicon.svg',
      '/docs',
      '/docs/',
      '/docs/assets/init.js',
      '/docs/assets/docs.css',
      '/docs/assets/swagger-ui.css',
      '/docs/assets/nope.js',
      '/openapi.json',
      '/healthz',
      '/robots.txt',
      ...assets,
    ),
    fc
      .tuple(fc.constantFrom('symbol', 'group', 'res', 'view', 'x'), odd)
      .map(([k, v]) => `/?${k}=${encodeURIComponent(v)}`),
    odd.map((v) => `/${encodeURIComponent(v)}`),
    odd.map((v) => `/assets/${encodeURIComponent(v)}`),
  );
  const method = fc.constantFrom('GET', 'GET', 'GET', 'HEAD', 'POST', 'OPTIONS');
  return fc.sample(
    fc
      .tuple(path, method)
      .map(([p, m]): FuzzRequest => ({ method: m, path: p, headers: { Accept: 'text/html,*/*' }, endpoint: 'page' })),
    { numRuns: count, seed },
  );
}

/** Sends every request and judges every answer's headers. */
async function headerCoverage(
  server: SoakServer,
  seeds: FuzzSeeds,
  count: number,
  seed: number,
): Promise<Pick<PageResult, 'answers' | 'missingHeaders' | 'pagePolicyMismatches' | 'byStatus' | 'examples'>> {
  const requests = [
    ...fc.sample(generator(seeds), { numRuns: Math.round(count * 0.7), seed }),
    ...pageRequests(Math.round(count * 0.3), seed),
  ];
  const rawClient = new Client(server.origin);
  const byStatus: Record<string, number> = {};
  const examples: string[] = [];
  let answers = 0;
  let missing = 0;
  let mismatches = 0;
  const record = (status: number, req: string, verdict: { missing?: string; mismatch?: string }) => {
    answers++;
    byStatus[status] = (byStatus[status] ?? 0) + 1;
    if (verdict.missing) missing++;
    if (verdict.mismatch) mismatches++;
    const problem = verdict.missing ?? verdict.mismatch;
    if (problem && examples.length < 20) examples.push(`${status} ${req.slice(0, 160)}: ${problem}`);
  };
  let next = 0;
  const worker = async () => {
    for (;;) {
      const req = requests[next++];
      if (!req) return;
      const abort = new AbortController();
      const timer = setTimeout(() => abort.abort(), 5_000);
      try {
        const body = req.body !== undefined && req.method !== 'GET' && req.method !== 'HEAD' ? { body: req.body } : {};
        const response = req.raw
          ? await rawClient.request({
              path: req.path,
              method: req.method as 'GET',
              headers: req.headers,
              ...body,
              signal: abort.signal,
            })
          : await request(`${server.origin}${req.path}`, {
              method: req.method as 'GET',
              headers: req.headers,
              ...body,
              signal: abort.signal,
            });
        const type = String(response.headers['content-type'] ?? '');
        // Streams are judged by their head; a page by its head and body.
        let text: string | undefined;
        if (/event-stream|ndjson/.test(type)) {
          abort.abort();
          await response.body.text().catch(() => '');
        } else text = await response.body.text();
        record(response.statusCode, `${req.method} ${req.path}`, judge(response.headers, text));
      } catch {
        // Unsendable or dropped: the fuzz part judges those; here only answers count.
      } finally {
        clearTimeout(timer);
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  await rawClient.close().catch(() => undefined);
  // What Node and the raw-path guard answer on the socket themselves.
  for (const [name, text] of [
    ['dot segments', 'GET /gw/v1/%2e%2e/healthz HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['backslash', 'GET /api/v1/groups\\ HTTP/1.1\r\nHost: x\r\n\r\n'],
    ['headers too large', `GET /api/v1/groups HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`],
    ['not HTTP', 'HELLO\r\n\r\n'],
  ] as const) {
    const answer = await rawExchange(server.port, text);
    record(answer.status, name, judge(answer.headers, undefined));
  }
  return { answers, missingHeaders: missing, pagePolicyMismatches: mismatches, byStatus, examples };
}

/** Counts what the policy refused in every page of `context`, as the e2e fixture does (e2e/support/fixtures.ts). */
async function watchViolations(context: BrowserContext): Promise<string[]> {
  const violations: string[] = [];
  await context.exposeBinding('__reportCspViolation', ({ page }, v: { directive: string; blocked: string }) =>
    violations.push(`${page.url()}: ${v.directive} ${v.blocked}`),
  );
  await context.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      (
        window as unknown as { __reportCspViolation?: (v: { directive: string; blocked: string }) => void }
      ).__reportCspViolation?.({ directive: event.effectiveDirective, blocked: event.blockedURI });
    });
  });
  return violations;
}

async function authorizeAndTry(page: Page, key: string): Promise<number> {
  await page.getByRole('button', { name: 'Authorize' }).first().click();
  const dialog = page.locator('.dialog-ux');
  await dialog.locator('input').first().fill(key);
  await dialog.getByRole('button', { name: 'Apply credentials' }).click();
  await dialog.getByRole('button', { name: 'Close' }).first().click();
  const groups = page
    .locator('.opblock')
    .filter({ has: page.locator('.opblock-summary-path[data-path="/api/v1/groups"]') });
  await groups.locator('.opblock-summary-control').click();
  await groups.getByRole('button', { name: 'Try it out' }).click();
  const answered = page.waitForResponse((r) => r.url().endsWith('/api/v1/groups'));
  await groups.getByRole('button', { name: 'Execute' }).click();
  return (await answered).status();
}

async function inBrowser(server: SoakServer, loads: number): Promise<NonNullable<PageResult['browser']>> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
  try {
    const context = await browser.newContext();
    const violations = await watchViolations(context);
    const page = await context.newPage();
    const urls = [
      '/',
      '/?group=MinswapV2',
      '/?view=markets',
      `/?symbol=${encodeURIComponent('<script>alert(1)</script>')}`,
      '/some/deep/link',
      '/?res=1',
    ];
    for (let i = 0; i < loads; i++) {
      await page.goto(`${server.origin}${urls[i % urls.length]}`);
      // The app at work: its chart ready, or the overview's rows (or, for a symbol that is none, its message).
      await page
        .waitForSelector(
          '[data-testid="price-chart"][data-status="ready"], [data-testid="price-chart"][data-status="error"], [role="row"]',
          { timeout: 20_000 },
        )
        .catch(() => undefined);
      await page.waitForTimeout(300);
    }

    await page.goto(`${server.origin}/docs`);
    const docsRequestWithKey = await authorizeAndTry(page, SOAK_KEY);
    const kept = await page.evaluate(async () =>
      JSON.stringify({
        local: { ...localStorage },
        session: { ...sessionStorage },
        cookie: document.cookie,
        idb: await indexedDB.databases(),
      }),
    );
    const docsKeyStored = kept.includes(SOAK_KEY) || JSON.stringify(await context.storageState()).includes(SOAK_KEY);
    const cleanViolations = violations.length;

    // Provoked on purpose: an injected inline script and event handler (refused), a frame (refused).
    await page.goto(`${server.origin}/`);
    const injectedRan = await page.evaluate(async () => {
      const script = document.createElement('script');
      script.textContent = 'window.__injected = true;';
      document.body.append(script);
      const img = document.createElement('img');
      img.setAttribute('src', 'data:,');
      img.setAttribute('onerror', 'window.__injected = true;');
      document.body.append(img);
      await new Promise((resolve) => setTimeout(resolve, 300));
      return (window as unknown as { __injected?: boolean }).__injected === true;
    });
    await page.waitForTimeout(300);
    const injectionRefused = violations.length - cleanViolations;
    const framing = await context.newPage();
    await framing.setContent(`<iframe id="app" src="${server.origin}/"></iframe>`);
    await framing.waitForTimeout(2_000);
    const framed = framing.frames().some((f) => f.url().startsWith(server.origin));
    return {
      pageLoads: loads,
      violations: cleanViolations,
      docsKeyStored,
      docsRequestWithKey,
      injectedRan,
      injectionRefused,
      framed,
    };
  } finally {
    await browser.close();
  }
}

export async function hardenedPage(
  server: SoakServer,
  seeds: FuzzSeeds,
  options: { requests: number; loads: number; seed: number },
): Promise<PageResult> {
  const coverage = await headerCoverage(server, seeds, options.requests, options.seed);
  if (!existsSync(join('dist', 'index.html')))
    return { ...coverage, browserSkipped: 'no built app (run npm run build first)' };
  if (!existsSync(CHROMIUM)) return { ...coverage, browserSkipped: `no Chromium at ${CHROMIUM}` };
  return { ...coverage, browser: await inBrowser(server, options.loads) };
}
