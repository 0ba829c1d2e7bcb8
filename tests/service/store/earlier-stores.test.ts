import Database from 'better-sqlite3';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BarBatch, VOLUME_SCALE } from '../../../src/service/store/bar-batch';
import { DATABASE_FILE } from '../../../src/service/store/open';
import type { Store, TradeRecord } from '../../../src/service/store/ports';
import { PostgresStore } from '../../../src/service/store/postgres/store';
import { SCHEMA_VERSION } from '../../../src/service/store/schema';
import { openSqliteStore } from '../../../src/service/store/sqlite/store';
import { startPostgres, type TestPostgres } from '../../support/engines';

/**
 * Stores written by the code before the schema was one for both engines (tests/fixtures/store/, made
 * by commit d1db7fc) open with today's code: migrated to the one numbering, the same answers through
 * the ports as that code gave, the schema of a new store, and commits on top.
 */
const FIXTURES = join(import.meta.dirname, '../../fixtures/store');

const fixture = (name: string) => readFileSync(join(FIXTURES, name), 'utf8');

interface Recorded {
  readonly load: {
    readonly tokens: { id: number; decimals: number }[];
    readonly pairs: { id: number; base: number; quote: number }[];
    readonly pools: { id: number; pairId: number }[];
  };
  readonly trades: (TradeRecord & { seq: number })[];
  /** series, resolution, t, o, h, l, c, v, tvl */
  readonly bars: [number, number, number, number, number, number, number, number, number][];
  readonly chainLp: [number, string][];
}

/**
 * A fixture's recorded answers; the LP supplies (a map) by pool row id. Those stores kept prices, TVLs
 * and volumes in whole units (volumes in millionths); today's store keeps raw units, so the recorded
 * trades and bars are converted as migration 5 says: a price times 10^(base decimals - quote decimals),
 * a TVL times 10^(base decimals), a volume times 10^(base decimals - 6), rounded.
 */
function answers(name: string): unknown {
  const recorded = JSON.parse(fixture(name)) as Recorded;
  const known = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error(`${name}: a pool, pair or token that the fixture does not hold`);
    return value;
  };
  const decimals = new Map(recorded.load.tokens.map((t) => [t.id, t.decimals]));
  const pairs = new Map(recorded.load.pairs.map((p) => [p.id, p]));
  const factors = new Map(
    recorded.load.pools.map((pool) => {
      const pair = known(pairs.get(pool.pairId));
      const [b, q] = [known(decimals.get(pair.base)), known(decimals.get(pair.quote))];
      return [pool.id, { p: 10 ** (b - q), t: 10 ** b, v: 10 ** (b - 6) }];
    }),
  );
  const trades = recorded.trades.map((r) => {
    const f = known(factors.get(r.pool));
    return {
      ...r,
      prevPrice: r.prevPrice * f.p,
      price: r.price * f.p,
      aggPrevPrice: r.aggPrevPrice * f.p,
      aggPrice: r.aggPrice * f.p,
      prevTvl: r.prevTvl * f.t,
      tvl: r.tvl * f.t,
      aggPrevTvl: r.aggPrevTvl * f.t,
      aggTvl: r.aggTvl * f.t,
      volume: Math.round(r.volume * f.v),
    };
  });
  const bars = recorded.bars.map((row) => {
    const [series, res, t, o, h, l, c, v, tvl] = row;
    const f = known(factors.get(series));
    return [series, res, t, o * f.p, h * f.p, l * f.p, c * f.p, Math.round(v * f.v), tvl * f.t];
  });
  return { ...recorded, trades, bars, chainLp: recorded.chainLp.sort((a, b) => a[0] - b[0]) };
}

/** What the ports read from a store, as JSON (the fixtures' `.json` were read the same way). */
async function readBack(s: Store): Promise<unknown> {
  const rows = await s.market.load();
  const logos: Record<string, string | null> = {};
  for (const t of rows.tokens) logos[t.id] = (await s.market.logo(t.id))?.toString('base64') ?? null;
  const sim = await s.sim.load();
  const meta: Record<string, string | null> = {};
  for (const key of ['seed', 'source', 'chain:tip', 'nope']) meta[key] = (await s.market.meta(key)) ?? null;
  const answers = {
    load: rows,
    nextIds: await s.market.nextIds(),
    meta,
    logos,
    trades: await s.trades.list(),
    count: await s.trades.count(),
    bars: await s.bars.all(),
    stale: await s.bars.stale(),
    keys: await s.keys.list(),
    activeKeys: await s.keys.count(),
    sim: sim ? { ...sim, fair: sim.fair.toString('base64') } : null,
    journal: await s.market.journal(),
    chainLp: [...(await s.market.chainLp())].sort(([a], [b]) => a - b).map(([id, lp]) => [id, lp.toString()]),
  };
  return JSON.parse(JSON.stringify(answers)) as unknown;
}

/**
 * A trade after every fixture's, and its bars: a commit on top of an earlier store. `rebuilt`: the
 * store's bars were all made by commits (not written as SQL), so a rebuild gives them again.
 */
