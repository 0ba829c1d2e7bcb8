import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_GATEWAY_CONFIG } from '../../src/gateway/config';
import { createPlatform, type Platform } from '../../src/server/platform';
import {
  chunkFiles,
  headInTheme,
  inlinedBarsElement,
  inlinedInfoElement,
  inlinedPreferencesElement,
  inlineStylesheets,
  OVERVIEW_MODULES,
  splitPage,
} from '../../src/server/first-paint';
import { DEFAULT_PREFERENCES, firstScreenPreferences } from '../../src/app/stores/preferences';
import { cspHash, pagePolicy } from '../../src/node/security-headers';
import { firstChartOf } from '../../src/app/lib/first-chart';
import { NODE_SERVER_OPTIONS } from '../../src/node/response-sink';
import { parseServiceConfig } from '../../src/service/config';
import { priceErrorSchema, tokenErrorSchema } from '../../src/shared/api/errors';
import { expectDescribed } from '../support/openapi';
import { gatewayInfoSchema, gatewayLiquiditySchema, gatewayTokenNamesSchema } from '../../src/shared/api/gateway';

/** The composed server (`npm run serve`, the Vite plugin): the service's contract must hold through it. */

const KEY = 'platform-test-key-0001';
const INDEX =
  '<!doctype html><html data-theme="dark"><head><title>app</title></head><body><div id="root"></div></body></html>';
