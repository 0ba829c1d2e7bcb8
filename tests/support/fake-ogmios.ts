import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { wireJson, type OgmiosWireBlock } from './prise';

/**
 * A local Ogmios v6 for tests: a real HTTP + WebSocket server on 127.0.0.1 speaking Ogmios' JSON-RPC
 * for what `@cardano-ogmios/client` calls (GET /health, findIntersection, nextBlock, queryNetwork/tip), serving a chain
 * of blocks the test gives it. Scripted: `extend` adds blocks (clients waiting at the tip get them),
 * `rollBackTo` cuts the chain (clients past the point get a backward), `dropConnections` closes every
 * socket, `sendGarbage` writes a frame that is not JSON, `sendResult` answers a waiting request with
 * any result (valid JSON that is not a block), and `silent` makes it answer nothing, pings included
 * (a half-open connection).
 */
interface Client {
  readonly socket: WebSocket;
  /** Index of the next block to send; -1 before an intersection. */
  next: number;
  /** A backward to send first (after a rollback or an intersection). */
  backward: { slot: number; id: string } | 'origin' | undefined;
  waiting: unknown[];
}

export class FakeOgmios {
  private readonly clients = new Set<Client>();
  readonly requests: string[] = [];
  /** Delay before each block is sent (ms): a slow node, so a sync can be interrupted midway. */
  blockDelayMs = 0;
  /** While true, nothing is answered: no block, no intersection, no pong. */
  silent = false;
  private sending = new WeakSet<Client>();
  private constructor(
    private readonly http: Server,
    private readonly wss: WebSocketServer,
    private chain: OgmiosWireBlock[],
  ) {}

