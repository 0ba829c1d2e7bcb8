import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { serve, type ServerType } from '@hono/node-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INLINED_INFO_ELEMENT_ID } from '../../src/app/lib/first-chart';
import { DEFAULT_GATEWAY_CONFIG } from '../../src/gateway/config';
import { answerClientErrors } from '../../src/node/client-errors';
import { guardRawPaths } from '../../src/node/raw-path';
import { NODE_SERVER_OPTIONS } from '../../src/node/response-sink';
import { API_POLICY, cspHash, DOCS_POLICY, inlineHashes, pagePolicy } from '../../src/node/security-headers';
import { createPlatform, type Platform } from '../../src/server/platform';
import { parseServiceConfig } from '../../src/service/config';

/** The W3C CSP Level 3 specification's own example of a hash source: `alert('Hello, world.');`. */
const SPEC_EXAMPLE_HASH = "'sha256-qznLcsROx4GACP2dm0UCKCzCG+HiZ1guq6ZZDob/Tng='";

describe('the hashes of a page’s inline scripts and styles', () => {
  it('are SHA-256 of the element’s text as written, in CSP’s source form', () => {
    expect(cspHash("alert('Hello, world.');")).toBe(SPEC_EXAMPLE_HASH);
    expect(inlineHashes("<script>alert('Hello, world.');</script>").scripts).toEqual([SPEC_EXAMPLE_HASH]);
  });

  it('take every script a browser runs (classic, module, import map) and every style element, and leave data blocks and external scripts', () => {
    const scripts = {
      classic: 'window.a = 1;',
      typed: "window.b = '<b>';",
      module: 'import "/x.js";',
      importmap: '{"imports":{}}',
      upper: 'window.c = 3;',
      dataSrc: 'window.d = 4;',
    };
    const html = `<!doctype html><html><head>
      <script>${scripts.classic}</script>
      <script type="text/javascript" nonce="x">${scripts.typed}</script>
      <script type='module'>${scripts.module}</script>
      <script type="importmap">${scripts.importmap}</script>
      <SCRIPT TYPE="Module">${scripts.upper}</SCRIPT >
      <script data-src="/y.js">${scripts.dataSrc}</script>
      <script type="application/json" id="boot-info">{"a":1}</script>
      <script type="application/ld+json">{"@context":"x"}</script>
      <script src="/assets/app.js"></script>
      <script type="module" src=/assets/m.js></script>
      <style>.a{color:red}</style>
      </head><body><script>${scripts.classic}</script></body></html>`;
    const { scripts: hashed, styles } = inlineHashes(html);
    expect(hashed).toEqual(Object.values(scripts).map(cspHash));
    expect(styles).toEqual([cspHash('.a{color:red}')]);
    const policy = pagePolicy(html);
    expect(policy).toContain(`script-src 'self' ${Object.values(scripts).map(cspHash).join(' ')};`);
    expect(policy).toContain(`style-src 'self' ${cspHash('.a{color:red}')};`);
    // Inline only for style attributes (the skeleton's), never for scripts or <style> elements.
    expect(policy.split('; ').filter((d) => d.includes('unsafe-inline'))).toEqual(["style-src-attr 'unsafe-inline'"]);
    expect(policy).not.toContain('unsafe-eval');
    expect(policy).toContain("frame-ancestors 'none'");
    expect(policy).toContain("object-src 'none'");
    expect(policy).toContain("base-uri 'none'");
  });

  it('follow the page: another inline script, another policy; none, none', () => {
    expect(pagePolicy('<script>one()</script>')).toContain(cspHash('one()'));
    expect(pagePolicy('<script>two()</script>')).not.toContain(cspHash('one()'));
    expect(pagePolicy('<p>no script</p>')).toMatch(/script-src 'self';/);
    // Vite's dev server injects styles from script: they may be inline there, never in a build.
    expect(pagePolicy('<p></p>', { devStyles: true })).toMatch(/style-src 'self' 'unsafe-inline';/);
  });
});

/** A build with an inline script, an inline style and a data block, as a page might come to have. */
const INLINE_SCRIPT = "document.documentElement.dataset.early = 'yes';";
const INLINE_STYLE = 'body{margin:0}';
const INDEX = `<!doctype html><html><head><title>app</title><style>${INLINE_STYLE}</style><script>${INLINE_SCRIPT}</script></head><body><div id="root"></div><script type="module" src="/assets/app-1a2b.js"></script></body></html>`;
const KEY = 'security-test-key-0001';