async function commitOnTop(s: Store, rebuilt: boolean): Promise<void> {
  const pool = (await s.market.load()).pools.find((p) => p.group !== 'Aggregate');
  if (!pool) throw new Error('the fixture has no DEX pool');
  const agg = (await s.market.load()).pools.find((p) => p.group === 'Aggregate' && p.pairId === pool.pairId);
  const t = 1_800_000_000;
  const trade: TradeRecord = {
    eventId: 'on-top',
    pool: pool.id,
    agg: agg?.id ?? pool.id,
    blockTime: t,
    prevPrice: 2,
    price: 2.5,
    prevTvl: 10,
    tvl: 12,
    volume: 3 * VOLUME_SCALE,
    aggPrevPrice: 2,
    aggPrice: 2.5,
    aggPrevTvl: 10,
    aggTvl: 12,
  };
  const bars = new BarBatch();
  bars.add(trade);
  const before = await s.trades.count();
  await s.commit({ trades: [trade], bars, meta: { onTop: '1' } });
  expect(await s.trades.count()).toBe(before + 1);
  expect(await s.bars.range(pool.id, '1min', t, t + 60)).toEqual([[t, 2, 2.5, 2, 2.5, 3 * VOLUME_SCALE, 12]]);
  if (!rebuilt) return;
  const incremental = await s.bars.all();
  await s.bars.rebuild();
  expect(await s.bars.all()).toEqual(incremental);
}

describe('SQLite stores of every earlier schema version', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  /** A data directory holding the fixture's store. */
  const restore = (name: string) => {
    const dir = mkdtempSync(join(tmpdir(), 'earlier-store-'));
    dirs.push(dir);
    const db = new Database(join(dir, DATABASE_FILE));
    db.exec(fixture(name));
    db.close();
    return dir;
  };

  /** The schema as SQLite keeps it: every table and index with its SQL. */
  const schemaOf = (dir: string) => {
    const db = new Database(join(dir, DATABASE_FILE), { readonly: true });
    try {
      return {
        version: db.pragma('user_version', { simple: true }) as number,
        objects: db
          .prepare("SELECT type, name, tbl_name, sql FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name")
          .all(),
      };
    } finally {
      db.close();
    }
  };

  let fresh: ReturnType<typeof schemaOf>;
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'earlier-store-'));
    dirs.push(dir);
    await openSqliteStore(dir).close();
    fresh = schemaOf(dir);
  });

  it('makes a new store at the latest version', () => {
    expect(fresh.version).toBe(SCHEMA_VERSION);
  });

  for (const version of [1, 2, 3, 4]) {
    it(`opens a store written at version ${version}: migrated to a new store's schema, the same answers, commits on top`, async () => {
      const dir = restore(`sqlite-v${version}.sql`);
      const store = openSqliteStore(dir);
      try {
        expect(await readBack(store)).toEqual(answers(`sqlite-v${version}.json`));
        expect(schemaOf(dir)).toEqual(fresh);
        await commitOnTop(store, version === 4);
      } finally {
        await store.close();
      }
    });
  }
});

describe('PostgreSQL databases of every earlier schema version (its own numbering then)', () => {
  let server: TestPostgres;
  let counter = 0;
  beforeAll(async () => {
    server = await startPostgres();
  }, 120_000);
  afterAll(async () => server?.destroy());

  const query = async <T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return await work(client);
    } finally {
      await client.end();
    }
  };

  /** The schema as PostgreSQL's catalog describes it (but `schema_version`, the migrator's own table). */
  const schemaOf = (url: string) =>
    query(url, async (client) => ({
      version: (await client.query('SELECT version, one_numbering FROM schema_version')).rows,
      columns: (
        await client.query(
          `SELECT table_name, column_name, ordinal_position, data_type, is_nullable, column_default
           FROM information_schema.columns WHERE table_schema = 'public' AND table_name <> 'schema_version'
           ORDER BY table_name, ordinal_position`,
        )
      ).rows,
      constraints: (
        await client.query(
          `SELECT conrelid::regclass::text AS table_name, conname, pg_get_constraintdef(oid) AS definition
           FROM pg_constraint WHERE connamespace = 'public'::regnamespace ORDER BY conname`,
        )
      ).rows,
      indexes: (
        await client.query(
          "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' AND tablename <> 'schema_version' ORDER BY indexname",
        )
      ).rows,
    }));

  let fresh: Awaited<ReturnType<typeof schemaOf>>;
  beforeAll(async () => {
    const url = await server.createDatabase('fresh');
    await (await PostgresStore.open(url)).close();
    fresh = await schemaOf(url);
  });

  it('makes a new database at the latest version of the one numbering', () => {
    expect(fresh.version).toEqual([{ version: SCHEMA_VERSION, one_numbering: true }]);
  });

  for (const version of [1, 2, 3]) {
    it(`opens a database written at its version ${version}: renumbered, migrated to a new database's schema, the same answers, commits on top`, async () => {
      const url = await server.createDatabase(`earlier_${version}_${counter++}`);
      await query(url, (client) => client.query(fixture(`postgres-v${version}.sql`)));
      const store = await PostgresStore.open(url);
      try {
        expect(await readBack(store)).toEqual(answers(`postgres-v${version}.json`));
        expect(await schemaOf(url)).toEqual(fresh);
        await commitOnTop(store, version === 3);
      } finally {
        await store.close();
      }
      // Opened again: nothing more to migrate, nothing renumbered twice.
      await (await PostgresStore.open(url)).close();
      expect(await schemaOf(url)).toEqual(fresh);
    });
  }
});
