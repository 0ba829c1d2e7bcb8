import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { clusterUrls, parseServiceConfig } from '../../src/service/config';

/** The cluster's settings: --role / ROLE and the engines it needs, refused with a line naming the setting. */
const PG = 'postgres://app:secret@db:5432/prices';
const REDIS = 'redis://cache:6379';

describe('--role / ROLE', () => {
  it('is all by default, one process on SQLite', () => {
    const config = parseServiceConfig({}, {});
    expect(config.role).toBe('all');
    expect(config.databaseUrl).toBeUndefined();
    expect(config.redisUrl).toBeUndefined();
  });

  it('takes ingest or api from the flag or the environment, the flag first', () => {
    const env = { DATABASE_URL: PG, REDIS_URL: REDIS };
    expect(parseServiceConfig({ role: 'ingest' }, env).role).toBe('ingest');
    expect(parseServiceConfig({}, { ...env, ROLE: 'api' }).role).toBe('api');
    expect(parseServiceConfig({ role: 'api' }, { ...env, ROLE: 'ingest' }).role).toBe('api');
    expect(parseServiceConfig({ role: 'api' }, env)).toMatchObject({
      databaseUrl: PG,
      redisUrl: REDIS,
      streamLeaseSeconds: 30,
    });
  });

  it('refuses an unknown role, naming the flag, the variable and the choices', () => {
    expect(() => parseServiceConfig({ role: 'writer' }, {})).toThrow(
      '--role / ROLE: role must be all, ingest or api (got "writer")',
    );
    expect(() => parseServiceConfig({}, { ROLE: 'API' })).toThrow(
      '--role / ROLE: role must be all, ingest or api (got "API")',
    );
  });

  it('refuses a node of a cluster without both engines', () => {
    const needs = (role: string) =>
      `--role ${role} is a node of a cluster: it needs DATABASE_URL (postgres://…) and REDIS_URL (redis://…), shared by every node`;
    expect(() => parseServiceConfig({ role: 'ingest' }, {})).toThrow(needs('ingest'));
    expect(() => parseServiceConfig({ role: 'api' }, { DATABASE_URL: PG })).toThrow(needs('api'));
    expect(() => parseServiceConfig({ role: 'api' }, { REDIS_URL: REDIS })).toThrow(needs('api'));
    expect(() => parseServiceConfig({}, { ROLE: 'ingest', DATABASE_URL: PG, REDIS_URL: '' })).toThrow(needs('ingest'));
  });

  it('refuses malformed engine addresses and lease times, naming the variable', () => {
    expect(() => parseServiceConfig({}, { DATABASE_URL: 'mysql://db/prices' })).toThrow(
      'DATABASE_URL must be a postgres:// URL (got <redacted>)',
    );
    expect(() => parseServiceConfig({}, { DATABASE_URL: 'not a url' })).toThrow(
      'DATABASE_URL must be a URL such as postgres://user:password@host:5432/database',
    );
    expect(() => parseServiceConfig({}, { REDIS_URL: 'http://cache:6379' })).toThrow(
      'REDIS_URL must be a redis:// URL such as redis://127.0.0.1:6379',
    );
    expect(() =>
      parseServiceConfig({ role: 'api' }, { DATABASE_URL: PG, REDIS_URL: REDIS, STREAM_LEASE_SECONDS: '0' }),
    ).toThrow('STREAM_LEASE_SECONDS: STREAM_LEASE_SECONDS must be positive (got "0")');
    expect(clusterUrls({ DATABASE_URL: PG, REDIS_URL: 'rediss://cache:6380' })).toEqual({
      databaseUrl: PG,
      redisUrl: 'rediss://cache:6380',
    });
  });
});

describe('STREAM_HANDOVER_MS', () => {
  it('is 2000 by default, 0 (refuse at once) up to 30000', () => {
    expect(parseServiceConfig({}, {}).streamHandoverMs).toBe(2_000);
    expect(parseServiceConfig({}, { STREAM_HANDOVER_MS: '0' }).streamHandoverMs).toBe(0);
    expect(parseServiceConfig({}, { STREAM_HANDOVER_MS: '30000' }).streamHandoverMs).toBe(30_000);
  });

  it('refuses anything else, naming the variable', () => {
    expect(() => parseServiceConfig({}, { STREAM_HANDOVER_MS: '-1' })).toThrow(
      'STREAM_HANDOVER_MS: STREAM_HANDOVER_MS must be at least 0 (got "-1")',
    );
    expect(() => parseServiceConfig({}, { STREAM_HANDOVER_MS: '30001' })).toThrow(
      'STREAM_HANDOVER_MS: STREAM_HANDOVER_MS must be at most 30000 (got "30001")',
    );
    expect(() => parseServiceConfig({}, { STREAM_HANDOVER_MS: '1.5' })).toThrow(
      'STREAM_HANDOVER_MS: STREAM_HANDOVER_MS must be a whole number (got "1.5")',
    );
    expect(() => parseServiceConfig({}, { STREAM_HANDOVER_MS: 'soon' })).toThrow(
      'STREAM_HANDOVER_MS: STREAM_HANDOVER_MS must be a number (got "soon")',
    );
  });
});

