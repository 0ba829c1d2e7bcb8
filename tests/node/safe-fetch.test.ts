import { brotliCompressSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSafeFetcher, SafeFetchError, type SafeFetchOptions } from '../../src/node/safe-fetch';
import { selfSignedCertificate, startWebServer, type TestCertificate, type WebServer } from '../support/web-servers';

/** What a fetch rejected with (a test fails when it resolved or rejected with anything else). */
async function failure(promise: Promise<unknown>): Promise<SafeFetchError> {
  const error = await promise.then(
    () => undefined,
    (rejected: unknown) => rejected,
  );
  if (!(error instanceof SafeFetchError)) throw new Error(`expected a SafeFetchError, got ${String(error)}`);
  return error;
}

/** Names the tests resolve (the system resolver is asked about nothing else). */
const NAMES: Readonly<Record<string, readonly string[]>> = {
  'logo.test': ['127.0.0.1'],
  'inside.test': ['127.0.0.2'],
  'mixed.test': ['127.0.0.1', '127.0.0.2'],
  'metadata.test': ['169.254.169.254'],
};
const resolve = (name: string): Promise<readonly string[]> => {
  const addresses = NAMES[name];
  return addresses
    ? Promise.resolve(addresses)
    : Promise.reject(Object.assign(new Error(`no ${name}`), { code: 'ENOTFOUND' }));
};

/** A fetcher that reaches 127.0.0.1 (the tests' allowed "public" address) over http. */
const reaching = (extra: SafeFetchOptions = {}) =>
  createSafeFetcher({ allowHttp: true, allowCidrs: ['127.0.0.1/32'], resolve, timeoutMs: 5_000, ...extra });

const ZEROS_50MB = gzipSync(Buffer.alloc(50 * 1024 * 1024), { level: 9 });

let site: WebServer;
let inside: WebServer;
let secure: WebServer;
let cert: TestCertificate;

beforeAll(async () => {
  cert = selfSignedCertificate(['logo.test', '127.0.0.1']);
  site = await startWebServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://x');
    const hops = Number(url.searchParams.get('hops') ?? '0');
    switch (url.pathname) {
      case '/ok':
        response.end('hello');
        return;
      case '/hop':
        response.writeHead(302, { location: hops > 1 ? `/hop?hops=${hops - 1}` : '/ok' }).end();
        return;
      case '/to-inside':
        response.writeHead(301, { location: url.searchParams.get('to') ?? '' }).end();
        return;
      case '/big':
        // Chunked, no Content-Length: the cap must hold while streaming.
        response.writeHead(200, { 'content-type': 'image/png' });
        for (let i = 0; i < 40; i++) response.write(Buffer.alloc(64 * 1024, 1));
        response.end();
        return;
      case '/declared-big':
        response.writeHead(200, { 'content-length': String(3 * 1024 * 1024) });
        response.write('x');
        return;
      case '/gzip-bomb':
        response.writeHead(200, { 'content-encoding': 'gzip', 'content-type': 'image/png' }).end(ZEROS_50MB);
        return;
      case '/gzip-small':
        response.writeHead(200, { 'content-encoding': 'gzip' }).end(gzipSync('small and squeezed'));
        return;
      case '/br-small':
        response.writeHead(200, { 'content-encoding': 'br' }).end(brotliCompressSync('brotli body'));
        return;
      case '/zstd':
        response.writeHead(200, { 'content-encoding': 'zstd' }).end('whatever');
        return;
      case '/not-gzip':
        response.writeHead(200, { 'content-encoding': 'gzip' }).end('this is not gzip at all');
        return;
      case '/silent':
        return; // never answers
      case '/drip': {
        response.writeHead(200);
        const timer = setInterval(() => response.write('.'), 50);
        response.on('close', () => clearInterval(timer));
        return;
      }
      case '/echo': {
        const chunks: Buffer[] = [];
        request.on('data', (chunk: Buffer) => chunks.push(chunk));
        request.on('end', () =>
          response.end(`${request.method} ${request.headers['content-type']} ${Buffer.concat(chunks).toString()}`),
        );
        return;
      }
      case '/see-other':
        response.writeHead(303, { location: '/ok' }).end();
        return;
      case '/status':
        response.writeHead(503, { 'retry-after': '7' }).end('busy');
        return;
      default:
        response.writeHead(404).end();
    }
  });
  inside = await startWebServer((_request, response) => response.end('secret'), { host: '127.0.0.2' });
  secure = await startWebServer(
    (request, response) => {
      if (request.url === '/to-http') response.writeHead(302, { location: site.origin + '/ok' }).end();
      else response.end('over tls');
    },
    { tls: cert },
  );
});

