import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * Real HTTP and HTTPS servers on random ports of a loopback address, for the outbound fetcher's tests
 * (what a logo URL or a webhook reaches). Each counts the requests it got, so a test can show that a
 * refused URL never reached it.
 */
export interface WebServer {
  /** `http://127.0.0.1:PORT` (or `https://`; the host is the one it listens on). */
  readonly origin: string;
  readonly port: number;
  /** Request paths received, in order. */
  readonly paths: string[];
  close(): Promise<void>;
}

export type Handler = (request: IncomingMessage, response: ServerResponse) => void;

/** A key and a self-signed certificate for `names` (DNS names and IP addresses), made by openssl. */
export interface TestCertificate {
  readonly key: string;
  readonly cert: string;
}

export function selfSignedCertificate(names: readonly string[]): TestCertificate {
  const dir = mkdtempSync(join(tmpdir(), 'cert-'));
  try {
    const san = names.map((name) => (/^[\d.]+$|:/.test(name) ? `IP:${name}` : `DNS:${name}`)).join(',');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-days',
        '2',
        '-subj',
        `/CN=${names[0] ?? 'localhost'}`,
        '-addext',
        `subjectAltName=${san}`,
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
    return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Starts a server on `host` (default 127.0.0.1), HTTPS when given a certificate. */
export async function startWebServer(
  handler: Handler,
  options: { readonly host?: string; readonly tls?: TestCertificate } = {},
): Promise<WebServer> {
  const host = options.host ?? '127.0.0.1';
  const paths: string[] = [];
  const sockets = new Set<Socket>();
  const listener = (request: IncomingMessage, response: ServerResponse) => {
    paths.push(request.url ?? '');
    handler(request, response);
  };
  const server: Server = options.tls
    ? createHttpsServer({ key: options.tls.key, cert: options.tls.cert }, listener)
    : createHttpServer(listener);
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, resolve);
  });
  const address = server.address();
  if (typeof address !== 'object' || !address) throw new Error('no port');
  const shownHost = host.includes(':') ? `[${host}]` : host;
  return {
    origin: `${options.tls ? 'https' : 'http'}://${shownHost}:${address.port}`,
    port: address.port,
    paths,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
