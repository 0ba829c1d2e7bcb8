import { get as httpGet } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { Hono } from 'hono';
import { DEFAULT_GATEWAY_CONFIG } from '../src/gateway/config';
import { createGateway, type Gateway } from '../src/gateway/gateway';
import { embeddedUpstream, remoteUpstream } from '../src/gateway/upstream';
import { NODE_SERVER_OPTIONS } from '../src/node/response-sink';
import type { ServiceRuntime } from '../src/service/service-runtime';
import { median, round, type BenchRow } from './measure';

const SUITE = 'service';
/** What Chromium sends. */
const BROWSER_ENCODINGS = 'gzip, deflate, br, zstd';
const RUNS = 60;

/** GET over a real socket, reading every byte as sent (no decoding, as the wire carries it). */
function wireGet(
  url: string,
  headers: Record<string, string>,
): Promise<{ bytes: number; encoding: string | undefined }> {
  return new Promise((resolve, reject) => {
    httpGet(url, { headers, agent: false }, (response) => {
      let bytes = 0;
      response.on('data', (chunk: Buffer) => (bytes += chunk.byteLength));
      response.on('end', () => resolve({ bytes, encoding: response.headers['content-encoding'] }));
      response.on('error', reject);
    }).on('error', reject);
  });
}

/** Runs each measured call in turn, `runs` rounds (back to back, so both see the same machine). */
async function interleaved(calls: readonly (() => Promise<unknown>)[], runs: number): Promise<number[][]> {
  const times = calls.map(() => [] as number[]);
  for (let round = -3; round < runs; round++) {
    for (const [i, call] of calls.entries()) {
      const started = performance.now();
      await call();
      if (round >= 0) times[i]?.push(performance.now() - started);
    }
  }
  return times;
}

async function listen(
  fetch: (request: Request) => Response | Promise<Response>,
): Promise<{ origin: string; close: () => Promise<void> }> {
  const server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch, port: 0, hostname: '127.0.0.1', ...NODE_SERVER_OPTIONS }, () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        if ('closeAllConnections' in server) server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * /gw/v1/history beside /api/v1/history for the same answer, both asked as a browser asks
 * (`Accept-Encoding: gzip, deflate, br, zstd`): in-process and over loopback sockets, with the embedded
 * gateway (the service's deflated body passes through), and the gateway in front of the service over
 * HTTP (remote mode: the body passes through the same way, over one more socket).
 */
export async function gatewayHistoryRows(
  runtime: ServiceRuntime,
  historyUrl: string,
  key: string,
): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const gatewayUrl = historyUrl.replace('/api/v1/', '/gw/v1/');
  const embedded: Gateway = createGateway({
    config: DEFAULT_GATEWAY_CONFIG,
    upstream: embeddedUpstream((r) => runtime.app.fetch(r), runtime.internalKey),
  });
  const both = new Hono();
  both.all('/api/*', (c) => runtime.app.fetch(c.req.raw, c.env));
  both.route('/', embedded.app);
  const server = await listen(both.fetch);
  const remote: Gateway = createGateway({
    config: DEFAULT_GATEWAY_CONFIG,
    upstream: remoteUpstream(server.origin, key),
  });
  const remoteServer = await listen(remote.app.fetch);
  try {
    const auth = { Authorization: `Bearer ${key}` };
    const browser = { 'Accept-Encoding': BROWSER_ENCODINGS };
    const read = async (response: Response | Promise<Response>) => (await response).arrayBuffer();

    const probe = await runtime.app.request(historyUrl, { headers: { ...auth, ...browser } });
    const encoding = probe.headers.get('Content-Encoding') ?? 'identity';
    const compressedBytes = (await probe.arrayBuffer()).byteLength;
    const [service = [], gateway = []] = await interleaved(
      [
        () => read(runtime.app.request(historyUrl, { headers: { ...auth, ...browser } })),
        () => read(embedded.app.request(gatewayUrl, { headers: browser })),
      ],
      RUNS,
    );
    const s = median(service);
    const g = median(gateway);
    rows.push({
      suite: SUITE,
      name: `/api/v1/history same request, as a browser asks it (${encoding}): median server time`,
      value: round(s),
      unit: 'ms',
      note: `${round(compressedBytes / 1024)} KiB`,
    });
    rows.push({
      suite: SUITE,
      name: '/gw/v1/history same request (embedded gateway): median server time',
      value: round(g),
      unit: 'ms',
    });
    rows.push({
      suite: SUITE,
      name: '/gw/v1/history vs /api/v1/history, in-process',
      value: round(g / s),
      unit: 'x',
      target: '<= 1.5x',
      pass: g / s <= 1.5,
    });

    const [wireService = [], wireGateway = [], wireRemote = []] = await interleaved(
      [
        () => wireGet(`${server.origin}${historyUrl}`, { ...auth, ...browser }),
        () => wireGet(`${server.origin}${gatewayUrl}`, browser),
        () => wireGet(`${remoteServer.origin}${gatewayUrl}`, browser),
      ],
      RUNS,
    );
    const ws = median(wireService);
    const wg = median(wireGateway);
    const wr = median(wireRemote);
    const remoteProbe = await wireGet(`${remoteServer.origin}${gatewayUrl}`, browser);
    rows.push({
      suite: SUITE,
      name: '/api/v1/history over a loopback socket: median to the last byte',
      value: round(ws),
      unit: 'ms',
    });
    rows.push({
      suite: SUITE,
      name: '/gw/v1/history over a loopback socket (embedded gateway): median',
      value: round(wg),
      unit: 'ms',
    });
    rows.push({
      suite: SUITE,
      name: '/gw/v1/history vs /api/v1/history, over sockets',
      value: round(wg / ws),
      unit: 'x',
      target: '<= 1.5x',
      pass: wg / ws <= 1.5,
    });
    rows.push({
      suite: SUITE,
      name: '/gw/v1/history, gateway in front of the service over HTTP (remote mode): median',
      value: round(wr),
      unit: 'ms',
      note: `${remoteProbe.encoding ?? 'identity'}, ${round(remoteProbe.bytes / 1024)} KiB`,
    });
    rows.push({
      suite: SUITE,
      name: '/gw/v1/history remote mode vs /api/v1/history, over sockets',
      value: round(wr / ws),
      unit: 'x',
      note: 'one more hop: gateway -> service over HTTP',
    });
  } finally {
    remote.close();
    embedded.close();
    await remoteServer.close();
    await server.close();
  }
  return rows;
}
