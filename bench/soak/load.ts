import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { Agent, request } from 'undici';
import { priceErrorSchema, tokenErrorSchema } from '../../src/shared/api/errors';
import { percentile } from '../measure';
import type { FuzzSeeds } from './fuzz';
import type { SoakServer } from './server';

/** Resident memory of a process in MiB (Linux /proc), or NaN where unknown. */
export function rssMiB(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match?.[1] ? Number(match[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A 429 of the per-address limit as documented: the family's error shape, Retry-After and RateLimit-*. */
function limitAnswer(path: string, headers: Record<string, string | string[] | undefined>, body: Buffer): boolean {
  let parsed: unknown;
  try {
    const text = headers['content-encoding'] === 'gzip' ? gunzipSync(body).toString('utf8') : body.toString('utf8');
    parsed = JSON.parse(text);
  } catch {
    return false;
  }
  const shape = /\/tokens\//.test(path) ? tokenErrorSchema : priceErrorSchema;
  return (
    shape.safeParse(parsed).success &&
    Number(headers['retry-after']) > 0 &&
    headers['ratelimit-limit'] !== undefined &&
    headers['ratelimit-remaining'] === '0'
  );
}

/** Keeps the market trading (a forced block every `everyMs`) until the returned stop is called. */
export function keepTrading(server: SoakServer, everyMs: number): () => Promise<number> {
  let running = true;
  let trades = 0;
  const loop = (async () => {
    while (running) {
      try {
        trades += await server.block();
      } catch {
        // The server may be restarting; the soak part decides what that means.
      }
      await sleep(everyMs);
    }
  })();
  return async () => {
    running = false;
    await loop;
    return trades;
  };
}

/**
 * Opens a raw stream connection (`POST /api/v1/tokens/stream`) for `pools`; `read` false leaves every
 * byte unread (the socket is paused from the start), as a stalled client does.
 */
export function openRawStream(
  server: SoakServer,
  key: string,
  pools: readonly string[],
  read: boolean,
  keepText = false,
): Promise<{ socket: Socket; bytes: () => number; head: () => string; text: () => string; closed: Promise<void> }> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify(pools);
    const socket = connect(server.port, '127.0.0.1');
    let bytes = 0;
    let head = '';
    const chunks: Buffer[] = [];
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    socket.once('error', () => {});
    socket.once('connect', () => {
      socket.write(
        `POST /api/v1/tokens/stream HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
      );
      if (read)
        socket.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          if (head.length < 2_000) head += chunk.toString('latin1');
          if (keepText) chunks.push(chunk);
        });
      else socket.pause();
      resolve({
        socket,
        bytes: () => bytes,
        head: () => head,
        text: () => Buffer.concat(chunks).toString('utf8'),
        closed,
      });
    });
    socket.once('error', reject);
  });
}

export interface LoadResult {
  readonly clients: number;
  readonly seconds: number;
  readonly streams: number;
  readonly requests: number;
  readonly errors: number;
  /** 429s of the gateway's per-address limit, each in its family's shape with its headers (`gatewayLimit` runs). */
  readonly rateLimited: number;
  readonly errorExamples: readonly string[];
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly requestsPerSecond: number;
  readonly streamBytes: number;
  readonly streamsAliveAtEnd: number;
  readonly rssBeforeMiB: number;
  readonly rssAfterMiB: number;
  readonly rssPeakMiB: number;
}

/**
 * `clients` concurrent clients for `seconds` mixing /history, /symbol_info and /tokens/current through
 * the gateway and the API, with `streams` stream connections open and reading, while the market trades.
 * `gatewayLimit`: through the gateway only, whose per-address limit is on: its 429s (the family's
 * error shape, `Retry-After` and `RateLimit-*`) are counted apart, anything else that is not a 200 is
 * an error.
 */
export async function load(
  server: SoakServer,
  seeds: FuzzSeeds,
  options: { clients: number; seconds: number; streams: number; gatewayLimit?: boolean },
): Promise<LoadResult> {
  const rssBefore = rssMiB(server.pid);
  const now = Math.floor(Date.now() / 1000);
  const pick = <T>(values: readonly T[]): T => values[Math.floor(Math.random() * values.length)] as T;
  const paths = (): string => {
    const prefix = options.gatewayLimit || Math.random() < 0.5 ? '/gw/v1' : '/api/v1';
    const roll = Math.random();
    if (roll < 0.5) {
      const resolution = pick(['1min', '5min', '15min', '60min', '1d']);
      const span = resolution === '1min' ? 6 * 3600 : resolution === '1d' ? 90 * 86400 : 3 * 86400;
      return `${prefix}/history?symbol=${encodeURIComponent(pick(seeds.pools))}&resolution=${resolution}&from=${now - span}&to=${now}`;
    }
    if (roll < 0.7) return `${prefix}/symbol_info?group=${encodeURIComponent(pick(seeds.groups))}`;
    return `${prefix}/tokens/current?pool=${encodeURIComponent(pick(seeds.pools))}`;
  };
  const streams = await Promise.all(
    Array.from({ length: options.streams }, (_, i) =>
      openRawStream(
        server,
        seeds.key,
        seeds.aggregates.slice((i * 7) % seeds.aggregates.length, ((i * 7) % seeds.aggregates.length) + 10),
        true,
      ),
    ),
  );
  const stopTrading = keepTrading(server, 250);
  const agent = new Agent({ connections: options.clients, pipelining: 1 });
  const latencies: number[] = [];
  const errorExamples: string[] = [];
  let errors = 0;
  let rateLimited = 0;
  let sent = 0;
  let peak = rssBefore;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(server.pid))), 500);
  const deadline = Date.now() + options.seconds * 1000;
  const client = async () => {
    while (Date.now() < deadline) {
      const path = paths();
      sent++;
      const started = performance.now();
      try {
        const response = await request(`${server.origin}${path}`, {
          dispatcher: agent,
          headers: { ...(path.startsWith('/api/') ? server.auth() : {}), 'Accept-Encoding': 'gzip' },
          signal: AbortSignal.timeout(10_000),
        });
        const body = Buffer.from(await response.body.arrayBuffer());
        latencies.push(performance.now() - started);
        if (response.statusCode === 429 && options.gatewayLimit && limitAnswer(path, response.headers, body)) {
          rateLimited++;
        } else if (response.statusCode !== 200) {
          errors++;
          if (errorExamples.length < 5) errorExamples.push(`${response.statusCode} ${path}`);
        }
      } catch (error) {
        errors++;
        if (errorExamples.length < 5) errorExamples.push(`${String(error)} ${path}`);
      }
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: options.clients }, client));
  const seconds = (performance.now() - started) / 1000;
  await stopTrading();
  clearInterval(sampler);
  const streamBytes = streams.reduce((sum, s) => sum + s.bytes(), 0);
  const alive = streams.filter((s) => !s.socket.destroyed).length;
  const dead = streams.find((s) => s.socket.destroyed);
  if (dead) errorExamples.push(`a stream closed early; it got: ${dead.head().slice(0, 600)}`);
  for (const s of streams) s.socket.destroy();
  await agent.close();
  return {
    clients: options.clients,
    seconds: Math.round(seconds),
    streams: options.streams,
    requests: sent,
    errors,
    rateLimited,
    errorExamples,
    p50Ms: Math.round(percentile(latencies, 50) * 10) / 10,
    p99Ms: Math.round(percentile(latencies, 99) * 10) / 10,
    requestsPerSecond: Math.round(sent / seconds),
    streamBytes,
    streamsAliveAtEnd: alive,
    rssBeforeMiB: Math.round(rssBefore),
    rssAfterMiB: Math.round(rssMiB(server.pid)),
    rssPeakMiB: Math.round(peak),
  };
}

export interface SlowResult {
  readonly stalled: number;
  readonly seconds: number;
  readonly trades: number;
  /** Stream connections the server still held when the run ended (0: every stalled reader was dropped). */
  readonly streamsLeft: number;
  readonly droppedWithinSeconds: number | undefined;
  readonly rssBeforeMiB: number;
  readonly rssPeakMiB: number;
  readonly rssGrowthMiB: number;
}

/**
 * `stalled` stream connections over every pool that never read a byte while the market trades hard for
 * up to `seconds`: the server's memory must stay bounded and the stalled readers must be dropped.
 */
export async function slowConsumers(
  server: SoakServer,
  seeds: FuzzSeeds,
  options: { stalled: number; seconds: number },
): Promise<SlowResult> {
  const health = async () => (await (await fetch(`${server.origin}/healthz`)).json()) as { streams: number };
  const rssBefore = rssMiB(server.pid);
  const streams = await Promise.all(
    Array.from({ length: options.stalled }, () => openRawStream(server, seeds.key, seeds.aggregates, false)),
  );
  const started = Date.now();
  const stopTrading = keepTrading(server, 20);
  let peak = rssBefore;
  let droppedAt: number | undefined;
  while (Date.now() - started < options.seconds * 1000) {
    await sleep(500);
    peak = Math.max(peak, rssMiB(server.pid));
    if ((await health()).streams === 0) {
      droppedAt = Date.now();
      break;
    }
  }
  const trades = await stopTrading();
  const left = (await health()).streams;
  for (const s of streams) s.socket.destroy();
  return {
    stalled: options.stalled,
    seconds: Math.round((Date.now() - started) / 1000),
    trades,
    streamsLeft: left,
    droppedWithinSeconds: droppedAt === undefined ? undefined : Math.round((droppedAt - started) / 100) / 10,
    rssBeforeMiB: Math.round(rssBefore),
    rssPeakMiB: Math.round(peak),
    rssGrowthMiB: Math.round(peak - rssBefore),
  };
}