afterAll(async () => {
  await Promise.all([site.close(), inside.close(), secure.close()]);
});

describe('safe fetch: where it may go', () => {
  it('refuses loopback, private and link-local targets without connecting', async () => {
    const fetcher = createSafeFetcher({ allowHttp: true, resolve, timeoutMs: 5_000 });
    try {
      const before = site.paths.length;
      expect((await failure(fetcher.fetch(`${site.origin}/ok`))).message).toMatch(/127\.0\.0\.1 is a loopback address/);
      expect((await failure(fetcher.fetch(`http://[::1]:${site.port}/ok`))).message).toMatch(/loopback/);
      expect((await failure(fetcher.fetch('http://10.0.0.1/x'))).message).toMatch(/private address/);
      expect((await failure(fetcher.fetch('http://169.254.169.254/latest/meta-data'))).message).toMatch(/link-local/);
      expect((await failure(fetcher.fetch('http://100.64.0.1/'))).message).toMatch(/carrier-grade NAT/);
      expect((await failure(fetcher.fetch('http://0x7f.1/'))).message).toMatch(/loopback/);
      expect((await failure(fetcher.fetch('http://2130706433/'))).message).toMatch(/loopback/);
      expect((await failure(fetcher.fetch(`http://[::ffff:127.0.0.1]:${site.port}/ok`))).message).toMatch(/loopback/);
      const error = await failure(fetcher.fetch(`http://logo.test:${site.port}/ok`));
      expect(error.kind).toBe('refused');
      expect(error.retryable).toBe(false);
      expect(error.message).toBe('refused: logo.test resolves to 127.0.0.1, a loopback address');
      expect((await failure(fetcher.fetch('http://metadata.test/'))).message).toMatch(
        /169\.254\.169\.254, a link-local/,
      );
      expect(site.paths.length).toBe(before);
    } finally {
      await fetcher.close();
    }
  });

  it('refuses a host name the system resolves to a loopback address (localhost)', async () => {
    const fetcher = createSafeFetcher({ allowHttp: true, timeoutMs: 5_000 });
    try {
      const error = await failure(fetcher.fetch(`http://localhost:${site.port}/ok`));
      expect(error.kind).toBe('refused');
      expect(error.message).toMatch(/^refused: localhost resolves to (127\.0\.0\.1|::1), a loopback address$/);
    } finally {
      await fetcher.close();
    }
  });

  it('refuses a name with any address that is not allowed, even beside an allowed one', async () => {
    const fetcher = reaching();
    try {
      const error = await failure(fetcher.fetch(`http://mixed.test:${site.port}/ok`));
      expect(error.message).toBe('refused: mixed.test resolves to 127.0.0.2, a loopback address');
      expect(inside.paths).toEqual([]);
    } finally {
      await fetcher.close();
    }
  });

  it('reaches an allowed range, resolving the name once and connecting to what it checked', async () => {
    let lookups = 0;
    const fetcher = reaching({
      resolve: () => {
        lookups++;
        // A rebinding resolver: allowed the first time, an inside address every time after.
        return Promise.resolve(lookups === 1 ? ['127.0.0.1'] : ['127.0.0.2']);
      },
    });
    try {
      const response = await fetcher.fetch(`http://logo.test:${site.port}/ok`);
      expect(response.status).toBe(200);
      expect(response.body.toString()).toBe('hello');
      expect(lookups).toBe(1);
      expect(inside.paths).toEqual([]);
    } finally {
      await fetcher.close();
    }
    const fresh = reaching({ resolve: () => Promise.resolve(['127.0.0.2']) });
    try {
      expect((await failure(fresh.fetch(`http://logo.test:${inside.port}/`))).message).toMatch(
        /127\.0\.0\.2, a loopback/,
      );
      expect(inside.paths).toEqual([]);
    } finally {
      await fresh.close();
    }
  });

  it('refuses a redirect from an allowed host to a private one', async () => {
    const fetcher = reaching();
    try {
      for (const to of [
        `http://inside.test:${inside.port}/`,
        `${inside.origin}/`,
        `http://[::ffff:127.0.0.2]:${inside.port}/`,
      ]) {
        const error = await failure(fetcher.fetch(`${site.origin}/to-inside?to=${encodeURIComponent(to)}`));
        expect(error.kind).toBe('refused');
      }
      expect(inside.paths).toEqual([]);
    } finally {
      await fetcher.close();
    }
  });

  it('reaches a trusted origin (an operator-configured gateway) whatever its address, and checks its redirects', async () => {
    const fetcher = createSafeFetcher({ trustedOrigins: [site.origin], resolve, timeoutMs: 5_000 });
    try {
      expect((await fetcher.fetch(`${site.origin}/ok`)).body.toString()).toBe('hello');
      // http is allowed for the trusted origin alone: its redirect to another http host is refused.
      const error = await failure(fetcher.fetch(`${site.origin}/to-inside?to=${encodeURIComponent(inside.origin)}`));
      expect(error.message).toBe('refused: http: URLs are not fetched (https only)');
    } finally {
      await fetcher.close();
    }
    const withHttp = createSafeFetcher({ trustedOrigins: [site.origin], allowHttp: true, resolve, timeoutMs: 5_000 });
    try {
      const error = await failure(withHttp.fetch(`${site.origin}/to-inside?to=${encodeURIComponent(inside.origin)}`));
      expect(error.message).toBe('refused: 127.0.0.2 is a loopback address');
      // Trust is for that origin only: another port of the same host is refused.
      const other = await startWebServer((_request, response) => response.end('other'));
      try {
        expect((await failure(withHttp.fetch(`${other.origin}/`))).message).toMatch(/loopback/);
        expect(other.paths).toEqual([]);
      } finally {
        await other.close();
      }
      expect(inside.paths).toEqual([]);
    } finally {
      await withHttp.close();
    }
  });

  it('refuses other schemes, credentials and text that is not a URL, saying why', async () => {
    const fetcher = createSafeFetcher({ resolve });
    try {
      expect((await failure(fetcher.fetch('http://example.com/logo.png'))).message).toBe(
        'refused: http: URLs are not fetched (https only)',
      );
      for (const url of ['ftp://example.com/x', 'file:///etc/passwd', 'data:text/plain,hi', 'gopher://x'])
        expect((await failure(fetcher.fetch(url))).kind, url).toBe('url');
      expect((await failure(fetcher.fetch('https://user:pw@example.com/'))).message).toMatch(/credentials/);
      expect((await failure(fetcher.fetch('not a url'))).message).toBe('"not a url" is not a URL');
    } finally {
      await fetcher.close();
    }
  });
});

