import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_SUBJECTS, queryRegistry } from '../../../src/service/identity/registry-server';
import { cip26ByTicker } from '../../support/cip26-sample';
import { FakeTokenRegistry } from '../../support/fake-token-registry';

/** Real registry mappings (../shared/data/cip26-sample) served by a local metadata server. */
describe('a token metadata server, asked in batches', () => {
  let server: FakeTokenRegistry;
  const MIN = '29d222ce763455e3d7a09a665ce554f00ac89d2e99a1a83d267170c64d494e';
  const SNEK = '279c909f348e533da5808898f87f9a14bb2c3dfbbacccd631d927a3f534e454b';
  const UNKNOWN = `${'ab'.repeat(28)}0014df10${Buffer.from('NOPE').toString('hex')}`;

  beforeAll(async () => {
    server = await FakeTokenRegistry.start([cip26ByTicker('MIN'), cip26ByTicker('SNEK'), cip26ByTicker('DJED')]);
  });
  afterAll(async () => server.close());

  it('gives each known subject its real metadata, written by hand from the registry files, and leaves out the rest', async () => {
    server.behaviour = {};
    const { entries, skipped } = await queryRegistry(server.url, [MIN, SNEK, UNKNOWN]);
    expect(skipped).toEqual([]);
    expect([...entries.keys()].sort()).toEqual([SNEK, MIN].sort());
    const min = entries.get(MIN);
    expect({ ...min, logo: min?.logo?.slice(0, 12) }).toEqual({
      unit: MIN,
      name: 'Minswap',
      ticker: 'MIN',
      decimals: 6,
      description: 'Minswap is a multi-pool decentralize exchange protocol on Cardano',
      url: 'https://minswap.org/',
      logo: 'iVBORw0KGgoA',
    });
    expect(entries.get(SNEK)).toMatchObject({ name: 'Snek', ticker: 'SNEK', decimals: 0 });
    expect(server.queries.at(-1)).toEqual([MIN, SNEK, UNKNOWN]);
  });

  it('refuses more subjects than a batch holds before asking', async () => {
    const units = Array.from(
      { length: MAX_SUBJECTS + 1 },
      (_, i) => `${'cd'.repeat(28)}${i.toString(16).padStart(2, '0')}`,
    );
    await expect(queryRegistry(server.url, units)).rejects.toThrow(RangeError);
  });

  it('skips a malformed mapping alone, and one it did not ask for', async () => {
    server.behaviour = {
      body: JSON.stringify({
        subjects: [
          { subject: MIN, name: { value: 42 } },
          { subject: SNEK, name: { value: 'Snek' } },
          { subject: UNKNOWN, name: { value: 'X' } },
        ],
      }),
    };
    const { entries, skipped } = await queryRegistry(server.url, [MIN, UNKNOWN]);
    expect([...entries.keys()]).toEqual([UNKNOWN]);
    expect(skipped).toEqual(['subjects[0]: name.value must be a string', `subjects[1]: ${SNEK} was not asked for`]);
  });

  it.each([
    ['an error status', { status: 503 }, /answered 503/],
    ['a body that is not JSON', { body: '<html>' }, /not JSON/],
    ['an answer without a subjects list', { body: '{"subject":"x"}' }, /no subjects list/],
    [
      'a redirect, never followed',
      { redirect: 'http://169.254.169.254/latest/meta-data' },
      /redirect \(302\), which is not followed/,
    ],
  ])('says what is wrong with %s', async (_what, behaviour, message) => {
    server.behaviour = behaviour;
    await expect(queryRegistry(server.url, [MIN])).rejects.toThrow(message);
  });

  it('stops reading an answer past its cap, whether declared, streamed or compressed', async () => {
    const huge = JSON.stringify({ subjects: [], padding: 'x'.repeat(3_000_000) });
    server.behaviour = { body: huge };
    await expect(queryRegistry(server.url, [MIN], { maxBytes: 1_000_000 })).rejects.toThrow(/more than the 1000000/);
    server.behaviour = { body: gzipSync(huge), headers: { 'Content-Encoding': 'gzip' } };
    await expect(queryRegistry(server.url, [MIN], { maxBytes: 1_000_000 })).rejects.toThrow(
      /more than the 1000000 bytes read/,
    );
  });

  it('gives up on a server that does not answer in time', async () => {
    server.behaviour = { delayMs: 2_000 };
    await expect(queryRegistry(server.url, [MIN], { timeoutMs: 200 })).rejects.toThrow(
      /did not answer \(no answer in time\)/,
    );
  });

  it('says so when nothing listens', async () => {
    await expect(queryRegistry('http://127.0.0.1:1', [MIN])).rejects.toThrow(/did not answer/);
  });
});
