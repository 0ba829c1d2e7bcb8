import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local CIP-26 token metadata server for tests, speaking the batch query wallets use (cardano-foundation/
 * cf-token-metadata-registry, api/src/main/resources/api.yaml): `POST /metadata/query` with `{ subjects, properties }`
 * answers `{ subjects: [mapping, ...] }` — the mappings it holds among those asked, each as a registry file holds it,
 * cut to the properties asked (plus `subject`); subjects it does not hold are left out. `GET /metadata/{subject}`
 * answers one mapping or 404. `behaviour` makes it slow, failing or hostile.
 */
export interface RegistryBehaviour {
  /** Milliseconds before each answer. */
  delayMs?: number;
  /** Answer this status (and body) instead. */
  status?: number;
  /** Answer this raw body (with status 200 unless `status`). */
  body?: string | Buffer;
  /** Extra headers of every answer (e.g. a lying Content-Length, Content-Encoding). */
  headers?: Record<string, string>;
  /** Redirect every request to this location. */
  redirect?: string;
}

export class FakeTokenRegistry {
  /** Every batch query's subjects, in order. */
  readonly queries: string[][] = [];
  behaviour: RegistryBehaviour = {};
  private readonly mappings = new Map<string, Record<string, unknown>>();

  private constructor(private readonly http: Server) {}

  static async start(mappings: readonly Record<string, unknown>[] = []): Promise<FakeTokenRegistry> {
    const holder: { fake?: FakeTokenRegistry } = {};
    const http = createServer((req, res) => void holder.fake?.handle(req, res));
    const fake = new FakeTokenRegistry(http);
    holder.fake = fake;
    fake.set(mappings);
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  /** Adds or replaces mappings (by subject): a registry correction. */
  set(mappings: readonly Record<string, unknown>[]): void {
    for (const mapping of mappings) this.mappings.set(String(mapping.subject).toLowerCase(), mapping);
  }

  get url(): string {
    return `http://127.0.0.1:${(this.http.address() as AddressInfo).port}`;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const { delayMs, status, body, headers, redirect } = this.behaviour;
    if (delayMs) await new Promise((resolve) => setTimeout(resolve, delayMs));
    if (redirect) {
      res.writeHead(302, { Location: redirect }).end();
      return;
    }
    if (status !== undefined || body !== undefined) {
      res.writeHead(status ?? 200, { 'Content-Type': 'application/json', ...headers }).end(body ?? '');
      return;
    }
    const path = req.url ?? '';
    if (req.method === 'POST' && path === '/metadata/query') {
      let query: { subjects?: unknown; properties?: unknown };
      try {
        query = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof query;
      } catch {
        res.writeHead(400).end();
        return;
      }
      const subjects = Array.isArray(query.subjects) ? query.subjects.map((s) => String(s).toLowerCase()) : [];
      const properties = Array.isArray(query.properties) ? new Set(query.properties.map(String)) : undefined;
      this.queries.push(subjects);
      const answer = subjects.flatMap((subject) => {
        const mapping = this.mappings.get(subject);
        if (!mapping) return [];
        if (!properties) return [mapping];
        return [
          Object.fromEntries(Object.entries(mapping).filter(([key]) => key === 'subject' || properties.has(key))),
        ];
      });
      res.writeHead(200, { 'Content-Type': 'application/json;charset=utf-8', ...headers });
      res.end(JSON.stringify({ subjects: answer }));
      return;
    }
    const one = /^\/metadata\/([0-9a-f]+)$/i.exec(path);
    const mapping = one ? this.mappings.get((one[1] as string).toLowerCase()) : undefined;
    if (req.method === 'GET' && mapping) {
      res.writeHead(200, { 'Content-Type': 'application/json;charset=utf-8' }).end(JSON.stringify(mapping));
      return;
    }
    res.writeHead(404).end();
  }

  async close(): Promise<void> {
    this.http.closeAllConnections();
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
  }
}
