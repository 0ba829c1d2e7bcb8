import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import { NODE_SERVER_OPTIONS } from '../../../src/node/response-sink';

export interface Loopback {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  close(): Promise<void>;
}

/** Serves a fetch handler (a real service's app, or a tiny misbehaving upstream) over HTTP on loopback. */
export async function serveLoopback(fetch: (request: Request) => Response | Promise<Response>): Promise<Loopback> {
  const server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch, port: 0, hostname: '127.0.0.1', ...NODE_SERVER_OPTIONS }, () => resolve(s));
  });
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: async () => {
      if ('closeAllConnections' in server) server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
