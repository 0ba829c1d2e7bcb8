import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { KUPO_CHECKPOINT_MAX_BYTES, KupoError, kupoCheckpoint, kupoGet } from '../../../src/service/chain/kupo';
import { FakeKupo } from '../../support/fake-kupo';

/**
 * Issue 45: Kupo's answers are not trusted. The bounded client (src/service/chain/kupo.ts) against a
 * real HTTP server answering as a hostile or broken Kupo would: a redirect to another host, an answer
 * of endless size, a gzip bomb, a body that never ends, and points with fields out of range.
 */
let kupo: FakeKupo | undefined;
let other: Server | undefined;
afterEach(async () => {
  await kupo?.close();
  kupo = undefined;
  other?.closeAllConnections();
  await new Promise<void>((resolve) => (other ? other.close(() => resolve()) : resolve()));
  other = undefined;
});

const HASH = 'ab'.repeat(32);

/** The heap grown (MiB) by `run`, after a collection when Node exposes one. */
async function heapGrowth(run: () => Promise<unknown>): Promise<number> {
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  const before = process.memoryUsage().heapUsed;
  let peak = before;
  const watch = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 5);
  try {
    await run();
  } finally {
    clearInterval(watch);
  }
  return (Math.max(peak, process.memoryUsage().heapUsed) - before) / 2 ** 20;
}

