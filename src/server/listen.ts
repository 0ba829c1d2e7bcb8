import { createServer as createHttpServer, type Server } from 'node:http';
import { serve } from '@hono/node-server';
import { answerClientErrors } from '../node/client-errors';
import { guardRawPaths } from '../node/raw-path';
import { NODE_SERVER_OPTIONS } from '../node/response-sink';

/** What a listening server hands each request to (a Hono app's `fetch`). */
export type FetchHandler = (request: Request, env: unknown) => Response | Promise<Response>;

/** Why the port cannot be listened on, in one line. */
export function portProblem(error: NodeJS.ErrnoException, host: string, port: number, flag = '--port'): string {
  if (error.code === 'EADDRINUSE')
    return `Port ${port} on ${host} is in use (another server?): stop it or choose another ${flag}.`;
  if (error.code === 'EACCES')
    return `Port ${port} on ${host} needs privileges this process lacks: choose a port above 1023.`;
  if (error.code === 'EADDRNOTAVAIL')
    return `${host} is not an address of this machine: check ${flag === '--port' ? '--host' : '--metrics-host'}.`;
  return `Cannot listen on ${host}:${port}: ${error.message}`;
}

/**
 * Listens on `host:port` with @hono/node-server (raw paths checked before they are parsed, malformed
 * requests answered: src/node), handing each request to `fetch`. Resolves once listening, with the
 * port taken (a `0` asks for any free one); rejects with `portProblem`'s line.
 */
export function listen(
  host: string,
  port: number,
  fetch: FetchHandler,
  flag?: string,
): Promise<{ server: Server; port: number }> {
  return new Promise((resolve, reject) => {
    const createServer = ((options: object, listener: Parameters<typeof guardRawPaths>[0]) =>
      createHttpServer(options, guardRawPaths(listener))) as typeof createHttpServer;
    const server = serve(
      { fetch: (request, env) => fetch(request, env), port, hostname: host, createServer, ...NODE_SERVER_OPTIONS },
      (info) => {
        server.off('error', failed);
        resolve({ server: server as Server, port: info.port });
      },
    ) as Server;
    const failed = (error: NodeJS.ErrnoException) => {
      server.close();
      reject(new Error(portProblem(error, host, port, flag)));
    };
    server.once('error', failed);
    answerClientErrors(server);
  });
}