const SCRIPT = `console.log(${JSON.stringify('x'.repeat(4000))});`;
/** The build's manifest (Vite's build.manifest) as vite.config.ts makes it: the page's entry, the app's and the overview's chunks. */
const MANIFEST = {
  'index.html': {
    file: 'assets/index-e1.js',
    isEntry: true,
    dynamicImports: ['src/app/start.tsx', 'src/app/features/overview/index.ts'],
  },
  'src/app/start.tsx': {
    file: 'assets/start-s1.js',
    isDynamicEntry: true,
    imports: ['_runtime-r1.js', '_shared-c1.js', 'index.html'],
    dynamicImports: ['src/app/features/overview/index.ts'],
  },
  'src/app/features/overview/index.ts': {
    file: 'assets/overview-o1.js',
    isDynamicEntry: true,
    imports: ['_runtime-r1.js', '_shared-c1.js', 'index.html', '_settings-t1.js'],
  },
  '_runtime-r1.js': { file: 'assets/runtime-r1.js' },
  '_shared-c1.js': { file: 'assets/shared-c1.js', imports: ['_runtime-r1.js'] },
  '_settings-t1.js': { file: 'assets/settings-t1.js' },
  'src/app/features/alerts/index.ts': {
    file: 'assets/alerts-a1.js',
    isDynamicEntry: true,
    imports: ['_runtime-r1.js'],
  },
};
/** The head's preloads of an overview page of MANIFEST: the chunks of OVERVIEW_MODULES with their imports (less the entry), then the list. */
const OVERVIEW_CHUNKS = [
  '/assets/start-s1.js',
  '/assets/runtime-r1.js',
  '/assets/shared-c1.js',
  '/assets/overview-o1.js',
  '/assets/settings-t1.js',
];
let platform: Platform;
let dir: string;
const lines: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'platform-routing-'));
  // A build as vite.config.ts makes it: each asset also as .br and .gz beside it.
  mkdirSync(join(dir, 'build', 'assets'), { recursive: true });
  writeFileSync(join(dir, 'build', 'index.html'), INDEX);
  mkdirSync(join(dir, 'build', '.vite'));
  writeFileSync(join(dir, 'build', '.vite', 'manifest.json'), JSON.stringify(MANIFEST));
  writeFileSync(join(dir, 'build', 'assets', 'app-1a2b.js'), SCRIPT);
  writeFileSync(join(dir, 'build', 'assets', 'app-1a2b.js.br'), brotliCompressSync(SCRIPT));
  writeFileSync(join(dir, 'build', 'assets', 'app-1a2b.js.gz'), gzipSync(SCRIPT));
  platform = await createPlatform({
    service: parseServiceConfig(
      { 'data-dir': dir, pools: '200', days: '1', seed: '7' },
      { TOKEN_API_KEYS: `${KEY}:pro` },
    ),
    gateway: DEFAULT_GATEWAY_CONFIG,
    staticDir: join(dir, 'build'),
    hooks: { log: (line) => lines.push(line) },
  });
});
afterAll(async () => {
  await platform.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A request to the composed server; answers under the API's prefixes are checked against the OpenAPI document. */
const request = async (path: string, init: RequestInit = {}) => {
  const response = await platform.app.request(path, {
    ...init,
    headers: { Authorization: `Bearer ${KEY}`, ...init.headers },
  });
  await expectDescribed(init.method ?? 'GET', path, response);
  return response;
};

describe('the composed server', () => {
  it('answers unknown paths under /api/v1 with 404 in the family’s error shape', async () => {
    for (const path of ['/api/v1/nope', '/api/v1', '/api/v1/groups/x', '/api/v1/tokens/logo/']) {
      const response = await request(path);
      expect(response.status, path).toBe(404);
      expect(response.headers.get('content-type'), path).toMatch(/application\/json/);
      const body: unknown = await response.json();
      if (path.startsWith('/api/v1/tokens')) expect(tokenErrorSchema.parse(body).detail.length).toBeGreaterThan(0);
      else expect(priceErrorSchema.parse(body).errmsg).toContain('Unknown endpoint');
    }
  });

  it('answers paths under an API prefix that no part serves with a JSON 404 too (the soak fuzz found text/plain)', async () => {
    for (const path of ['/gw/healthz', '/api/nothing', '/gw', '/api']) {
      const response = await request(path);
      expect(response.status, path).toBe(404);
      expect(priceErrorSchema.parse(await response.json()).errmsg, path).toBe(`Unknown endpoint: GET ${path}`);
    }
  });

  it('answers a wrong method with 405, Allow and the family’s error shape', async () => {
    const post = await request('/api/v1/groups', { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    expect(priceErrorSchema.parse(await post.json()).errmsg).toMatch(/POST/);
    const del = await request('/api/v1/tokens/current', { method: 'DELETE' });
    expect(del.status).toBe(405);
    expect(tokenErrorSchema.parse(await del.json()).detail[0]?.loc).toEqual(['method']);
    const get = await request('/api/v1/tokens/stream');
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST, OPTIONS');
  });

  it('serves the API and /healthz as the service does', async () => {
    expect((await request('/api/v1/groups')).status).toBe(200);
    expect((await request('/api/v1/groups', { headers: { Authorization: 'Bearer wrong-key-123' } })).status).toBe(401);
    const health = await platform.app.request('/healthz');
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({ status: 'ok' });
  });

  it("gives every token's name at once on /gw/v1/token-info, for search", async () => {
    const response = await platform.app.request('/gw/v1/token-info');
    expect(response.status).toBe(200);
    const body = gatewayTokenNamesSchema.parse(await response.json());
    const market = platform.runtime?.market;
    expect(body.unit).toHaveLength((market?.tokens.size ?? 0) - 1);
    expect(body.unit).not.toContain('');
    const wmt = body.ticker.indexOf('WMT');
    expect(body.name[wmt]).toBe('World Mobile Token');
    expect(body.unit[wmt]).toBe(market?.tokens.get(body.unit[wmt] ?? '')?.unit);
    expect((await platform.app.request('/gw/v1/token-info', { method: 'POST' })).status).toBe(405);
  });

  it("names each group's deepest pool on /gw/v1/info, as /gw/v1/liquidity ranks them", async () => {
    const info = gatewayInfoSchema.parse(await (await platform.app.request('/gw/v1/info')).json());
    for (const group of ['Aggregate', 'MinswapV2']) {
      const liquidity = gatewayLiquiditySchema.parse(
        await (await platform.app.request(`/gw/v1/liquidity?group=${group}`)).json(),
      );
      const top = liquidity.tvl_ada.indexOf(Math.max(...liquidity.tvl_ada));
      expect(info.deepest?.[group], group).toBe(liquidity.ticker[top]);
    }
  });

  it('logs one line per request with method, path, status and duration, and never the key', async () => {
    lines.length = 0;
    await request('/api/v1/groups');
    await request('/api/v1/history?symbol=nope&resolution=1min&from=0&to=10');
    await request('/gw/v1/groups');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(/^GET \/api\/v1\/groups 200 \d+\.\dms$/);
    expect(lines[1]).toMatch(/^GET \/api\/v1\/history\?symbol=nope&resolution=1min&from=0&to=10 404 \d+\.\dms$/);
    expect(lines[2]).toMatch(/^GET \/gw\/v1\/groups 200 /);
    for (const line of lines) expect(line).not.toContain(KEY);
  });

  it("sends the build's precompressed assets as they are (brotli, gzip) and the plain file otherwise, cached for good", async () => {
    const asset = '/assets/app-1a2b.js';
    const br = await platform.app.request(asset, { headers: { 'Accept-Encoding': 'gzip, deflate, br' } });
    expect(br.status).toBe(200);
    expect(br.headers.get('content-encoding')).toBe('br');
    expect(br.headers.get('vary')).toMatch(/accept-encoding/i);
    expect(br.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(brotliDecompressSync(Buffer.from(await br.arrayBuffer())).toString()).toBe(SCRIPT);
    const gz = await platform.app.request(asset, { headers: { 'Accept-Encoding': 'gzip' } });
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    expect(gunzipSync(Buffer.from(await gz.arrayBuffer())).toString()).toBe(SCRIPT);
    const plain = await platform.app.request(asset);
    expect(plain.headers.get('content-encoding')).toBeNull();
    expect(await plain.text()).toBe(SCRIPT);
    // Any other path is the app (the SPA decides), never cached.
    const page = await platform.app.request('/some/deep/link?symbol=x');
    expect(page.headers.get('cache-control')).toBe('no-cache');
    expect(withoutFirstPaint(await page.text())).toBe(INDEX);
  });

  it("carries /gw/v1/info in the page, for its first paint: on /, /index.html and the SPA's other paths, compressed when asked", async () => {
    const info = gatewayInfoSchema.parse(await (await platform.app.request('/gw/v1/info')).json());
    for (const path of ['/', '/index.html', '/?symbol=ADA.SNEK_Aggregate_Pool1', '/some/deep/link']) {
      const page = await platform.app.request(path);
      expect(page.status).toBe(200);
      expect(page.headers.get('cache-control')).toBe('no-cache');
      const html = await page.text();
      const inline = gatewayInfoSchema.parse(JSON.parse(inlinedInfoOf(html) ?? 'null'));
      expect(inline.deepest).toEqual(info.deepest);
      expect(inline.simulated).toBe(true);
      expect(withoutFirstPaint(html)).toBe(INDEX);
    }
    const gz = await platform.app.request('/', { headers: { 'Accept-Encoding': 'gzip' } });
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    expect(inlinedInfoOf(gunzipSync(Buffer.from(await gz.arrayBuffer())).toString())).toBeDefined();
  });
});

describe("the page's first bars", () => {
  it("are the gateway's answer to the first chart's first request, as the first paint asks it: for a pair in the URL, or the group's deepest", async () => {
    const info = gatewayInfoSchema.parse(await (await platform.app.request('/gw/v1/info')).json());
    const pool = info.deepest?.MinswapV2;
    expect(pool).toBeDefined();
    for (const search of [
      '',
      '?group=MinswapV2&res=15',
      `?group=Aggregate&symbol=${pool?.toUpperCase() ?? ''}&res=1D`,
      '?res=5min',
    ]) {
      const before = Date.now();
      const page = await platform.app.request(`/${search}`);
      const after = Date.now();
      expect(page.status).toBe(200);
      const html = await page.text();
      const bars = inlinedBarsOf(html);
      // The URL the first paint builds at that moment (two, were a bar's bucket to end in between).
      expect([firstChartOf(search, info, before)?.url, firstChartOf(search, info, after)?.url]).toContain(bars?.url);
      const answer = await platform.app.request(bars?.url ?? '/gw/v1/history');
      expect(answer.status).toBe(200);
      const body = JSON.parse(bars?.body ?? 'null') as { s: string; t: number[] };
      expect(body).toEqual(await answer.json());
      expect(body.s).toBe('ok');
      expect(body.t.length).toBeGreaterThan(0);
      expect(withoutFirstPaint(html)).toBe(INDEX);
    }
    // A pool ID in the URL is asked in lower case, as the chart asks it.
    expect(
      inlinedBarsOf(await (await platform.app.request(`/?symbol=${pool?.toUpperCase() ?? ''}`)).text())?.url,
    ).toContain(`symbol=${pool ?? ''}&`);
  });

  it('are left out where the first chart asks none or its answer is not bars: the overview, a ticker, an unknown pool', async () => {
    for (const path of [
      '/?view=markets',
      '/?view=markets&group=MinswapV2',
      '/?symbol=SNEK',
      `/?symbol=${'ab'.repeat(28)}`,
      '/some/deep/link?symbol=x',
    ]) {
      const html = await (await platform.app.request(path)).text();
      expect(inlinedBarsOf(html), path).toBeUndefined();
      expect(inlinedInfoOf(html), path).toBeDefined();
      expect(withoutFirstPaint(html)).toBe(INDEX);
    }
  });

  it('cannot end their element early, keep every character of the answer, and give the URL back as it was', () => {
    const bars = {
      url: '/gw/v1/history?symbol=a"b<c>&resolution=60min',
      body: JSON.stringify({ s: 'ok', note: '</script><script>alert(1)</script><!--', dollar: '$& $1 $$' }),
    };
    const html = withElement(INDEX, inlinedBarsElement(bars));
    expect(html.match(/<\/script>/g)).toHaveLength(1);
    expect(html).not.toContain('<!--');
    const inline = inlinedBarsOf(html);
    expect(inline?.url).toBe(bars.url);
    expect(JSON.parse(inline?.body ?? 'null')).toEqual(JSON.parse(bars.body));
    expect(inlinedBarsElement(undefined)).toBe('');
  });
});

describe("the page's skeleton", () => {
  it("is the app's first render of the URL: the chart page with its chart's place, or the overview loading", async () => {
    const chart = skeletonOf(
      await (await platform.app.request('/?symbol=ADA.SNEK_Aggregate_Pool1&res=15&inv=1')).text(),
    );
    expect(chart).toContain('class="app"');
    expect(chart).toMatch(/<div class="chart__canvas" data-testid="price-chart" role="slider"/);
    expect(chart).toContain('data-testid="resolution-15"');
    expect(chart).toMatch(/aria-pressed="true"[^>]*data-testid="resolution-15"/);
    // The invert toggle names the URL's pair, inverted, as the app's first render does.
    expect(chart).toMatch(/data-testid="invert-toggle"[^>]*><span[^>]*>ADA\/SNEK ⇄/);
    expect(chart).toContain('data-testid="simulated-badge"');
    const overview = skeletonOf(await (await platform.app.request('/?view=markets&group=MinswapV2')).text());
    // The overview itself, loading its pairs, as the app first renders it (its chunk is in before).
    expect(overview).toContain('data-testid="market-overview"');
    expect(overview).toMatch(/data-testid="market-overview" data-group="MinswapV2" data-status="loading"/);
    expect(overview).toContain('data-testid="overview-loading"');
    expect(overview).not.toContain('<template');
    expect(overview).not.toContain('data-testid="price-chart"');
  });

  it('follows the preferences the app wrote in its cookie: theme, time zone, chart options', async () => {
    const cookie = `preferences=${encodeURIComponent(JSON.stringify({ theme: 'light', timeZone: 'local', showVolume: false }))}`;
    const skeleton = skeletonOf(await (await platform.app.request('/', { headers: { Cookie: cookie } })).text());
    expect(skeleton).toMatch(/data-testid="theme-toggle" data-theme="light"/);
    expect(skeleton).toMatch(/data-testid="timezone-toggle" data-timezone="local"/);
    expect(skeleton).toMatch(/aria-pressed="false" data-testid="toggle-volume"/);
    const plain = skeletonOf(await (await platform.app.request('/')).text());
    expect(plain).toMatch(/data-testid="theme-toggle" data-theme="dark"/);
    expect(plain).toMatch(/aria-pressed="true" data-testid="toggle-volume"/);
  });

  it("is sent in the cookie's theme from its first byte, and carries the preferences it is laid out with for the page's first paint", async () => {
    const stored = {
      theme: 'light',
      timeZone: 'local',
      showVolume: false,
      indicators: 'sma20',
      watchlist: [{ symbol: 'x', group: 'y' }],
    };
    const page = await (
      await platform.app.request('/', {
        headers: { Cookie: `a=1; preferences=${encodeURIComponent(JSON.stringify(stored))}` },
      })
    ).text();
    // The root element's theme: the first frame, drawn before any script, is in the user's colours.
    expect(page).toMatch(/^<!doctype html>\s*<html data-theme="light">/);
    const carried = (html: string) =>
      JSON.parse(
        /<script type="application\/json" id="inlined-preferences">([^<]*)<\/script>/.exec(html)?.[1] ?? 'null',
      ) as unknown;
    // What the first screen shows, as the skeleton has it: the cookie never has the watchlist.
    expect(carried(page)).toEqual({
      ...firstScreenPreferences(DEFAULT_PREFERENCES),
      theme: 'light',
      timeZone: 'local',
      showVolume: false,
      indicators: 'sma20',
    });
    expect(page.indexOf('id="inlined-preferences"')).toBeLessThan(page.indexOf('</head>'));
    const plain = await (await platform.app.request('/?view=markets&group=MinswapV2')).text();
    expect(plain).toMatch(/^<!doctype html>\s*<html data-theme="dark">/);
    expect(carried(plain)).toEqual(firstScreenPreferences(DEFAULT_PREFERENCES));
  });

  it('names the theme on a root element of any shape, and the carried preferences cannot end their element early', () => {
    expect(headInTheme('<!doctype html><html lang="en" data-theme="dark"><head>', 'light')).toBe(
      '<!doctype html><html lang="en" data-theme="light"><head>',
    );
    expect(headInTheme('<!doctype html><html><head>', 'light')).toBe('<!doctype html><html data-theme="light"><head>');
    const element = inlinedPreferencesElement({
      ...firstScreenPreferences(DEFAULT_PREFERENCES),
      indicators: '</script><script>alert(1)</script>',
    });
    expect(element.match(/<\/script>/g)).toHaveLength(1);
    expect(JSON.parse(/>([^<]*)<\/script>$/.exec(element)?.[1] ?? 'null')).toMatchObject({
      indicators: '</script><script>alert(1)</script>',
    });
  });
});

describe('the page as it is sent', () => {
  it('is compressed in the encoding the browser wants most, brotli first among equals, and whole in each', async () => {
    for (const [accept, encoding] of [
      ['gzip, deflate, br, zstd', 'br'],
      ['gzip', 'gzip'],
      ['br;q=0, gzip', 'gzip'],
      ['br;q=0.5, gzip;q=0.8', 'gzip'],
      ['*', 'br'],
      ['deflate', null],
      ['', null],
    ] as const) {
      const page = await platform.app.request('/?symbol=ADA.SNEK_Aggregate_Pool1', {
        headers: { 'Accept-Encoding': accept },
      });
      expect(page.status).toBe(200);
      expect(page.headers.get('content-encoding'), accept).toBe(encoding);
      expect(page.headers.get('vary')).toMatch(/accept-encoding/i);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      const bytes = Buffer.from(await page.arrayBuffer());
      const html = (
        encoding === 'br' ? brotliDecompressSync(bytes) : encoding === 'gzip' ? gunzipSync(bytes) : bytes
      ).toString();
      expect(inlinedBarsOf(html), accept).toBeDefined();
      expect(inlinedInfoOf(html), accept).toBeDefined();
      expect(withoutFirstPaint(html)).toBe(INDEX);
    }
  });

  it('sends everything before the answers at once, while a remote upstream has not answered, and the rest after', async () => {
    // An upstream that holds every request until told.
    const held: ServerResponse[] = [];
    const upstream = createServer((_request, response) => void held.push(response));
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const front = await createPlatform({
      service: parseServiceConfig({ 'data-dir': join(dir, 'unused') }, {}),
      gateway: {
        ...DEFAULT_GATEWAY_CONFIG,
        upstreamUrl: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
        upstreamApiKey: 'unused-key-0001',
      },
      staticDir: join(dir, 'build'),
    });
    const server = await new Promise<ServerType>((resolve) => {
      const s = serve({ fetch: front.app.fetch, port: 0, hostname: '127.0.0.1', ...NODE_SERVER_OPTIONS }, () =>
        resolve(s),
      );
    });
    const [built, , end] = splitPage(INDEX);
    // As built, with the preferences the page is laid out with (the defaults: no cookie).
    const head = built.replace(
      '</head>',
      `${inlinedPreferencesElement(firstScreenPreferences(DEFAULT_PREFERENCES))}</head>`,
    );
    expect(head.endsWith('<div id="root">')).toBe(true);
    expect(end).toBe('</body></html>');
    try {
      for (const encoding of ['br', 'gzip', 'identity']) {
        const answer = await fetch(
          `http://127.0.0.1:${(server.address() as AddressInfo).port}/?symbol=ADA.SNEK_Aggregate_Pool1`,
          { headers: { 'Accept-Encoding': encoding } },
        );
        expect(answer.headers.get('content-encoding') ?? 'identity').toBe(encoding);
        const reader = (answer.body ?? new ReadableStream<Uint8Array>()).getReader();
        const text = new TextDecoder();
        let received = '';
        while (received.length < head.length) {
          const chunk = await reader.read();
          if (chunk.done) break;
          received += text.decode(chunk.value, { stream: true });
        }
        // The head, before the upstream answered anything: the skeleton may follow (its /info waited 100 ms
        // at most), the first bars and the page's end may not.
        expect(received.startsWith(head), encoding).toBe(true);
        expect(received, encoding).not.toContain('</body>');
        expect(held.length, encoding).toBeGreaterThan(0);
        for (const response of held.splice(0)) response.writeHead(503).end();
        for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read())
          received += text.decode(chunk.value, { stream: true });
        // No bars from an upstream that failed: the page as built, with the gateway's own /info.
        expect(received.endsWith(end), encoding).toBe(true);
        expect(inlinedBarsOf(received), encoding).toBeUndefined();
        expect(withoutFirstPaint(received), encoding).toBe(INDEX);
      }
    } finally {
      for (const response of held.splice(0)) response.writeHead(503).end();
      await new Promise((resolve) => server.close(resolve));
      await front.close();
      await new Promise((resolve) => upstream.close(resolve));
    }
  });
});

describe("the overview page's preloads", () => {
  it("ask the app's and the overview's chunks from the head, then the group's list as the page's script asks it", async () => {
    for (const [search, group] of [
      ['?view=markets&group=Aggregate', 'Aggregate'],
      ['?group=MinswapV2&view=markets', 'MinswapV2'],
      ['?view=markets', 'Aggregate'],
    ] as const) {
      const html = await (await platform.app.request(`/${search}`)).text();
      const head = html.slice(0, html.indexOf('</head>'));
      const links = [
        ...head.matchAll(/<link rel="(modulepreload|preload)"( as="fetch")? crossorigin href="([^"]*)">/g),
      ].map((m) => `${m[1] ?? ''} ${m[3] ?? ''}`);
      expect(links, search).toEqual([
        ...OVERVIEW_CHUNKS.map((file) => `modulepreload ${file}`),
        `preload /gw/v1/group-stats?group=${group}`,
      ]);
      // The URL the app asks (a preload answers only a request of the very same URL).
      expect(await (await platform.app.request(`/gw/v1/group-stats?group=${group}`)).json()).toMatchObject({
        s: 'ok',
        group,
      });
      expect(withoutFirstPaint(html)).toBe(INDEX);
    }
  });

  it('are none on the chart page, whose head stays as built', async () => {
    for (const path of [
      '/',
      '/?symbol=ADA.SNEK_Aggregate_Pool1&res=15',
      '/some/deep/link',
      '/?view=chart&group=MinswapV2',
    ]) {
      const html = await (await platform.app.request(path)).text();
      // As built, with the preferences it is laid out with (the defaults: no cookie) for its first paint.
      expect(html.slice(0, html.indexOf('<div id="root">')), path).toBe(
        INDEX.slice(0, INDEX.indexOf('<div id="root">')).replace(
          '</head>',
          `${inlinedPreferencesElement(firstScreenPreferences(DEFAULT_PREFERENCES))}</head>`,
        ),
      );
    }
  });

  it("name a group's list as an attribute can carry it, and the manifest is not served", async () => {
    const html = await (await platform.app.request(`/?view=markets&group=${encodeURIComponent('a"b<c>&d')}`)).text();
    expect(html).toContain(
      '<link rel="preload" as="fetch" crossorigin href="/gw/v1/group-stats?group=a%22b%3Cc%3E%26d">',
    );
    expect((await platform.app.request('/.vite/manifest.json')).status).toBe(404);
  });

  it("follow the manifest's static imports once each, without the page's entry, and skip a module it lacks", () => {
    expect(chunkFiles(MANIFEST, OVERVIEW_MODULES)).toEqual(OVERVIEW_CHUNKS);
    expect(chunkFiles(MANIFEST, ['src/app/features/alerts/index.ts', 'src/gone.ts'])).toEqual([
      '/assets/alerts-a1.js',
      '/assets/runtime-r1.js',
    ]);
    expect(chunkFiles({}, OVERVIEW_MODULES)).toEqual([]);
  });
});

describe("the page's stylesheet", () => {
  it("is inlined from the build, and the page's policy names exactly its text; one that cannot be is left a link", () => {
    const build = mkdtempSync(join(tmpdir(), 'page-styles-'));
    try {
      mkdirSync(join(build, 'assets'));
      const css =
        ".topbar{display:flex}.logo{background:url('/favicon.svg')}.x{background:url(data:image/png;base64,AA==)}";
      writeFileSync(join(build, 'assets', 'index-a1.css'), css);
      writeFileSync(join(build, 'assets', 'relative-b2.css'), '.y{background:url(img/a.png)}');
      writeFileSync(join(build, 'assets', 'closing-c3.css'), '.z{content:"</style>"}');
      const link = (file: string) => `<link rel="stylesheet" crossorigin href="/assets/${file}">`;
      const html = `<!doctype html><html><head>${link('index-a1.css')}${link('relative-b2.css')}${link('closing-c3.css')}${link('gone-d4.css')}</head><body><div id="root"></div></body></html>`;
      const page = inlineStylesheets(html, build);
      expect(page).toBe(
        `<!doctype html><html><head><style>${css}</style>${link('relative-b2.css')}${link('closing-c3.css')}${link('gone-d4.css')}</head><body><div id="root"></div></body></html>`,
      );
      const styleSrc = pagePolicy(page)
        .split(';')
        .map((d) => d.trim())
        .find((d) => d.startsWith('style-src '));
      expect(styleSrc).toBe(`style-src 'self' ${cspHash(css)}`);
    } finally {
      rmSync(build, { recursive: true, force: true });
    }
  });
});

describe("the page's copy of /gw/v1/info", () => {
  it('cannot end its element early, keeps every character, and leaves the page as built without an answer', () => {
    const info = { name: '</script><script>alert(1)</script><!--', dollar: '$& $1 $$', line: '\u2028' };
    const html = withElement(INDEX, inlinedInfoElement(info));
    expect(html.match(/<\/script>/g)).toHaveLength(1);
    expect(html).not.toContain('<!--');
    expect(JSON.parse(inlinedInfoOf(html) ?? 'null')).toEqual(info);
    expect(inlinedInfoElement(undefined)).toBe('');
  });
});

/** The page with an element where the server puts its answers (before its end). */
function withElement(html: string, element: string): string {
  const [head, middle, end] = splitPage(html);
  return `${head}${middle}${element}${end}`;
}

/** The text of the page's inlined /info element, if it has one. */
function inlinedInfoOf(html: string): string | undefined {
  return /<script type="application\/json" id="inlined-info">(.*?)<\/script>/s.exec(html)?.[1];
}

/** The page's first bars (its inlined-first-bars element: the URL, and the answer's body), as the browser reads them. */
function inlinedBarsOf(html: string): { url: string; body: string } | undefined {
  const match = /<script type="application\/json" id="inlined-first-bars" data-url="([^"]*)">(.*?)<\/script>/s.exec(
    html,
  );
  if (!match) return undefined;
  const entities: Record<string, string> = { '&amp;': '&', '&quot;': '"', '&lt;': '<', '&gt;': '>' };
  return {
    url: (match[1] ?? '').replace(/&(amp|quot|lt|gt);/g, (entity) => entities[entity] ?? entity),
    body: match[2] ?? '',
  };
}

/** The skeleton the server put in the page's root element. */
function skeletonOf(html: string): string {
  return (
    /<div id="root">([\s\S]*)<\/div>(?:<script type="application\/json"[^>]*>.*?<\/script>)*<\/body>/.exec(html)?.[1] ??
    ''
  );
}

/** The page as built: without the skeleton, the copy of /info, the first bars, the preferences and the overview's preloads the server put in. */
function withoutFirstPaint(html: string): string {
  return html
    .replace(/<link rel="(?:modulepreload|preload)"[^>]*>/g, '')
    .replace(/<script type="application\/json" id="inlined-preferences">.*?<\/script>/s, '')
    .replace(/<script type="application\/json" id="inlined-info">.*?<\/script>/s, '')
    .replace(/<script type="application\/json" id="inlined-first-bars"[^>]*>.*?<\/script>/s, '')
    .replace(/(<div id="root">)[\s\S]*(<\/div><\/body>)/, '$1$2');
}
