import { afterEach, describe, expect, it } from 'vitest';
import { BarBatch, VOLUME_SCALE } from '../../../src/service/store/bar-batch';
import type { CommitBatch, PoolRow, Store, TradeRecord } from '../../../src/service/store/ports';

/**
 * The store's contract, written against its interfaces (ports.ts) only, so every implementation runs
 * the same tests (`sqlite.contract.test.ts`, `postgres.contract.test.ts`). `open` gives a fresh,
 * empty store; `reopen` the same store again after `close` (durability).
 */
export interface StoreFactory {
  open(): Promise<Store>;
  reopen(): Promise<Store>;
  /** Removes what `open` created. */
  dispose(): Promise<void>;
}

const T = 1_700_000_040; // a whole minute

/** A market of one pair (ADA / TKN) with two DEX pools and its Aggregate, as rows. */
function structure(): CommitBatch {
  const pools: PoolRow[] = [
    {
      id: 1,
      poolId: 'agg01',
      group: 'Aggregate',
      pairId: 1,
      n: 1,
      feeBps: 0,
      baseReserve: 3000,
      quoteReserve: 3000,
      simulated: false,
    },
    {
      id: 2,
      poolId: 'pool01',
      group: 'Minswap',
      pairId: 1,
      n: 1,
      feeBps: 30,
      baseReserve: 1000,
      quoteReserve: 1000,
      simulated: false,
    },
    {
      id: 3,
      poolId: 'pool02',
      group: 'MinswapV2',
      pairId: 1,
      n: 1,
      feeBps: 30,
      baseReserve: 2000,
      quoteReserve: 2000,
      simulated: true,
    },
  ];
  return {
    tokens: [
      { id: 1, unit: '', ticker: 'ADA', name: 'Cardano', decimals: 6, logoKind: 1 },
      { id: 2, unit: 'ab'.repeat(28) + '544b4e', ticker: 'TKN', name: 'Token', decimals: 0, logoKind: 0 },
    ],
    pairs: [{ id: 1, base: 1, quote: 2 }],
    pools,
    meta: { seed: '7' },
  };
}

/** A trade on `pool` (series 2 or 3) of the Aggregate (series 1): prices rise by `step` from `from`. */
function trade(eventId: string, pool: number, at: number, from: number, to: number, volume: number): TradeRecord {
  return {
    eventId,
    pool,
    agg: 1,
    blockTime: at,
    prevPrice: from,
    price: to,
    prevTvl: 100,
    tvl: 110,
    volume: volume * VOLUME_SCALE,
    aggPrevPrice: from,
    aggPrice: to,
    aggPrevTvl: 300,
    aggTvl: 310,
  };
}

function withBars(trades: readonly TradeRecord[]): CommitBatch {
  const bars = new BarBatch();
  for (const t of trades) bars.add(t);
  return { trades, bars };
}

