import { afterEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { PacedUpstream, UpstreamStatusError } from '../../src/gateway/derive/paced-upstream';
import { remoteUpstream } from '../../src/gateway/upstream';
import { serveLoopback, type Loopback } from './support/loopback';

/** The gateway's paced requests against a small real upstream that answers as a script says. */

const okSchema = z.object({ n: z.number() });

interface Hit {
  readonly path: string;
  readonly at: number;
}

let loopback: Loopback | undefined;
let paced: PacedUpstream | undefined;

afterEach(async () => {
  paced?.close();
  await loopback?.close();
});

/** An upstream answering each request with `answer(nth hit of its path)`. */
async function scripted(
  answer: (path: string, nth: number) => Response,
): Promise<{ hits: Hit[]; upstream: PacedUpstream }> {
  const hits: Hit[] = [];
  loopback = await serveLoopback((request) => {
    const url = new URL(request.url);
    const path = `${url.pathname}${url.search}`;
    hits.push({ path, at: Date.now() });
    return answer(path, hits.filter((h) => h.path === path).length);
  });
  paced = new PacedUpstream({
    upstream: remoteUpstream(loopback.origin, 'paced-test-key'),
    requestsPerMinute: 600,
    timeoutMs: 5000,
  });
  return { hits, upstream: paced };
}

const json = (body: unknown, headers: Record<string, string> = {}, status = 200) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });

describe("the gateway's paced upstream requests", () => {
  it('waits Retry-After after a 429, then tries that request again', async () => {
    const { hits, upstream } = await scripted((_path, nth) =>
      nth === 1 ? json({ s: 'error', errmsg: 'slow down' }, { 'Retry-After': '1' }, 429) : json({ n: nth }),
    );
    expect(await upstream.get('/api/v1/a', okSchema)).toEqual({ n: 2 });
    expect(hits).toHaveLength(2);
    expect((hits[1] as Hit).at - (hits[0] as Hit).at).toBeGreaterThanOrEqual(1000 - 5);
  });

  it("pauses while less than half the upstream's budget remains, for the share of the reset that refills it", async () => {
    const { hits, upstream } = await scripted((path) =>
      path === '/api/v1/first'
        ? json({ n: 1 }, { 'RateLimit-Limit': '10', 'RateLimit-Remaining': '2', 'RateLimit-Reset': '2' })
        : json({ n: 2 }),
    );
    await upstream.get('/api/v1/first', okSchema);
    await upstream.get('/api/v1/second', okSchema);
    // (5 - 2) / (10 - 2) of the 2 s reset, rounded up to a second.
    expect((hits[1] as Hit).at - (hits[0] as Hit).at).toBeGreaterThanOrEqual(1000 - 5);
  });

  it('gives up after three 429s with the status, and rejects other statuses at once', async () => {
    const { hits, upstream } = await scripted((path) =>
      path === '/api/v1/busy' ? json({}, { 'Retry-After': '0' }, 429) : json({ detail: [] }, {}, 404),
    );
    await expect(upstream.get('/api/v1/busy', okSchema)).rejects.toEqual(new UpstreamStatusError('/api/v1/busy', 429));
    expect(hits.filter((h) => h.path === '/api/v1/busy')).toHaveLength(3);
    await expect(upstream.get('/api/v1/gone', okSchema)).rejects.toBeInstanceOf(UpstreamStatusError);
  });

  it('sends one request for concurrent callers of a path, and spaces different paths at the rate', async () => {
    const { hits, upstream } = await scripted((_path, nth) => json({ n: nth }));
    const same = await Promise.all(Array.from({ length: 10 }, () => upstream.get('/api/v1/same', okSchema)));
    expect(same.every((body) => body.n === 1)).toBe(true);
    await Promise.all(['/a', '/b', '/c', '/d', '/e'].map((p) => upstream.get(`/api/v1${p}`, okSchema)));
    expect(hits).toHaveLength(6);
    // 600 a minute: one per 100 ms window, so any three start at least one window apart.
    for (let i = 2; i < hits.length; i++)
      expect((hits[i] as Hit).at - (hits[i - 2] as Hit).at).toBeGreaterThanOrEqual(95);
  });
});
