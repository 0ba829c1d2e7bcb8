import dns from 'node:dns';
import { createServer, type Server, type Socket } from 'node:net';
import { freePort } from './free-port';

/**
 * Endpoints that fail as a remote service can, for what the server connects to (Ogmios, the
 * upstream, PostgreSQL, Redis), each a real socket on 127.0.0.1:
 * - `refused`: a port nobody listens on;
 * - `timeout`: a server that accepts and never says a word;
 * - `garbage`: a server that answers whatever comes with an HTTP 200 whose body is not what any
 *   client expects (not JSON for Ogmios' health check and the upstream, not their protocol for
 *   PostgreSQL and Redis).
 */
export type Fault = 'refused' | 'timeout' | 'garbage';
export const FAULTS: readonly Fault[] = ['refused', 'timeout', 'garbage'];

export interface FaultyEndpoint {
  readonly fault: Fault;
  readonly port: number;
  /** Ends every connection it holds (a client waiting on a silent one then fails). */
  dropConnections(): void;
  close(): Promise<void>;
}

const GARBAGE =
  'HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 16\r\nConnection: close\r\n\r\n}{ not json \u0000\u0001\u0002';

export async function faultyEndpoint(fault: Fault): Promise<FaultyEndpoint> {
  if (fault === 'refused')
    return { fault, port: await freePort(), dropConnections: () => undefined, close: () => Promise.resolve() };
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    if (fault === 'garbage') {
      // PostgreSQL and Redis clients speak first, HTTP clients too; a client that waits is answered at once.
      socket.write(GARBAGE);
      socket.on('data', () => socket.writable && socket.write(GARBAGE));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || !address) throw new Error('no port');
  return {
    fault,
    port: address.port,
    dropConnections: () => {
      for (const socket of sockets) socket.destroy();
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** Host names under this suffix resolve to 127.0.0.1 while `resolveTestHosts` is on (RFC 2606 keeps `.test` for tests). */
export const TEST_HOST_SUFFIX = '.key.test';

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | dns.LookupAddress[],
  family?: number,
) => void;

/**
 * Makes names under {@link TEST_HOST_SUFFIX} resolve to 127.0.0.1 in this process (as a line in
 * /etc/hosts would), so that an address with a key in its host (`KEY.key.test`) reaches a local
 * endpoint through every client library (ws, undici, node-fetch, pg and ioredis all look names up
 * with `dns.lookup`). Returns the function that puts the resolver back.
 */
export function resolveTestHosts(): () => void {
  const original = dns.lookup;
  const patched = function lookup(hostname: string, options: unknown, callback?: LookupCallback): void {
    const done = (typeof options === 'function' ? options : callback) as LookupCallback;
    const opts = (typeof options === 'object' && options !== null ? options : {}) as dns.LookupOptions;
    if (!hostname.toLowerCase().endsWith(TEST_HOST_SUFFIX)) {
      (original as (...args: unknown[]) => void).call(dns, hostname, options, callback);
      return;
    }
    if (opts.all) process.nextTick(() => done(null, [{ address: '127.0.0.1', family: 4 }]));
    else process.nextTick(() => done(null, '127.0.0.1', 4));
  };
  (dns as { lookup: unknown }).lookup = patched;
  return () => {
    (dns as { lookup: unknown }).lookup = original;
  };
}