export function describeStoreContract(name: string, factory: () => StoreFactory): void {
  describe(`store contract: ${name}`, () => {
    let current: StoreFactory | undefined;
    let store: Store | undefined;
    const open = async () => {
      current = factory();
      store = await current.open();
      return store;
    };
    afterEach(async () => {
      await store?.close();
      await current?.dispose();
      store = undefined;
      current = undefined;
    });

    it('starts empty: no rows, ids from 1, no meta, no trades, current bars', async () => {
      const s = await open();
      expect(await s.market.load()).toEqual({ tokens: [], pairs: [], pools: [] });
      expect(await s.market.nextIds()).toEqual({ token: 1, pair: 1, pool: 1 });
      expect(await s.market.meta('seed')).toBeUndefined();
      expect(await s.trades.count()).toBe(0);
      expect(await s.bars.stale()).toBe(false);
      expect(await s.sim.load()).toBeUndefined();
    });

    it('stores the structure of a commit, hands out the next ids, and keeps it across a reopen', async () => {
      const s = await open();
      await s.commit(structure());
      const rows = await s.market.load();
      expect(rows.tokens.map((t) => t.ticker)).toEqual(['ADA', 'TKN']);
      expect(rows.pools).toEqual(structure().pools);
      expect(await s.market.nextIds()).toEqual({ token: 3, pair: 2, pool: 4 });
      expect(await s.market.meta('seed')).toBe('7');
      await s.commit({
        tokenUpdates: [{ id: 2, ticker: 'TKN2', name: 'Token 2', decimals: 3 }],
        logos: [{ id: 2, kind: 2, png: Buffer.from([1, 2, 3]) }],
        reserves: [{ id: 2, base: 5, quote: 6 }],
      });
      await s.close();
      store = await (current as StoreFactory).reopen();
      const again = await store.market.load();
      expect(again.tokens[1]).toEqual({
        id: 2,
        unit: 'ab'.repeat(28) + '544b4e',
        ticker: 'TKN2',
        name: 'Token 2',
        decimals: 3,
        logoKind: 2,
      });
      expect(await store.market.logo(2)).toEqual(Buffer.from([1, 2, 3]));
      expect(await store.market.logo(1)).toBeNull();
      expect(again.pools[1]).toMatchObject({ id: 2, baseReserve: 5, quoteReserve: 6 });
    });

    it('stores trades once, answers the statistics queries, and folds their bars by the bar rule', async () => {
      const s = await open();
      await s.commit(structure());
      const first = [trade('e1', 2, T, 1, 1.1, 2), trade('e2', 3, T + 10, 1.1, 1.2, 3)];
      await s.commit({ ...withBars(first), reserves: [{ id: 2, base: 1100, quote: 1000 }] });
      const second = [trade('e3', 2, T + 70, 1.2, 0.9, 5)];
      await s.commit(withBars(second));

      expect(await s.trades.count()).toBe(3);
      expect(await s.trades.hasEvent('e2')).toBe(true);
      expect(await s.trades.hasEvent('nope')).toBe(false);
      expect(await s.trades.lastTradeTime(2, false)).toBe(T + 70);
      expect(await s.trades.lastTradeTime(3, false)).toBe(T + 10);
      expect(await s.trades.lastTradeTime(1, true)).toBe(T + 70);
      expect(await s.trades.lastTradeTime(1, false)).toBeUndefined();
      expect(await s.trades.stateAt(2, false, T + 5)).toEqual({ price: 1.1, tvl: 110 });
      // Times from a clock are fractional: they compare as the whole seconds before them.
      expect(await s.trades.stateAt(2, false, T + 5.5)).toEqual({ price: 1.1, tvl: 110 });
      expect(await s.trades.volumeSince(1, true, T - 0.5)).toBe(10 * VOLUME_SCALE);
      // Before the first trade: the state the first trade started from.
      expect(await s.trades.stateAt(1, true, T - 100)).toEqual({ price: 1, tvl: 300 });
      expect(await s.trades.volumeSince(1, true, T)).toBe(8 * VOLUME_SCALE);
      expect(await s.trades.volumeSince(2, false, T - 1)).toBe(7 * VOLUME_SCALE);
      const listed = await s.trades.list({ agg: 1 });
      expect(listed.map((t) => t.eventId)).toEqual(['e1', 'e2', 'e3']);
      expect(listed.map((t) => t.seq)).toEqual([...listed.map((t) => t.seq)].sort((a, b) => a - b));
      expect((await s.trades.list({ afterSeq: listed[0]?.seq ?? 0 })).map((t) => t.eventId)).toEqual(['e2', 'e3']);
      expect((await s.trades.list({ pool: 3 }))[0]).toMatchObject(first[1] as TradeRecord);
      expect(await s.trades.busiestAggregates(5)).toEqual([{ series: 1, trades: 3 }]);
      // Newest first, paged backwards by (block time, seq).
      const page = await s.trades.recent(1, true, 2);
      expect(page.map((t) => t.eventId)).toEqual(['e3', 'e2']);
      const last = page[1] as TradeRecord & { seq: number };
      expect(
        (await s.trades.recent(1, true, 2, { time: last.blockTime, seq: last.seq })).map((t) => t.eventId),
      ).toEqual(['e1']);
      expect((await s.trades.recent(2, false, 5)).map((t) => t.eventId)).toEqual(['e3', 'e1']);

      // The Aggregate's 1min bars: [T, T+60) holds e1 and e2, [T+60, T+120) holds e3.
      const bars = await s.bars.range(1, '1min', 0, 2 ** 31);
      expect(bars).toEqual([
        [T, 1, 1.2, 1, 1.2, 5 * VOLUME_SCALE, 310],
        [T + 60, 1.2, 1.2, 0.9, 0.9, 5 * VOLUME_SCALE, 310],
      ]);
      expect(await s.bars.extent(1, '1min')).toEqual({ first: T, last: T + 60 });
      expect(await s.bars.extent(1, '1d')).toEqual({
        first: Math.floor(T / 86_400) * 86_400,
        last: Math.floor(T / 86_400) * 86_400,
      });
      expect(await s.bars.countbackStart(1, '1min', T + 1000, 1)).toBe(T + 60);
      expect(await s.bars.countbackStart(1, '1min', T + 1000, 10)).toBe(T);
      expect(await s.bars.extent(99, '1min')).toBeUndefined();

      // Bars folded commit by commit equal bars rebuilt from the trades, to the bit.
      const incremental = await s.bars.all();
      expect(await s.bars.rebuild()).toBe(3);
      expect(await s.bars.all()).toEqual(incremental);
    });

    it('answers windowStats for many series at once as stateAt and volumeSince answer them one by one', async () => {
      const s = await open();
      await s.commit(structure());
      // Two trades in the same second on pool 2 (ingest order decides), one before and one after on pool 3.
      await s.commit(
        withBars([trade('w1', 2, T, 1, 1.1, 2), trade('w2', 2, T, 1.1, 1.15, 1), trade('w3', 3, T + 30, 1.15, 1.3, 4)]),
      );
      await s.commit(withBars([trade('w4', 2, T + 90, 1.3, 0.95, 6)]));
      for (const since of [T - 100, T - 0.5, T, T + 0.5, T + 30, T + 60, T + 90, T + 1000]) {
        for (const [series, aggregate] of [
          [[2, 3, 99], false],
          [[1, 99], true],
        ] as const) {
          const window = await s.trades.windowStats(series, aggregate, since);
          expect([...window.keys()].sort(), `since ${since}`).toEqual([...series].sort());
          for (const id of series) {
            const state = await s.trades.stateAt(id, aggregate, since);
            expect(window.get(id), `series ${id} since ${since}`).toEqual({
              price: state?.price,
              volume: await s.trades.volumeSince(id, aggregate, since),
            });
          }
        }
      }
      expect(await s.trades.windowStats([2], false, T)).toEqual(
        new Map([[2, { price: 1.15, volume: 6 * VOLUME_SCALE }]]),
      );
      expect(await s.trades.windowStats([99], true, T)).toEqual(new Map([[99, { price: undefined, volume: 0 }]]));
      expect((await s.trades.windowStats([], true, T)).size).toBe(0);
    });

    it('applies a batch whole or not at all: a failing batch leaves no trade, bar, reserve or meta of it', async () => {
      const s = await open();
      await s.commit(structure());
      await s.commit(withBars([trade('e1', 2, T, 1, 1.1, 2)]));
      const before = {
        trades: await s.trades.list(),
        bars: await s.bars.all(),
        rows: await s.market.load(),
        meta: await s.market.meta('seed'),
      };
      // e1 again: the event id is unique, so the batch fails after writing e4 and the meta.
      const bad = [trade('e4', 3, T + 5, 1.1, 1.15, 1), trade('e1', 2, T + 6, 1.15, 1.2, 1)];
      await expect(
        s.commit({ ...withBars(bad), reserves: [{ id: 3, base: 9, quote: 9 }], meta: { seed: '8' } }),
      ).rejects.toThrow();
      expect({
        trades: await s.trades.list(),
        bars: await s.bars.all(),
        rows: await s.market.load(),
        meta: await s.market.meta('seed'),
      }).toEqual(before);
      expect(await s.trades.hasEvent('e4')).toBe(false);
    });

    it('rolls back: removes the trades after a time with their reserves and meta in one commit, and re-folds the bars of the series they touched to equal a rebuild', async () => {
      const s = await open();
      await s.commit(structure());
      // Trades inside one 1min bucket and in later ones, on both pools; the cut falls mid-bucket.
      await s.commit(withBars([trade('k1', 2, T, 1, 1.1, 2), trade('k2', 3, T + 20, 1.1, 1.3, 1)]));
      await s.commit(withBars([trade('k3', 2, T + 40, 1.3, 0.8, 4)]));
      await s.commit(withBars([trade('k4', 3, T + 130, 0.8, 0.9, 1), trade('k5', 2, T + 4000, 0.9, 1.5, 1)]));
      const kept = await s.trades.list();
      await s.commit({
        removeTradesAfter: T + 20,
        reserves: [{ id: 2, base: 1100, quote: 1000 }],
        meta: { 'chain:tip': 'x' },
      });
      expect((await s.trades.list()).map((t) => t.eventId)).toEqual(['k1', 'k2']);
      expect((await s.trades.list()).map((t) => t.seq)).toEqual(kept.slice(0, 2).map((t) => t.seq));
      expect(await s.trades.hasEvent('k3')).toBe(false);
      expect(await s.market.meta('chain:tip')).toBe('x');
      expect((await s.market.load()).pools.find((p) => p.id === 2)).toMatchObject({
        baseReserve: 1100,
        quoteReserve: 1000,
      });
      // The bucket [T, T+60) keeps k1 and k2 only; nothing after it is left.
      expect(await s.bars.range(1, '1min', 0, 2 ** 31)).toEqual([[T, 1, 1.3, 1, 1.3, 3 * VOLUME_SCALE, 310]]);
      const rolledBack = await s.bars.all();
      await s.bars.rebuild();
      expect(rolledBack).toEqual(await s.bars.all());
      // Trades after the cut can come again (the other branch of a fork).
      await s.commit(withBars([trade('k3', 2, T + 45, 1.3, 1.2, 1)]));
      expect(await s.trades.count()).toBe(3);
    });

    it('re-folds the buckets an older trade touches (refold), folding trades in time order: bars equal a rebuild', async () => {
      const s = await open();
      await s.commit(structure());
      await s.commit(withBars([trade('r1', 2, T + 30, 1, 1.1, 1), trade('r2', 2, T + 200, 1.1, 1.2, 1)]));
      // Older than r1 and r2: written with a refold of its series' buckets at its time, not folded into `bars`.
      await s.commit({
        trades: [trade('r0', 2, T + 10, 0.9, 1, 2)],
        refold: [
          { series: 2, aggregate: false, times: [T + 10] },
          { series: 1, aggregate: true, times: [T + 10] },
        ],
      });
      expect(await s.bars.range(2, '1min', T, T + 60)).toEqual([[T, 0.9, 1.1, 0.9, 1.1, 3 * VOLUME_SCALE, 110]]);
      const bars = await s.bars.all();
      await s.bars.rebuild();
      expect(await s.bars.all()).toEqual(bars);
    });

    it('re-folds exactly the buckets holding the times given, at every resolution, and no other', async () => {
      const s = await open();
      await s.commit(structure());
      await s.commit(withBars([trade('x1', 2, T + 30, 1, 1.1, 1)]));
      // Two days later, written without its bars: a bucket no re-fold of T's buckets may touch.
      await s.commit({ trades: [trade('x2', 2, T + 2 * 86_400, 1.1, 1.2, 1)] });
      await s.commit({
        trades: [trade('x0', 2, T + 10, 0.9, 1, 2)],
        refold: [{ series: 2, aggregate: false, times: [T + 10] }],
      });
      for (const resolution of ['1min', '5min', '15min', '60min', '1d'] as const) {
        expect(await s.bars.range(2, resolution, T + 86_400, T + 4 * 86_400)).toEqual([]);
        expect((await s.bars.range(2, resolution, T - 86_400, T + 60)).at(-1)?.[5]).toBe(3 * VOLUME_SCALE);
      }
      // Given the later time too, its buckets are folded as well.
      await s.commit({ refold: [{ series: 2, aggregate: false, times: [T + 2 * 86_400] }] });
      expect(await s.bars.range(2, '1min', T + 86_400, T + 4 * 86_400)).toHaveLength(1);
    });

    it("computes a pair's Aggregate columns again from a time on (reaggregate), before re-folding: the replay gets each pool's last state before and the trades after, in time order", async () => {
      const s = await open();
      await s.commit(structure());
      // Pool 2 at T and T + 90, pool 3 at T + 20; then, written late, pool 3 at T + 5 (older than all but one).
      await s.commit(
        withBars([
          trade('q1', 2, T, 1, 1.1, 1),
          trade('q2', 3, T + 20, 2, 2.2, 1),
          trade('q3', 2, T + 90, 1.1, 1.3, 1),
        ]),
      );
      const seen: {
        before: [number, { price: number; tvl: number }][];
        trades: { pool: number; prevPrice: number; price: number }[];
      }[] = [];
      await s.commit({
        trades: [trade('q0', 3, T + 5, 1.9, 2, 1)],
        reaggregate: [
          {
            agg: 1,
            pools: [2, 3],
            from: T + 5,
            replay: (before, trades) => {
              seen.push({
                before: [...before].sort((a, b) => a[0] - b[0]),
                trades: trades.map((t) => ({ pool: t.pool, prevPrice: t.prevPrice, price: t.price })),
              });
              // Stand-in columns: the trade's place in time order.
              return trades.map((_, i) => ({
                aggPrevPrice: 100 + i,
                aggPrice: 200 + i,
                aggPrevTvl: 300 + i,
                aggTvl: 400 + i,
              }));
            },
          },
        ],
        refold: [
          { series: 3, aggregate: false, times: [T + 5] },
          { series: 1, aggregate: true, times: [T + 5] },
        ],
      });
      expect(seen).toEqual([
        {
          before: [[2, { price: 1.1, tvl: 110 }]],
          trades: [
            { pool: 3, prevPrice: 1.9, price: 2 },
            { pool: 3, prevPrice: 2, price: 2.2 },
            { pool: 2, prevPrice: 1.1, price: 1.3 },
          ],
        },
      ]);
      const columns = (await s.trades.list({ agg: 1 })).map((t) => [
        t.eventId,
        t.aggPrevPrice,
        t.aggPrice,
        t.aggPrevTvl,
        t.aggTvl,
      ]);
      expect(columns).toEqual([
        ['q1', 1, 1.1, 300, 310],
        ['q2', 101, 201, 301, 401],
        ['q3', 102, 202, 302, 402],
        ['q0', 100, 200, 300, 400],
      ]);
      // The Aggregate's bars were folded from the new columns: they equal a rebuild.
      const bars = await s.bars.all();
      await s.bars.rebuild();
      expect(await s.bars.all()).toEqual(bars);
      expect((await s.bars.range(1, '1min', T, T + 60))[0]?.[4]).toBe(201);
    });

    it('marks bars stale while a bulk load writes trades alone, and a rebuild makes them current', async () => {
      const s = await open();
      await s.commit(structure());
      await s.setBulkMode(true);
      await s.commit({ trades: [trade('b1', 2, T, 1, 1.1, 1), trade('b2', 2, T + 61, 1.1, 1.3, 1)], barsStale: true });
      await s.setBulkMode(false);
      expect(await s.bars.stale()).toBe(true);
      expect(await s.bars.all()).toEqual([]);
      expect(await s.bars.rebuild()).toBe(2);
      expect(await s.bars.stale()).toBe(false);
      expect(await s.bars.range(2, '1min', 0, 2 ** 31)).toEqual([
        [T, 1, 1.1, 1, 1.1, VOLUME_SCALE, 110],
        [T + 60, 1.1, 1.3, 1.1, 1.3, VOLUME_SCALE, 110],
      ]);
    });

    it("keeps the chain source's rollback journal a row per block: appended, cut after a slot, pruned before one, whole or not at all, across a reopen", async () => {
      const s = await open();
      await s.commit(structure());
      const row = (slot: number, before: [number, number, number][] = []) => ({
        slot,
        id: slot.toString(16).padStart(64, '0'),
        height: slot - 90,
        before,
      });
      for (const slot of [100, 110, 120, 130])
        await s.commit({ journal: { append: [row(slot, [[2, slot, slot + 1]])] } });
      expect(await s.market.journal()).toEqual([100, 110, 120, 130].map((slot) => row(slot, [[2, slot, slot + 1]])));
      // A rollback to 110 and the other branch's block, with the oldest row pruned, in one commit.
      await s.commit({ journal: { removeAfter: 110, append: [row(115, [[3, 7.5, 8]])], removeBefore: 110 } });
      expect(await s.market.journal()).toEqual([row(110, [[2, 110, 111]]), row(115, [[3, 7.5, 8]])]);
      // A failing batch (the trade's event id is already stored) leaves the journal as it was.
      await s.commit(withBars([trade('j1', 2, T, 1, 1.1, 1)]));
      await expect(
        s.commit({
          ...withBars([trade('j1', 2, T + 1, 1.1, 1.2, 1)]),
          journal: { append: [row(140)], removeBefore: 200 },
        }),
      ).rejects.toThrow();
      expect((await s.market.journal()).map((r) => r.slot)).toEqual([110, 115]);
      await s.close();
      store = await current?.reopen();
      expect((await store?.market.journal())?.map((r) => r.slot)).toEqual([110, 115]);
    });

    it("appends several journal rows in one commit, with what each block created and each pool's LP supply before it", async () => {
      const s = await open();
      await s.commit(structure());
      const rows = [
        {
          slot: 200,
          id: 'c8'.padStart(64, '0'),
          height: 7,
          before: [[2, 10, 20, '123456789012345678901'] as const],
          created: { tokens: [2], pairs: [1], pools: [2, 3] },
        },
        {
          slot: 220,
          id: 'dc'.padStart(64, '0'),
          height: 8,
          before: [[3, 1.5, 2.5, null] as const, [2, 11, 19] as const],
        },
      ];
      await s.commit({ journal: { append: rows } });
      expect(await s.market.journal()).toEqual(rows);
    });

    it("keeps each source's identity record of a token apart, set, replaced and removed with the commit, across a reopen", async () => {
      const s = await open();
      await s.commit(structure());
      const usdm = 'c48cbb3d5e57ed56e276bc45f99ab39abe94e6cd7ac39fb402da47ad0014df105553444d';
      const min = '29d222ce763455e3d7a09a665ce554f00ac89d2e99a1a83d267170c64d494e';
      const chain = {
        unit: usdm,
        source: 'cip68' as const,
        name: 'USDM',
        ticker: 'USDM',
        decimals: 6,
        description: 'Fiat-backed stablecoin native to the Cardano blockchain',
        url: 'https://moneta.global/',
        logo: 'ipfs://QmPxkqMtGMbGMnaqvFQAjf3wFvXq3yTn2mCsrJdtf7X52o',
        at: 1_718_000_000.25,
      };
      const registry = {
        unit: usdm,
        source: 'registry' as const,
        name: 'USDM (registry)',
        decimals: 6,
        at: 1_718_000_100,
      };
      const minRecord = {
        unit: min,
        source: 'registry' as const,
        name: 'Minswap',
        ticker: 'MIN',
        decimals: 6,
        logo: 'png:' + 'ab'.repeat(32),
        at: 1_718_000_200,
      };
      await s.commit({
        identities: { set: [chain, registry, minRecord] },
        tokenUpdates: [{ id: 2, ticker: 'USDM', name: 'USDM', decimals: 6 }],
      });
      // By unit, then source; fields no source gave are absent.
      expect((await s.market.load()).identities).toEqual([minRecord, chain, registry]);
      // Replaced (same unit and source), removed, both in one commit.
      const corrected = { ...minRecord, decimals: 7, at: 1_718_086_600 };
      await s.commit({ identities: { remove: [[usdm, 'registry']], set: [corrected] } });
      // A commit that fails writes no record.
      await expect(
        s.commit({ identities: { set: [{ unit: usdm, source: 'registry', decimals: 40, at: 1 }] } }),
      ).rejects.toThrow();
      await s.close();
      store = await (current as StoreFactory).reopen();
      expect((await store.market.load()).identities).toEqual([corrected, chain]);
      // Journal rows carry the records their block changed, as they were before it.
      const journalRow = {
        slot: 300,
        id: 'e1'.padStart(64, '0'),
        height: 9,
        before: [],
        identities: [[usdm, 'cip68', chain] as const, [min, 'cip68', null] as const],
      };
      await store.commit({ journal: { append: [journalRow] } });
      expect(await store.market.journal()).toEqual([journalRow]);
    });

    it("keeps the chain pools' LP supplies beyond 2^53: set, replaced, removed, with the commit", async () => {
      const s = await open();
      await s.commit(structure());
      await s.commit({
        chainLp: {
          set: [
            [2, '9223372036854775807'],
            [3, '5'],
          ],
        },
      });
      await s.commit({ chainLp: { set: [[3, '6']], remove: [2] } });
      expect(await s.market.chainLp()).toEqual(new Map([[3, 6n]]));
      await expect(s.commit({ chainLp: { set: [[99, '1']] } })).rejects.toThrow();
      expect(await s.market.chainLp()).toEqual(new Map([[3, 6n]]));
    });

    it('deletes the rows a rollback names, after its trades are gone: pools with their bars and LP, pairs with their Aggregate, tokens', async () => {
      const s = await open();
      await s.commit(structure());
      // A second pair (ADA / NEW) with its Aggregate (4) and one DEX pool (5), traded after T.
      const newToken = {
        id: 3,
        unit: 'cd'.repeat(28) + '4e4557',
        ticker: 'NEW',
        name: 'New',
        decimals: 0,
        logoKind: 0,
      };
      const pools: PoolRow[] = [
        {
          id: 4,
          poolId: 'agg02',
          group: 'Aggregate',
          pairId: 2,
          n: 1,
          feeBps: 0,
          baseReserve: 10,
          quoteReserve: 10,
          simulated: false,
        },
        {
          id: 5,
          poolId: 'pool03',
          group: 'Minswap',
          pairId: 2,
          n: 1,
          feeBps: 30,
          baseReserve: 10,
          quoteReserve: 10,
          simulated: false,
        },
        // A third pool of the first pair.
        {
          id: 6,
          poolId: 'pool04',
          group: 'Spectrum',
          pairId: 1,
          n: 1,
          feeBps: 30,
          baseReserve: 5,
          quoteReserve: 5,
          simulated: false,
        },
      ];
      await s.commit({
        ...withBars([trade('k1', 2, T, 1, 1.1, 1)]),
        tokens: [newToken],
        pairs: [{ id: 2, base: 1, quote: 3 }],
        pools,
        chainLp: {
          set: [
            [5, '10'],
            [6, '3'],
          ],
        },
      });
      const late = { ...trade('k2', 5, T + 120, 1, 1.2, 1), agg: 4 };
      await s.commit({ ...withBars([late, trade('k3', 6, T + 130, 1.1, 1.2, 1)]) });
      await s.commit({ removeTradesAfter: T + 60, remove: { tokens: [3], pairs: [2], pools: [6] } });
      const rows = await s.market.load();
      expect(rows.tokens.map((t) => t.id)).toEqual([1, 2]);
      expect(rows.pairs.map((p) => p.id)).toEqual([1]);
      expect(rows.pools.map((p) => p.id)).toEqual([1, 2, 3]);
      expect(await s.market.chainLp()).toEqual(new Map());
      expect(new Set((await s.bars.all()).map(([series]) => series))).toEqual(new Set([1, 2]));
      expect(await s.market.nextIds()).toEqual({ token: 3, pair: 2, pool: 4 });
      expect((await s.trades.list()).map((t) => t.eventId)).toEqual(['k1']);
    });

    it('keeps the simulator state written with a commit', async () => {
      const s = await open();
      const fair = Buffer.from(new Float64Array([1.5, 2.5, 3.5]).buffer);
      await s.commit({ simState: { height: 12, nextBlockTime: T, fair } });
      await s.commit({ simState: { height: 13, nextBlockTime: T + 20, fair } });
      expect(await s.sim.load()).toEqual({ height: 13, nextBlockTime: T + 20, fair });
    });

    it('stores API keys by hash and prefix: create, find candidates, count, list, revoke', async () => {
      const s = await open();
      const a = await s.keys.create('h'.repeat(64), 'cdx_prefix01', 'free', 'first', 1000);
      await s.keys.create('i'.repeat(64), 'cdx_prefix01', 'pro', '', 2000);
      await s.keys.create('j'.repeat(64), 'cdx_other001', 'pro', '', 3000);
      expect(a).toEqual({
        id: a.id,
        prefix: 'cdx_prefix01',
        plan: 'free',
        label: 'first',
        createdAt: 1000,
        revokedAt: null,
      });
      expect(await s.keys.count()).toBe(3);
      expect((await s.keys.candidates('cdx_prefix01')).map((c) => c.plan).sort()).toEqual(['free', 'pro']);
      expect(await s.keys.revoke('cdx_prefix01', 5000)).toBe(2);
      expect(await s.keys.candidates('cdx_prefix01')).toEqual([]);
      expect(await s.keys.revoke(String(a.id), 6000)).toBe(0);
      expect(await s.keys.count()).toBe(1);
      expect((await s.keys.list()).map((k) => k.revokedAt)).toEqual([5000, 5000, null]);
    });
  });
}