let dir: string;
let platform: Platform;
let server: ServerType;
let origin: string;
let port: number;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'security-headers-'));
  mkdirSync(join(dir, 'build', 'assets'), { recursive: true });
  writeFileSync(join(dir, 'build', 'index.html'), INDEX);
  writeFileSync(join(dir, 'build', 'assets', 'app-1a2b.js'), 'console.log(1);');
  platform = await createPlatform({
    service: parseServiceConfig(
      { 'data-dir': dir, pools: '60', days: '0.2', seed: '7' },
      { TOKEN_API_KEYS: `${KEY}:pro` },
    ),
    gateway: { ...DEFAULT_GATEWAY_CONFIG, requestsPerMinutePerAddress: 3 },
    staticDir: join(dir, 'build'),
    testControls: true,
  });
  // As npm run serve builds it: the raw-path guard and Node's own refusals in front of the app.
  const createServer = ((options: object, listener: Parameters<typeof guardRawPaths>[0]) =>
    createHttpServer(options, guardRawPaths(listener))) as typeof createHttpServer;
  server = await new Promise<ServerType>((resolve) => {
    const s = serve(
      { fetch: platform.app.fetch, port: 0, hostname: '127.0.0.1', createServer, ...NODE_SERVER_OPTIONS },
      () => resolve(s),
    );
  });
  answerClientErrors(server as Server);
  port = (server.address() as { port: number }).port;
  origin = `http://127.0.0.1:${port}`;
});

afterAll(async () => {
  (server as Server).closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await platform.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The head of a raw HTTP exchange (for what Node and the raw-path guard answer themselves). */
function raw(request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.on('end', () => resolve(text));
    socket.on('error', reject);
    socket.write(request);
  });
}

function headersOf(rawAnswer: string): Headers {
  const headers = new Headers();
  for (const line of rawAnswer.split('\r\n\r\n')[0]?.split('\r\n').slice(1) ?? []) {
    const at = line.indexOf(':');
    headers.append(line.slice(0, at).trim(), line.slice(at + 1).trim());
  }
  return headers;
}

function expectHardened(headers: Headers, where: string): void {
  expect(headers.get('x-content-type-options'), where).toBe('nosniff');
  expect(headers.get('referrer-policy'), where).toBe('no-referrer');
  expect(headers.get('x-frame-options'), where).toBe('DENY');
  const policy = headers.get('content-security-policy') ?? '';
  expect(policy, where).toContain("frame-ancestors 'none'");
  expect(policy, where).not.toMatch(/script-src[^;]*'unsafe-(inline|eval)'/);
}

