import { inflateSync } from 'node:zlib';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deflateBody } from '../../src/service/http/history-deflate';
import { symbolInfoResponseSchema } from '../../src/shared/api/symbol-info';
import { historyPath, symbolInfoPath } from '../support/builders';
import { createTestService, type TestService } from '../support/service';

const BROWSER = 'gzip, deflate, br, zstd';

async function inflated(pieces: readonly Uint8Array[]): Promise<Buffer> {
  const { pieces: out, bytes } = await deflateBody(pieces);
  const joined = Buffer.concat(out);
  expect(joined.byteLength).toBe(bytes);
  return inflateSync(joined);
}

describe('deflate bodies from pieces', () => {
  it('inflates to the pieces one after the other, whatever their sizes and contents', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.uint8Array({ maxLength: 3000 }), { maxLength: 12 }), async (parts) => {
        expect((await inflated(parts)).equals(Buffer.concat(parts))).toBe(true);
      }),
      { numRuns: 60 },
    );
  });

  it('reuses the compressed form of a piece it has seen, and gives the same bytes', async () => {
    const piece = Buffer.from('1,2,3,'.repeat(5000));
    const first = await deflateBody([piece]);
    const second = await deflateBody([piece]);
    expect(second.pieces[1]).toBe(first.pieces[1]);
    expect(
      (await inflated([piece, piece.subarray(10, 500), piece])).equals(
        Buffer.concat([piece, piece.subarray(10, 500), piece]),
      ),
    ).toBe(true);
  });

  it('handles an empty body and megabytes alike', async () => {
    expect((await inflated([])).equals(Buffer.alloc(0))).toBe(true);
    const big = Buffer.from(Array.from({ length: 300_000 }, (_, i) => String(i * 7)).join(','));
    expect(
      (await inflated([big.subarray(0, 5), big, big.subarray(100)])).equals(
        Buffer.concat([big.subarray(0, 5), big, big.subarray(100)]),
      ),
    ).toBe(true);
  });
});

describe('GET /history compressed', () => {
  let service: TestService;
  let path: string;

  beforeAll(async () => {
    service = await createTestService();
    const symbols = symbolInfoResponseSchema.parse(await service.getJson(symbolInfoPath('Aggregate')));
    const to = service.clock.seconds() + 60;
    path = historyPath({
      symbol: symbols.ticker[0] ?? '',
      resolution: '1min',
      from: to - 3 * 86_400,
      to,
      include_tvl: true,
    });
  });
  afterAll(async () => service.close());

  it('answers deflate to a client that takes it, with the identity body inside', async () => {
    const identity = await service.request(path);
    expect(identity.headers.get('Content-Encoding')).toBeNull();
    const body = Buffer.from(await identity.arrayBuffer());
    expect(body.byteLength).toBeGreaterThan(1024);

    const compressed = await service.request(path, { headers: { 'Accept-Encoding': BROWSER } });
    expect(compressed.headers.get('Content-Encoding')).toBe('deflate');
    expect(compressed.headers.get('Vary')).toBe('Accept-Encoding');
    const raw = Buffer.from(await compressed.arrayBuffer());
    expect(Number(compressed.headers.get('Content-Length'))).toBe(raw.byteLength);
    expect(raw.byteLength).toBeLessThan(body.byteLength / 2);
    expect(inflateSync(raw).equals(body)).toBe(true);
  });

  it('stays right after a trade rebuilds the chunks, and for ranges cut inside chunks', async () => {
    await service.trade();
    const now = service.clock.seconds() + 60;
    for (const [from, to] of [
      [now - 86_400 - 1234, now],
      [now - 2 * 86_400 + 17, now - 86_400 + 300],
    ] as const) {
      const ranged = path.replace(/from=\d+/, `from=${from}`).replace(/to=\d+/, `to=${to}`);
      const identity = Buffer.from(await (await service.request(ranged)).arrayBuffer());
      const compressed = await service.request(ranged, { headers: { 'Accept-Encoding': 'deflate' } });
      expect(inflateSync(Buffer.from(await compressed.arrayBuffer())).equals(identity)).toBe(true);
    }
  });

  it('never deflates for a client that refuses it or a small answer', async () => {
    const refused = await service.request(path, { headers: { 'Accept-Encoding': 'gzip, deflate;q=0' } });
    expect(refused.headers.get('Content-Encoding')).toBeNull();
    const empty = await service.request(path.replace(/from=\d+/, 'from=0').replace(/to=\d+/, 'to=10'), {
      headers: { 'Accept-Encoding': BROWSER },
    });
    expect(empty.headers.get('Content-Encoding')).toBeNull();
    expect(await empty.json()).toMatchObject({ s: 'ok', t: [] });
  });
});
