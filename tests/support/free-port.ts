import { createServer } from 'node:net';

/**
 * A TCP port nobody listens on right now on 127.0.0.1 (bound, then released for the caller's server
 * to take right after). The one helper of the tests, the browser tests and the benchmarks.
 */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}