describe('safe fetch: redirects', () => {
  it('follows up to three redirects and refuses a fourth', async () => {
    const fetcher = reaching();
    try {
      const response = await fetcher.fetch(`${site.origin}/hop?hops=3`);
      expect(response.body.toString()).toBe('hello');
      expect(response.redirects).toEqual([
        `${site.origin}/hop?hops=2`,
        `${site.origin}/hop?hops=1`,
        `${site.origin}/ok`,
      ]);
      const error = await failure(fetcher.fetch(`${site.origin}/hop?hops=4`));
      expect(error.kind).toBe('redirect');
      expect(error.message).toBe(`more than 3 redirects from ${site.origin}/hop?hops=4`);
    } finally {
      await fetcher.close();
    }
    const strict = reaching({ maxRedirects: 0 });
    try {
      expect((await failure(strict.fetch(`${site.origin}/hop?hops=1`))).kind).toBe('redirect');
    } finally {
      await strict.close();
    }
  });

  it('refuses a redirect to another scheme (https to http)', async () => {
    const fetcher = reaching({ ca: cert.cert });
    try {
      const error = await failure(fetcher.fetch(`${secure.origin}/to-http`));
      expect(error.message).toBe(`refused: ${secure.origin}/to-http redirects from https: to http:`);
    } finally {
      await fetcher.close();
    }
  });

  it('does not follow redirects of a POST (a webhook gets the 3xx answer)', async () => {
    const fetcher = reaching();
    try {
      const response = await fetcher.fetch(`${site.origin}/see-other`, { method: 'POST', body: '{}' });
      expect(response.status).toBe(303);
      const echo = await fetcher.fetch(`${site.origin}/echo`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"event":"x"}',
      });
      expect(echo.body.toString()).toBe('POST application/json {"event":"x"}');
    } finally {
      await fetcher.close();
    }
  });
});

