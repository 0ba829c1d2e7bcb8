import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash } from 'node:crypto';

const hashOf = (text: string) => createHash('sha256').update(text).digest('hex');

/**
 * A local Kupo for tests, speaking the routes the service asks of it. `GET
 * /checkpoints/{slot-no}` — the newest of its points at or before the slot, `{ slot_no, header_hash }`
 * (Kupo's `Point`), or `null` when it holds none that old; `?strict` for that exact slot only
 * (CardanoSolutions/kupo docs/api: getCheckpointBySlot). And for token identity, `GET
 * /matches/{policy}.{asset name}?unspent` — the unspent outputs holding that asset (Kupo's `Match`, with
 * the fields it documents) — and `GET /datums/{hash}` — `{ datum }` or `null`, for the reference NFTs
 * set with `setReferences` (a datum's hash here is its SHA-256, an identifier only: Kupo's is
 * BLAKE2b-256, which nothing in the service recomputes). Kupo is not packaged here, so the test
 * serves the answers its API documents. `answer` overrides them (an error status, garbage), and
 * `respond` answers any way a test likes (a redirect, a gzip bomb, a body without end).
 */
export class FakeKupo {
  readonly requests: string[] = [];
  /** When set, every request gets this instead (status and body). */
  answer: { status: number; body: string } | undefined;
  /** When set, every request is answered by this instead (a hostile Kupo: redirects, bombs, endless bodies). */
  respond: ((path: string, res: ServerResponse) => void) | undefined;

  /** Reference NFTs' unit → the inline datum (CBOR hex) of the one unspent output holding each. */
  private references = new Map<string, string>();

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

  /** Sets the reference NFTs it holds (unit → inline datum as CBOR hex). */
  setReferences(references: ReadonlyMap<string, string>): void {
    this.references = new Map(references);
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
    const asset = /^\/matches\/([0-9a-f]{56})\.([0-9a-f]*)\?unspent$/.exec(path);
    if (asset) {
      const unit = `${asset[1]}${asset[2]}`;
      const datum = this.references.get(unit);
      const items = datum
        ? [
            {
              transaction_index: 0,
              transaction_id: hashOf(`tx:${unit}`),
              output_index: 0,
              address: 'addr1w8qmxkacjdffxah0l3qg8hq2pmvs58q8lcy42f3ph8r3uxgd7xcyz',
              value: { coins: 2_000_000, assets: { [`${asset[1]}.${asset[2]}`]: 1 } },
              datum_hash: hashOf(datum),
              datum_type: 'inline',
              script_hash: null,
              created_at: { slot_no: 120_000_000, header_hash: hashOf(`block:${unit}`) },
              spent_at: null,
            },
          ]
        : [];
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(items));
      return;
    }
    const datumHash = /^\/datums\/([0-9a-f]{64})$/.exec(path);
    if (datumHash) {
      const datum = [...this.references.values()].find((d) => hashOf(d) === datumHash[1]);
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(datum ? { datum } : null));
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
