import { once } from 'node:events';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import type { Market } from '../src/service/market/model';
import type { TradeRecord } from '../src/service/store/ports';
import { StreamHub } from '../src/service/stream/hub';

const HEAD = 'HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n{"s":"ok"}\n';

/**
 * The floor the stream is compared with: a bare TCP server that, after each commit, writes the same
 * lines the service sends (serialised by a StreamHub of its own, so the same JSON for the same
 * subscriptions) to each client socket in one write: no HTTP chunking, no web streams, no framework.
 * What is left is the loopback, the scheduling of the two processes on this machine and the clients'
 * own reading. Clients speak to it as to POST /api/v1/tokens/stream (body: a JSON array of pool IDs).
 */
export class FloorServer {
  private readonly hub: StreamHub;
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  /** Lines of the commit being published, per socket. */
  private readonly batches = new Map<Socket, string[]>();

  constructor(market: Market) {
    this.hub = new StreamHub(market);
    this.server = createServer((socket) => this.accept(socket));
  }

  async listen(): Promise<number> {
    this.server.listen(0, '127.0.0.1');
    await once(this.server, 'listening');
    return (this.server.address() as AddressInfo).port;
  }

  get size(): number {
    return this.sockets.size;
  }

  /** Wire to the ingest path's commit listener. */
  publish(records: readonly TradeRecord[]): void {
    this.hub.publish(records);
    for (const [socket, lines] of this.batches) socket.write(lines.join(''));
    this.batches.clear();
  }

  close(): void {
    for (const socket of this.sockets) socket.destroy();
    this.server.close();
  }

  private accept(socket: Socket): void {
    socket.setNoDelay(true);
    this.sockets.add(socket);
    let request = Buffer.alloc(0);
    let unsubscribe = () => {};
    socket.on('close', () => {
      this.sockets.delete(socket);
      this.batches.delete(socket);
      unsubscribe();
    });
    socket.on('error', () => socket.destroy());
    const onData = (chunk: Buffer) => {
      request = Buffer.concat([request, chunk]);
      const end = request.indexOf('\r\n\r\n');
      if (end === -1) return;
      const length = Number(/content-length:\s*(\d+)/i.exec(request.subarray(0, end).toString('latin1'))?.[1] ?? 0);
      if (request.length < end + 4 + length) return;
      socket.off('data', onData);
      const pools = JSON.parse(request.subarray(end + 4, end + 4 + length).toString('utf8')) as string[];
      unsubscribe = this.hub.subscribe(pools, (line) => {
        let lines = this.batches.get(socket);
        if (!lines) this.batches.set(socket, (lines = []));
        lines.push(line);
      });
      socket.write(HEAD);
    };
    socket.on('data', onData);
  }
}
