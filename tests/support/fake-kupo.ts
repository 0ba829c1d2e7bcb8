import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local Kupo for tests, speaking the one route the chain source asks of it: `GET
 * /checkpoints/{slot-no}` — the newest of its points at or before the slot, `{ slot_no, header_hash }`
 * (Kupo's `Point`), or `null` when it holds none that old; `?strict` for that exact slot only
 * (CardanoSolutions/kupo docs/api: getCheckpointBySlot). Kupo is not packaged here, so the test
 * serves the answers its API documents. `answer` overrides them (an error status, garbage), and
 * `respond` answers any way a test likes (a redirect, a gzip bomb, a body without end).
 */
export class FakeKupo {
  readonly requests: string[] = [];
  /** When set, every request gets this instead (status and body). */
  answer: { status: number; body: string } | undefined;
  /** When set, every request is answered by this instead (a hostile Kupo: redirects, bombs, endless bodies). */
  respond: ((path: string, res: ServerResponse) => void) | undefined;

  private constructor(
    private readonly http: Server,
    private points: { slot: number; id: string }[],
  ) {}

  static async start(points: readonly { slot: number; id: string }[]): Promise<FakeKupo> {
    const holder: { fake?: FakeKupo } = {};
    const http = createServer((req, res) => holder.fake?.handle(req.url ?? '', res));
    const fake = new FakeKupo(
      http,
      [...points].sort((a, b) => a.slot - b.slot),
    );
    holder.fake = fake;
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  /** Replaces the points it holds (a Kupo that synchronised further back). */
  setPoints(points: readonly { slot: number; id: string }[]): void {
    this.points = [...points].sort((a, b) => a.slot - b.slot);
  }

  get url(): string {
    return `http://127.0.0.1:${(this.http.address() as AddressInfo).port}`;
  }

  private handle(path: string, res: ServerResponse): void {
    this.requests.push(path);
    if (this.respond) {
      this.respond(path, res);
      return;
    }
    if (this.answer) {
      res.writeHead(this.answer.status, { 'Content-Type': 'application/json' }).end(this.answer.body);
      return;
    }
    const match = /^\/checkpoints\/(\d+)(\?strict)?$/.exec(path);
    if (!match) {
      res.writeHead(404, { 'Content-Type': 'application/json' }).end(JSON.stringify({ hint: 'unknown route' }));
      return;
    }
    const slot = Number(match[1]);
    const found = match[2]
      ? this.points.find((p) => p.slot === slot)
      : this.points.filter((p) => p.slot <= slot).at(-1);
    res
      .writeHead(200, { 'Content-Type': 'application/json' })
      .end(JSON.stringify(found ? { slot_no: found.slot, header_hash: found.id } : null));
  }

  async close(): Promise<void> {
    this.http.closeAllConnections();
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
  }
}
