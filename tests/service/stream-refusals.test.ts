import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { streamErrorSchema, STREAM_ERRORS } from '../../src/shared/api/stream';
import { DEFAULT_PLANS } from '../../src/service/auth/plans';
import type { Pool } from '../../src/service/market/model';
import { fakeHex, STREAM_PATH, UNKNOWN_POOL } from '../support/builders';
import { ensureDefined } from '../support/ensure';
import { aggregatesByActivity, busiestPools } from '../support/market';
import { createTestService, type TestService } from '../support/service';
import { openStream, readStream } from '../support/stream';
import { runtimeInternals } from '../../src/service/runtime-internals';

let service: TestService;
let aggregates: Pool[];

beforeAll(async () => {
  service = await createTestService();
  aggregates = await aggregatesByActivity(service.runtime);
});
afterAll(async () => service.close());

/** Opens a stream expected to be refused: one error event, then the end of the body; no slot kept. */
async function refusal(body: unknown, key?: string): Promise<string> {
  const stream = await openStream(service, body, key === undefined ? {} : { key });
  expect(stream.response.headers.get('Content-Type')).toMatch(/^text\/event-stream/);
  const lines = await stream.readToEnd();
  expect(lines, JSON.stringify(body)).toHaveLength(1);
  expect(runtimeInternals(service.runtime).hub.connectionCount).toBe(0);
  return streamErrorSchema.parse(JSON.parse(lines[0] ?? '')).errmsg;
}

describe('POST /tokens/stream refusals of the spec', () => {
  it.each([
    ['not hex', ['xyz0']],
    ['odd length', ['abc']],
    ['empty string', ['']],
    ['too long', [fakeHex(65)]],
    ['0x prefix', [`0x${fakeHex(28)}`]],
    ['a bad ID after good ones', ['GOOD', 'zz']],
  ])('answers "Invalid pool ID format" to a pool ID that is %s', async (_case, ids) => {
    const body = ids.map((id) => (id === 'GOOD' ? ensureDefined(aggregates[0]).poolId : id));
    expect(await refusal(body)).toBe(STREAM_ERRORS.invalidPoolId);
  });
});

describe('POST /tokens/stream documented refusals', () => {
  it('refuses a hex ID that is not an Aggregate pool, naming it', async () => {
    const { dexPool } = await busiestPools(service.runtime);
    const errmsg = await refusal([ensureDefined(aggregates[0]).poolId, dexPool.poolId]);
    expect(errmsg.startsWith(STREAM_ERRORS.notAggregate)).toBe(true);
    expect(errmsg).toContain(dexPool.poolId);
    expect((await refusal([UNKNOWN_POOL])).startsWith(STREAM_ERRORS.notAggregate)).toBe(true);
  });

  it('refuses more pools than the plan allows per connection, and accepts exactly that many', async () => {
    const limit = ensureDefined(DEFAULT_PLANS.free).poolsPerStream;
    const key = await service.newKey('free');
    const tooMany = aggregates.slice(0, limit + 1).map((p) => p.poolId);
    expect((await refusal(tooMany, key)).startsWith(STREAM_ERRORS.tooManyPools)).toBe(true);
    const stream = await openStream(service, tooMany.slice(0, limit), { key });
    expect(await stream.next()).toEqual({ s: 'ok' });
    await stream.cancel();
  });

  it('counts a pool listed twice once', async () => {
    const limit = ensureDefined(DEFAULT_PLANS.free).poolsPerStream;
    const ids = aggregates.slice(0, limit).map((p) => p.poolId);
    const stream = await openStream(service, [...ids, ...ids.map((id) => id.toUpperCase())], {
      key: await service.newKey('free'),
    });
    expect(await stream.next()).toEqual({ s: 'ok' });
    await stream.cancel();
  });

  it.each([
    ['an object', '{"pools":[]}'],
    ['a string', '"abc"'],
    ['numbers', '[1,2]'],
    ['null in the array', '[null]'],
    ['nested arrays', '[["ab"]]'],
    ['not JSON', 'ab,cd'],
    ['an empty body', ''],
    ['null', 'null'],
  ])('refuses a body that is not a JSON array of strings (%s)', async (_case, body) => {
    expect(await refusal(body)).toBe(STREAM_ERRORS.notArray);
  });

  it('refuses an empty array', async () => {
    expect(await refusal([])).toBe(STREAM_ERRORS.empty);
  });

  it('refuses a body larger than the bound, declared or streamed', async () => {
    const big = JSON.stringify(Array.from({ length: 6000 }, () => fakeHex(28)));
    expect(big.length).toBeGreaterThan(service.runtime.config.streamMaxBodyBytes);
    expect((await refusal(big)).startsWith(STREAM_ERRORS.bodyTooLarge)).toBe(true);
    const chunks = new TextEncoder().encode(big);
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < chunks.length; i += 16_384) controller.enqueue(chunks.subarray(i, i + 16_384));
        controller.close();
      },
    });
    const response = await service.request(STREAM_PATH, { method: 'POST', body, duplex: 'half' } as RequestInit);
    const lines = await readStream(response).readToEnd();
    expect(streamErrorSchema.parse(JSON.parse(lines[0] ?? '')).errmsg.startsWith(STREAM_ERRORS.bodyTooLarge)).toBe(
      true,
    );
    expect(runtimeInternals(service.runtime).hub.connectionCount).toBe(0);
  });

  it('does not let a refused connection take the key slot', async () => {
    await refusal(['zz']);
    const stream = await openStream(service, [ensureDefined(aggregates[0]).poolId]);
    expect(await stream.next()).toEqual({ s: 'ok' });
    expect(runtimeInternals(service.runtime).hub.connectionCount).toBe(1);
    await stream.cancel();
  });
});