describe('the Kupo client', () => {
  it("reads a checkpoint: Kupo's point at or before the slot, or none", async () => {
    kupo = await FakeKupo.start([
      { slot: 100, id: HASH },
      { slot: 200, id: 'CD'.repeat(32) },
    ]);
    expect(await kupoCheckpoint(kupo.url, 250)).toEqual({ slot: 200, id: 'cd'.repeat(32) });
    expect(await kupoCheckpoint(kupo.url, 150)).toEqual({ slot: 100, id: HASH });
    expect(await kupoCheckpoint(kupo.url, 50)).toBeUndefined();
    expect(kupo.requests).toEqual(['/checkpoints/250', '/checkpoints/150', '/checkpoints/50']);
  });

  it('never follows a redirect: the other host is never asked', async () => {
    let asked = 0;
    other = createServer((_req, res) => {
      asked++;
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ slot_no: 1, header_hash: HASH }));
    });
    await new Promise<void>((resolve) => other?.listen(0, '127.0.0.1', resolve));
    const elsewhere = `http://127.0.0.1:${(other.address() as AddressInfo).port}/internal/admin`;
    kupo = await FakeKupo.start([]);
    for (const status of [301, 302, 307, 308]) {
      kupo.respond = (_path, res) => res.writeHead(status, { Location: elsewhere }).end();
      await expect(kupoCheckpoint(kupo.url, 10)).rejects.toThrow(
        `Kupo answered GET /checkpoints/10 with a redirect (${status}), which is not followed`,
      );
    }
    expect(asked).toBe(0);
  });

  it('takes at most its bound of an endless answer, and holds no more than that in memory', async () => {
    kupo = await FakeKupo.start([]);
    let written = 0;
    kupo.respond = (_path, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      const piece = Buffer.alloc(64 * 1024, 0x20);
      // Up to 1.5 GiB, as fast as the client takes it.
      const more = () => {
        while (written < 1.5 * 2 ** 30) {
          written += piece.byteLength;
          if (!res.write(piece)) return void res.once('drain', more);
        }
        res.end();
      };
      res.on('close', () => (written = Number.POSITIVE_INFINITY));
      more();
    };
    let error: unknown;
    const grown = await heapGrowth(() => kupoCheckpoint(kupo?.url ?? '', 10).catch((e: unknown) => (error = e)));
    expect(error).toBeInstanceOf(KupoError);
    expect((error as Error).message).toBe(
      `Kupo's answer to GET /checkpoints/10 is over the ${KUPO_CHECKPOINT_MAX_BYTES} bytes this call takes`,
    );
    expect(grown).toBeLessThan(32);
  });

  it('refuses an answer whose Content-Length is over the bound before reading it', async () => {
    kupo = await FakeKupo.start([]);
    kupo.respond = (_path, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': String(10 * 2 ** 20) });
      res.write('{');
    };
    await expect(kupoCheckpoint(kupo.url, 10)).rejects.toThrow(
      `Kupo's answer to GET /checkpoints/10 is ${10 * 2 ** 20} bytes, over the ${KUPO_CHECKPOINT_MAX_BYTES} this call takes`,
    );
  });

  it('decodes a compressed answer within the bound, and cuts a gzip bomb (1 MiB of gzip, 1 GiB of JSON) at it', async () => {
    kupo = await FakeKupo.start([]);
    const point = gzipSync(JSON.stringify({ slot_no: 7, header_hash: HASH }));
    kupo.respond = (_path, res) =>
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }).end(point);
    expect(await kupoCheckpoint(kupo.url, 10)).toEqual({ slot: 7, id: HASH });
    // Gzip members one after another are one gzip body: 16 of 64 MiB of spaces each.
    const member = gzipSync(Buffer.alloc(64 * 2 ** 20, 0x20), { level: 9 });
    const bomb = Buffer.concat(Array.from({ length: 16 }, () => member));
    expect(bomb.byteLength).toBeLessThan(2 ** 21);
    kupo.respond = (_path, res) =>
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': 'gzip' }).end(bomb);
    let error: unknown;
    const grown = await heapGrowth(() => kupoCheckpoint(kupo?.url ?? '', 10).catch((e: unknown) => (error = e)));
    expect((error as Error).message).toBe(
      `Kupo's answer to GET /checkpoints/10 is over the ${KUPO_CHECKPOINT_MAX_BYTES} bytes this call takes`,
    );
    expect(grown).toBeLessThan(32);
    kupo.respond = (_path, res) =>
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Encoding': 'zstd-of-my-own' }).end('{}');
    await expect(kupoCheckpoint(kupo.url, 10)).rejects.toThrow(/unknown Content-Encoding \(zstd-of-my-own\)/);
  }, 60_000);

  it('gives up on an answer that never ends, within its timeout', async () => {
    kupo = await FakeKupo.start([]);
    kupo.respond = (_path, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.write('{"slot_no":');
    };
    const started = performance.now();
    await expect(kupoCheckpoint(kupo.url, 10, { timeoutMs: 300 })).rejects.toThrow(
      'Kupo did not answer GET /checkpoints/10 within 0 s',
    );
    expect(performance.now() - started).toBeLessThan(5_000);
  });

  it('checks every field: a slot below 0, past 2^53 or after the slot asked, a hash of the wrong length, not JSON, another shape', async () => {
    kupo = await FakeKupo.start([]);
    const cases: [string, RegExp][] = [
      [`{"slot_no":-5,"header_hash":"${HASH}"}`, /slot_no: must be at least 0$/],
      [`{"slot_no":${2 ** 53},"header_hash":"${HASH}"}`, /slot_no: must be at most 1000, the slot asked$/],
      [`{"slot_no":1001,"header_hash":"${HASH}"}`, /slot_no: must be at most 1000, the slot asked$/],
      [`{"slot_no":1.5,"header_hash":"${HASH}"}`, /slot_no: must be an integer$/],
      [`{"slot_no":"5","header_hash":"${HASH}"}`, /slot_no: must be a number$/],
      [`{"slot_no":5,"header_hash":"${HASH.slice(2)}"}`, /header_hash: must be a block hash \(64 hex digits\)$/],
      ['{"slot":1}', /slot_no: must be a number$/],
      ['[1,2]', /must be a point \{ slot_no, header_hash \} or null$/],
      ['<html>', /is not JSON$/],
    ];
    for (const [body, message] of cases) {
      kupo.answer = { status: 200, body };
      const error = await kupoCheckpoint(kupo.url, 1000).catch((e: unknown) => e);
      expect(error, body).toBeInstanceOf(KupoError);
      expect((error as Error).message, body).toMatch(message);
      expect((error as Error).message).toMatch(/^Kupo's answer to GET \/checkpoints\/1000 is /);
    }
    kupo.answer = { status: 503, body: '{}' };
    await expect(kupoCheckpoint(kupo.url, 1000)).rejects.toThrow('Kupo answered 503 to GET /checkpoints/1000');
    await expect(kupoCheckpoint(kupo.url, -1)).rejects.toThrow(KupoError);
    const gone = kupo.url;
    await kupo.close();
    kupo = undefined;
    await expect(kupoCheckpoint(gone, 5)).rejects.toThrow(/^Kupo did not answer GET \/checkpoints\/5 \(/);
  });

  it('is one generic call for any route: this path, this bound, this schema', async () => {
    kupo = await FakeKupo.start([]);
    kupo.respond = (path, res) =>
      res
        .writeHead(200, { 'Content-Type': 'application/json' })
        .end(path === `/datums/${HASH}` ? JSON.stringify({ datum: 'd87980' }) : 'null');
    const datum = z.object({ datum: z.string().regex(/^([0-9a-f]{2})*$/) }).nullable();
    expect(await kupoGet(kupo.url, `datums/${HASH}`, { schema: datum, maxBytes: 64 })).toEqual({ datum: 'd87980' });
    expect(await kupoGet(kupo.url, 'datums/00', { schema: datum, maxBytes: 64 })).toBeNull();
    await expect(kupoGet(kupo.url, `datums/${HASH}`, { schema: datum, maxBytes: 8 })).rejects.toThrow(
      `Kupo's answer to GET /datums/${HASH} is over the 8 bytes this call takes`,
    );
  });
});
