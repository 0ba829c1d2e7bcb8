import { request } from 'node:http';
import { Readable } from 'node:stream';
import { SseReader } from './sse';

export interface LiveFrom {
  /** The client's own loopback address (127.0.0.0/8): one machine, as many "clients" as it likes. */
  readonly localAddress?: string;
  /** An `X-Forwarded-For` header (what a proxy, or a client pretending to be one, sends). */
  readonly forwardedFor?: string;
  /** Any other headers (`Forwarded`). */
  readonly headers?: Readonly<Record<string, string>>;
}

/**
 * Opens `GET /gw/v1/live?pools=…` on a real server over a real socket, from `localAddress` and with
 * forwarding headers as given, and reads its frames (SseReader). `close()` hangs up.
 */
export function openLiveFrom(
  origin: string,
  pools: readonly string[],
  from: LiveFrom = {},
): Promise<{ reader: SseReader; close: () => void }> {
  const url = new URL(`/gw/v1/live?pools=${pools.join(',')}`, origin);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path: `${url.pathname}${url.search}`,
        ...(from.localAddress ? { localAddress: from.localAddress } : {}),
        headers: {
          Accept: 'text/event-stream',
          ...(from.forwardedFor === undefined ? {} : { 'X-Forwarded-For': from.forwardedFor }),
          ...from.headers,
        },
        // One socket per connection, as browsers at different addresses have.
        agent: false,
      },
      (res) => {
        const body = Readable.toWeb(res) as ReadableStream<Uint8Array>;
        resolve({ reader: new SseReader(new Response(body)), close: () => req.destroy() });
      },
    );
    req.once('error', reject);
    req.end();
  });
}