  static async start(blocks: readonly OgmiosWireBlock[]): Promise<FakeOgmios> {
    const http = createServer((req, res) => {
      // Under any path: a hosted endpoint's address may have one (its key, say), and the health check follows it.
      if (new URL(req.url ?? '/', 'http://fake').pathname.endsWith('/health')) {
        res.writeHead(200, { 'Content-Type': 'application/json' });
        res.end(
          JSON.stringify({
            lastTipUpdate: new Date().toISOString(),
            networkSynchronization: 1,
            currentEra: 'babbage',
            connectionStatus: 'connected',
          }),
        );
        return;
      }
      res.writeHead(404).end();
    });
    // Pongs are answered by hand, so that a silent node answers none.
    const wss = new WebSocketServer({ server: http, autoPong: false });
    const fake = new FakeOgmios(http, wss, [...blocks]);
    wss.on('connection', (socket) => fake.accept(socket));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  get url(): string {
    return `ws://127.0.0.1:${(this.http.address() as AddressInfo).port}`;
  }

  get connections(): number {
    return this.clients.size;
  }

  private tip(): { slot: number; id: string; height: number } | 'origin' {
    const last = this.chain.at(-1);
    return last ? { slot: last.slot, id: last.id, height: last.height } : 'origin';
  }

  private accept(socket: WebSocket): void {
    const client: Client = { socket, next: -1, backward: undefined, waiting: [] };
    this.clients.add(client);
    socket.on('close', () => this.clients.delete(client));
    socket.on('ping', (data) => {
      if (!this.silent) socket.pong(data);
    });
    socket.on('message', (data) => {
      if (this.silent) return;
      let request: { method?: string; params?: { points?: ({ slot: number; id: string } | 'origin')[] }; id?: unknown };
      try {
        request = JSON.parse(String(data));
      } catch {
        return;
      }
      this.requests.push(String(request.method));
      if (request.method === 'findIntersection') this.intersect(client, request.params?.points ?? [], request.id);
      else if (request.method === 'queryNetwork/tip') {
        // Ogmios v6 answers the network's tip as a point (slot and id), or 'origin'.
        const tip = this.tip();
        this.send(client, {
          method: 'queryNetwork/tip',
          result: tip === 'origin' ? 'origin' : { slot: tip.slot, id: tip.id },
          id: request.id,
        });
      } else if (request.method === 'nextBlock') {
        client.waiting.push(request.id);
        this.serve(client);
      }
    });
  }

  private send(client: Client, message: object): void {
    client.socket.send(wireJson({ jsonrpc: '2.0', ...message }));
  }

  private intersect(client: Client, points: readonly ({ slot: number; id: string } | 'origin')[], id: unknown): void {
    for (const point of points) {
      if (point === 'origin') {
        client.next = 0;
        client.backward = 'origin';
        this.send(client, { method: 'findIntersection', result: { intersection: 'origin', tip: this.tip() }, id });
        return;
      }
      const at = this.chain.findIndex((b) => b.slot === point.slot && b.id === point.id);
      if (at !== -1) {
        client.next = at + 1;
        client.backward = { slot: point.slot, id: point.id };
        this.send(client, {
          method: 'findIntersection',
          result: { intersection: { slot: point.slot, id: point.id }, tip: this.tip() },
          id,
        });
        return;
      }
    }
    this.send(client, {
      method: 'findIntersection',
      error: { code: 1000, message: 'No intersection found.', data: { tip: this.tip() } },
      id,
    });
  }

  private serve(client: Client): void {
    if (this.silent) return;
    if (this.blockDelayMs > 0) {
      if (this.sending.has(client)) return;
      this.sending.add(client);
      setTimeout(() => {
        this.sending.delete(client);
        if (client.socket.readyState !== client.socket.OPEN) return;
        const before = client.waiting.length;
        this.serveOne(client);
        if (client.waiting.length < before) this.serve(client);
      }, this.blockDelayMs);
      return;
    }
    while (client.waiting.length > 0) if (!this.serveOne(client)) return;
  }

  /** Answers one waiting request; false when at the tip (the request waits). */
  private serveOne(client: Client): boolean {
    if (client.waiting.length === 0) return false;
    if (client.backward !== undefined) {
      const id = client.waiting.shift();
      this.send(client, {
        method: 'nextBlock',
        result: { direction: 'backward', point: client.backward, tip: this.tip() },
        id,
      });
      client.backward = undefined;
      return true;
    }
    const block = client.next >= 0 ? this.chain[client.next] : undefined;
    if (!block) return false; // at the tip: the request waits for the next block
    client.next++;
    const id = client.waiting.shift();
    this.send(client, { method: 'nextBlock', result: { direction: 'forward', block, tip: this.tip() }, id });
    return true;
  }

  /** Adds blocks at the tip; waiting clients get them. */
  extend(blocks: readonly OgmiosWireBlock[]): void {
    this.chain.push(...blocks);
    for (const client of this.clients) this.serve(client);
  }

  /** Cuts the chain after the block at `slot`: clients past it get a backward to it. */
  rollBackTo(slot: number): void {
    const at = this.chain.findIndex((b) => b.slot === slot);
    if (at === -1) throw new Error(`no block at slot ${slot}`);
    const point = this.chain[at] as OgmiosWireBlock;
    this.chain = this.chain.slice(0, at + 1);
    for (const client of this.clients) {
      if (client.next > at + 1) {
        client.next = at + 1;
        client.backward = { slot: point.slot, id: point.id };
        this.serve(client);
      }
    }
  }

  /** Answers every client's oldest waiting nextBlock request with `result` as it is. */
  sendResult(result: unknown): void {
    for (const client of this.clients) {
      // The client library sends its requests without an id: a waiting entry may be undefined.
      if (client.waiting.length === 0) continue;
      const id = client.waiting.shift();
      this.send(client, { method: 'nextBlock', result, id });
    }
  }

  /** Wakes the clients after `silent` ends: waiting requests are answered again. */
  resume(): void {
    this.silent = false;
    for (const client of this.clients) this.serve(client);
  }

  dropConnections(): void {
    for (const client of this.clients) client.socket.terminate();
  }

  sendGarbage(): void {
    for (const client of this.clients) client.socket.send('}{ not json at all');
  }

  async close(): Promise<void> {
    this.dropConnections();
    await new Promise<void>((resolve) => this.wss.close(() => resolve()));
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
  }
}