describe('every answer of the server', () => {
  it('carries the headers: the app, its files, /docs, the API, the gateway, health, errors of every kind', async () => {
    const poolsAnswer = await fetch(`${origin}/api/v1/symbol_info?group=Aggregate`, {
      headers: { Authorization: `Bearer ${KEY}` },
    });
    const pool = ((await poolsAnswer.json()) as { ticker: string[] }).ticker[0] ?? '';
    const requests: [string, RequestInit?][] = [
      // First: the page spends the address's budget too (its first chart's answers, through the gateway).
      ['/gw/v1/info'],
      ['/gw/v1/groups', { method: 'POST' }],
      ['/gw/v1/groups'],
      // Past the address's 3 requests a minute: the 429.
      ['/gw/v1/groups'],
      ['/'],
      ['/index.html'],
      ['/some/deep/link?symbol=x'],
      ['/assets/app-1a2b.js'],
      ['/assets/missing.js'],
      ['/docs'],
      ['/docs/assets/init.js'],
      ['/docs/assets/swagger-ui.css'],
      ['/docs/assets/evil.js'],
      ['/openapi.json'],
      ['/healthz'],
      ['/api/v1/groups'],
      ['/api/v1/groups', { headers: { Authorization: `Bearer ${KEY}` } }],
      [
        '/api/v1/groups',
        { method: 'OPTIONS', headers: { Origin: 'https://elsewhere.example', 'Access-Control-Request-Method': 'GET' } },
      ],
      ['/api/v1/groups', { method: 'HEAD', headers: { Authorization: `Bearer ${KEY}` } }],
      ['/api/v1/nope', { headers: { Authorization: `Bearer ${KEY}` } }],
      ['/api/v1/tokens/current', { headers: { Authorization: `Bearer ${KEY}` } }],
      ['/api/x/market', { headers: { Authorization: `Bearer ${KEY}` } }],
      ['/udf/config', { headers: { Authorization: `Bearer ${KEY}` } }],
      ['/gw/nope'],
      ['/__test__/block?pool=nope', { method: 'POST' }],
      ['/__test__/block?pool=ab&trades=lots', { method: 'POST' }],
    ];
    const statuses = new Set<number>();
    for (const [path, init] of requests) {
      const answer = await fetch(`${origin}${path}`, init);
      await answer.arrayBuffer();
      statuses.add(answer.status);
      expectHardened(answer.headers, `${init?.method ?? 'GET'} ${path} (${answer.status})`);
      const type = answer.headers.get('content-type') ?? '';
      if (!/text\/html/.test(type)) expect(answer.headers.get('content-security-policy'), path).toBe(API_POLICY);
    }
    expect([...statuses].sort()).toEqual(expect.arrayContaining([200, 204, 400, 401, 404, 405, 422, 429]));

    // The streams: the service's and the gateway's (headers only, then hang up).
    const stop = new AbortController();
    const stream = await fetch(`${origin}/api/v1/tokens/stream`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${KEY}`, 'Content-Type': 'application/json' },
      body: JSON.stringify([pool]),
      signal: stop.signal,
    });
    expectHardened(stream.headers, 'the service stream');
    const live = await fetch(`${origin}/gw/v1/live?pools=${pool}`, { signal: stop.signal });
    expect(live.headers.get('content-type')).toMatch(/event-stream/);
    expectHardened(live.headers, 'the gateway live stream');
    expect(live.headers.get('content-security-policy')).toBe(API_POLICY);
    stop.abort();

    // What Node and the raw-path guard write to the socket themselves.
    const dots = await raw('GET /gw/v1/%2e%2e/healthz HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(dots).toMatch(/^HTTP\/1\.1 400 /);
    expectHardened(headersOf(dots), 'a dot-segment path');
    const huge = await raw(`GET /api/v1/groups HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(huge).toMatch(/^HTTP\/1\.1 431 /);
    expectHardened(headersOf(huge), 'headers too large');
    const garbage = await raw('NOT HTTP\r\n\r\n');
    expect(garbage).toMatch(/^HTTP\/1\.1 400 /);
    expectHardened(headersOf(garbage), 'not HTTP');
  });

  it('gives the app’s page a policy with the hashes of the inline scripts and styles it is served with, and nothing inline besides', async () => {
    for (const path of ['/', '/index.html', '/some/deep/link']) {
      const answer = await fetch(`${origin}${path}`);
      const html = await answer.text();
      const policy = answer.headers.get('content-security-policy') ?? '';
      // What was served: its inline script and style, and the boot elements the server added (JSON: not run).
      expect(html).toContain(INLINE_SCRIPT);
      expect(html).toContain(`<script type="application/json" id="${INLINED_INFO_ELEMENT_ID}">`);
      const served = inlineHashes(html);
      expect(served.scripts).toEqual([cspHash(INLINE_SCRIPT)]);
      const scriptSources = /script-src ([^;]*)/.exec(policy)?.[1]?.split(' ') ?? [];
      const styleSources = /style-src ([^;]*)/.exec(policy)?.[1]?.split(' ') ?? [];
      expect(scriptSources.sort()).toEqual(["'self'", ...served.scripts].sort());
      expect(styleSources.sort()).toEqual(["'self'", ...served.styles].sort());
      // The skeleton's style attributes only: never an inline <style> or script without its hash.
      expect(policy).toContain("style-src-attr 'unsafe-inline'");
      expect(policy.split('; ').filter((d) => d.includes("'unsafe-inline'"))).toEqual([
        "style-src-attr 'unsafe-inline'",
      ]);
      expect(policy).toContain("default-src 'self'");
      expect(policy).toContain("connect-src 'self'");
    }
  });

  it('gives /docs its own policy: scripts from this origin only', async () => {
    const answer = await fetch(`${origin}/docs`);
    expect(answer.headers.get('content-security-policy')).toBe(DOCS_POLICY);
    expect(inlineHashes(await answer.text()).scripts).toEqual([]);
  });
});