describe('--source / SOURCE, --ogmios / OGMIOS_URL, --chain-start', () => {
  const OGMIOS = 'ws://127.0.0.1:1337';
  const POINT = `115585913.${'6a'.repeat(32)}`;

  it('is simulated by default; chain takes the node from the flag or the environment', () => {
    expect(parseServiceConfig({}, {}).source).toBe('simulated');
    expect(parseServiceConfig({ source: 'none' }, {}).source).toBe('none');
    expect(parseServiceConfig({}, { SOURCE: 'chain', OGMIOS_URL: OGMIOS })).toMatchObject({ source: 'chain' });
    expect(parseServiceConfig({ source: 'chain', ogmios: 'wss://host/path?key=abc' }, {}).source).toBe('chain');
    expect(parseServiceConfig({ source: 'chain', ogmios: OGMIOS, 'chain-start': POINT }, {}).source).toBe('chain');
  });

  it('refuses an unknown source, naming the choices', () => {
    expect(() => parseServiceConfig({ source: 'mainnet' }, {})).toThrow(
      /source must be simulated, chain or none \(got "mainnet"\)/,
    );
    expect(() => parseServiceConfig({}, { SOURCE: 'Chain' })).toThrow(
      /source must be simulated, chain or none \(got "Chain"\)/,
    );
  });

  it('refuses the chain without a node, and a node address that is no WebSocket or carries credentials', () => {
    expect(() => parseServiceConfig({ source: 'chain' }, {})).toThrow(
      '--source chain needs --ogmios ws://host:1337 (or OGMIOS_URL)',
    );
    for (const bad of [
      'http://127.0.0.1:1337',
      'ws://user:pw@host:1337',
      'ws://:pw@host:1337',
      'ws://host:1337/#frag',
      'not a url',
    ]) {
      expect(() => parseServiceConfig({ source: 'chain', ogmios: bad }, {})).toThrow(
        /ogmios must be a WebSocket address/,
      );
    }
  });

  it('refuses a malformed start point', () => {
    for (const bad of [
      '115585913',
      `115585913.${'6a'.repeat(31)}`,
      `x.${'6a'.repeat(32)}`,
      `115585913:${'6a'.repeat(32)}`,
    ]) {
      expect(() => parseServiceConfig({ source: 'chain', ogmios: OGMIOS, 'chain-start': bad }, {})).toThrow(
        /chain-start must be tip, <N>d \(e\.g\. 30d\) or <slot>\.<block hash> \(64 hex\)/,
      );
    }
  });
});

describe('--vyfi-pools / VYFI_POOLS', () => {
  const dir = mkdtempSync(join(tmpdir(), 'config-vyfi-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const VALIDATOR = '232c10966ce4d8e67c2eae17bb57c2cf4854a57509a752fbb3c02bd1';
  const SNEK = '279c909f348e533da5808898f87f9a14bb2c3dfbbacccd631d927a3f534e454b';

  it('is unset by default (the bundled list), and read from the flag or the environment at start', () => {
    expect(parseServiceConfig({}, {}).vyFiPools).toBeUndefined();
    const path = join(dir, 'pools.json');
    writeFileSync(path, JSON.stringify({ pools: [{ validator: VALIDATOR, assetA: '', assetB: SNEK }] }));
    const expected = { pools: [{ validator: VALIDATOR, assetA: '', assetB: SNEK, feeBps: 30 }], origin: path };
    expect(parseServiceConfig({ 'vyfi-pools': path }, {}).vyFiPools).toEqual(expected);
    expect(parseServiceConfig({}, { VYFI_POOLS: path }).vyFiPools).toEqual(expected);
  });

  it('refuses a file that cannot be read or is not a list of pools, naming the setting, the file and the entry', () => {
    const missing = join(dir, 'missing.json');
    expect(() => parseServiceConfig({ 'vyfi-pools': missing }, {})).toThrow(
      `--vyfi-pools / VYFI_POOLS: ${missing}: cannot be read (ENOENT`,
    );
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ pools: [{ validator: VALIDATOR.slice(2), assetA: '', assetB: SNEK }] }));
    expect(() => parseServiceConfig({}, { VYFI_POOLS: bad })).toThrow(
      `--vyfi-pools / VYFI_POOLS: ${bad}: pools[0].validator: must be a script hash (56 hex digits)`,
    );
  });
});