describe('safe fetch: size, encodings, time', () => {
  it('stops a body past the cap while it streams, and refuses a declared one at once', async () => {
    const fetcher = reaching({ maxBytes: 1024 * 1024 });
    try {
      const error = await failure(fetcher.fetch(`${site.origin}/big`));
      expect(error.kind).toBe('too-large');
      expect(error.message).toBe(`the body of ${site.origin}/big is larger than 1048576 bytes`);
      const declared = await failure(fetcher.fetch(`${site.origin}/declared-big`));
      expect(declared.message).toBe(`${site.origin}/declared-big declares 3145728 bytes, more than 1048576`);
    } finally {
      await fetcher.close();
    }
  });

  it('stops a gzip bomb at the cap after decompression (50 MB of zeros in ~50 kB)', async () => {
    expect(ZEROS_50MB.length).toBeLessThan(100_000);
    const fetcher = reaching();
    try {
      const error = await failure(fetcher.fetch(`${site.origin}/gzip-bomb`));
      expect(error.kind).toBe('too-large');
      expect(error.retryable).toBe(false);
      expect(error.message).toBe(`the decompressed body of ${site.origin}/gzip-bomb is larger than 2097152 bytes`);
    } finally {
      await fetcher.close();
    }
  });

  it('decodes gzip and brotli bodies, and refuses unknown or corrupt codings', async () => {
    const fetcher = reaching();
    try {
      expect((await fetcher.fetch(`${site.origin}/gzip-small`)).body.toString()).toBe('small and squeezed');
      expect((await fetcher.fetch(`${site.origin}/br-small`)).body.toString()).toBe('brotli body');
      expect((await failure(fetcher.fetch(`${site.origin}/zstd`))).message).toBe(
        'content coding "zstd" is not supported',
      );
      const corrupt = await failure(fetcher.fetch(`${site.origin}/not-gzip`));
      expect(corrupt.kind).toBe('encoding');
    } finally {
      await fetcher.close();
    }
  });

  it('gives up on a silent server and on one that drips forever, at the deadline, as retryable', async () => {
    const fetcher = reaching({ timeoutMs: 400 });
    try {
      for (const path of ['/silent', '/drip']) {
        const started = performance.now();
        const error = await failure(fetcher.fetch(`${site.origin}${path}`));
        expect(error.kind, path).toBe('timeout');
        expect(error.retryable).toBe(true);
        expect(error.message).toBe(`${site.origin}${path} took longer than 400 ms`);
        expect(performance.now() - started).toBeLessThan(10_000);
      }
    } finally {
      await fetcher.close();
    }
  });

  it("stops when the caller aborts, and answers any status with its body (the caller's decision)", async () => {
    const fetcher = reaching();
    try {
      const controller = new AbortController();
      const pending = fetcher.fetch(`${site.origin}/silent`, { signal: controller.signal });
      controller.abort();
      expect((await failure(pending)).kind).toBe('aborted');
      const busy = await fetcher.fetch(`${site.origin}/status`);
      expect([busy.status, busy.headers['retry-after'], busy.body.toString()]).toEqual([503, '7', 'busy']);
    } finally {
      await fetcher.close();
    }
  });

  it('reports a refused connection as retryable', async () => {
    const fetcher = reaching();
    const closed = await startWebServer(() => undefined);
    await closed.close();
    try {
      const error = await failure(fetcher.fetch(`${closed.origin}/`));
      expect(error.kind).toBe('network');
      expect(error.retryable).toBe(true);
      expect(error.message).toMatch(/ECONNREFUSED/);
    } finally {
      await fetcher.close();
    }
  });
});

describe('safe fetch: TLS', () => {
  it('trusts a certificate authority given by the caller, and refuses an unknown certificate', async () => {
    const trusting = reaching({ ca: cert.cert });
    const plain = reaching();
    try {
      const byName = await trusting.fetch(`https://logo.test:${secure.port}/`);
      expect(byName.body.toString()).toBe('over tls');
      expect((await trusting.fetch(`${secure.origin}/`)).status).toBe(200);
      const error = await failure(plain.fetch(`https://logo.test:${secure.port}/`));
      expect(error.kind).toBe('tls');
      expect(error.retryable).toBe(false);
    } finally {
      await Promise.all([trusting.close(), plain.close()]);
    }
  });
});
