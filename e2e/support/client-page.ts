import { createServer, type Server } from 'node:http';
import type { Page } from '@playwright/test';
import { freePort } from '../../tests/support/free-port';

/**
 * A page of another origin that calls the service the way Charli3's official TradingView demo does
 * (github Charli3-Official/cardano-api-trading-view-demo, read for its calls; nothing of it is copied):
 * `fetch` with only an Authorization header for a logo, which it wants as an image blob to draw; a
 * stream per pair, `POST /api/v1/tokens/stream` with the key, aborted on a pair switch and opened again
 * at once with the same key. The page's functions are `window.client`'s; the test drives them.
 */
const PAGE = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><link rel="icon" href="data:,"><title>A client of another origin</title></head>
<body>
<img id="logo" alt="token logo">
<script>
(() => {
  const streams = [];
  let current = null;

  /** The logo as the demo loads it: a plain fetch, the body as a Blob, drawn by an <img>. */
  async function logo(url, key) {
    const response = await fetch(url, key ? { headers: { Authorization: 'Bearer ' + key } } : {});
    const contentType = response.headers.get('content-type');
    if (!response.ok || !contentType || !contentType.includes('image')) {
      return { status: response.status, contentType, text: await response.text() };
    }
    const blob = await response.blob();
    const img = document.getElementById('logo');
    img.src = URL.createObjectURL(blob);
    await img.decode();
    const bytes = new Uint8Array(await blob.arrayBuffer());
    let binary = '';
    for (const byte of bytes) binary += String.fromCharCode(byte);
    return { status: response.status, contentType, width: img.naturalWidth, height: img.naturalHeight, base64: btoa(binary) };
  }

  /** An <img> pointed at a URL (no script involved in the request): its size once decoded. */
  async function image(url) {
    const img = new Image();
    img.src = url;
    try {
      await img.decode();
      return { width: img.naturalWidth, height: img.naturalHeight };
    } catch (error) {
      return { error: String(error) };
    }
  }

  /** Opens a stream; resolves with its index and first line once that line arrives (or the stream ends without one). */
  function open(api, key, pool, controller) {
    const index = streams.length;
    const entry = { pool, lines: [], ended: false, startedAt: performance.now(), firstAt: null };
    streams.push(entry);
    let first;
    const firstLine = new Promise((resolve) => (first = resolve));
    (async () => {
      try {
        const response = await fetch(api + '/api/v1/tokens/stream', {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Authorization: 'Bearer ' + key },
          body: JSON.stringify([pool]),
          signal: controller.signal,
        });
        entry.status = response.status;
        const reader = response.body.getReader();
        const decoder = new TextDecoder();
        let buffer = '';
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          buffer += decoder.decode(value, { stream: true });
          const lines = buffer.split('\\n');
          buffer = lines.pop() || '';
          for (const line of lines) {
            if (!line.trim()) continue;
            if (entry.lines.length === 0) {
              entry.firstAt = performance.now();
              first(line);
            }
            entry.lines.push(line);
          }
        }
      } catch (error) {
        if (error.name !== 'AbortError') entry.error = String(error);
      }
      entry.ended = true;
      first(null);
    })();
    return firstLine.then((line) => ({ index, first: line, ms: entry.firstAt === null ? null : entry.firstAt - entry.startedAt }));
  }

  /** A pair switch as the demo makes it: abort the stream, open the next at once with the same key. */
  function switchTo(api, key, pool) {
    if (current) current.abort();
    current = new AbortController();
    return open(api, key, pool, current);
  }

  /** A second stream of the key beside the current one (a second tab, say). */
  function concurrent(api, key, pool) {
    return open(api, key, pool, new AbortController());
  }

  function stop() {
    if (current) current.abort();
    current = null;
  }

  window.client = { logo, image, switchTo, concurrent, stop, streams };
})();
</script>
</body>
</html>`;

/** What `window.client.logo` tells of an answer. */
export interface LogoSeen {
  readonly status: number;
  readonly contentType: string | null;
  /** Set when the answer was an image the page drew. */
  readonly width?: number;
  readonly height?: number;
  readonly base64?: string;
  /** Set when it was not. */
  readonly text?: string;
}

/** What `switchTo`/`concurrent` resolve with: the stream's index in `client.streams`, its first line and how long it took. */
export interface StreamOpened {
  readonly index: number;
  readonly first: string | null;
  readonly ms: number | null;
}

declare global {
  interface Window {
    client: {
      logo(url: string, key?: string): Promise<LogoSeen>;
      image(url: string): Promise<{ width?: number; height?: number; error?: string }>;
      switchTo(api: string, key: string, pool: string): Promise<StreamOpened>;
      concurrent(api: string, key: string, pool: string): Promise<StreamOpened>;
      stop(): void;
      streams: { pool: string; lines: string[]; ended: boolean }[];
    };
  }
}

/** Serves the page on a free port of 127.0.0.1: an origin other than any server's under test. */
export async function startClientPage(): Promise<{ readonly origin: string; close(): Promise<void> }> {
  const port = await freePort();
  const server: Server = createServer((req, res) => {
    if (req.url !== '/') {
      res.writeHead(404).end();
      return;
    }
    // Another site's page (the demo's): only framing is forbidden, as the shared fixture asks of every document.
    res
      .writeHead(200, {
        'Content-Type': 'text/html; charset=utf-8',
        'Cache-Control': 'no-store',
        'Content-Security-Policy': "frame-ancestors 'none'",
      })
      .end(PAGE);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Waits until stream `index` of the page has received a trade event of `pool`. */
export async function waitForEvent(page: Page, index: number, pool: string, timeoutMs = 10_000): Promise<void> {
  await page.waitForFunction(
    ([i, id]) =>
      (window.client.streams[i]?.lines ?? []).some((line) => line.includes('"pool_id"') && line.includes(id)),
    [index, pool] as const,
    { timeout: timeoutMs },
  );
}
