import { openMarket } from '../../src/service/open-market';
import type { TradeRecord } from '../../src/service/store/ports';
import { keepTrading, openRawStream } from './load';
import { SOAK_KEY, type SoakServer } from './server';

/** One event a stream client received: the store must hold it after every crash. */
interface Seen {
  readonly pool: string;
  readonly time: number;
  readonly price: number;
}

export interface CrashResult {
  readonly kills: number;
  readonly tradesAfter: number;
  readonly streamedEvents: number;
  /** Streamed (so committed) events the store did not hold after the crashes. */
  readonly lost: number;
  /** Pool series whose stored trades do not chain (a trade's previous price is not the last one's price). */
  readonly brokenChains: number;
  readonly duplicateIds: number;
  readonly barsEqualRebuild: boolean;
  readonly examples: readonly string[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Parses the NDJSON trade events out of a raw stream's text (headers and chunk framing skipped). */
function events(text: string): Seen[] {
  const out: Seen[] = [];
  for (const match of text.matchAll(/\{"block_time":(\d+),"pool_id":"([0-9a-f]+)","current_price":([^,]+),/g)) {
    out.push({ time: Number(match[1]), pool: match[2] ?? '', price: Number(match[3]) });
  }
  return out;
}

/** What one offline check of the store found. */
interface Check {
  readonly trades: number;
  readonly lost: number;
  readonly brokenChains: number;
  readonly duplicateIds: number;
  readonly barsEqualRebuild: boolean;
}

/** The store after a crash, offline: every streamed event stored, no id twice, every pool's trades chained, bars equal a rebuild. */
async function check(dataDir: string, seen: readonly Seen[], examples: string[], round: number): Promise<Check> {
  const handle = await openMarket(dataDir, 'soak:crash', { existing: true });
  try {
    const trades = await handle.store.trades.list();
    const ids = new Set(trades.map((t) => t.eventId));
    const byPool = new Map<number, TradeRecord[]>();
    const byAggregate = new Map<number, TradeRecord[]>();
    for (const t of trades) {
      byPool.set(t.pool, [...(byPool.get(t.pool) ?? []), t]);
      byAggregate.set(t.agg, [...(byAggregate.get(t.agg) ?? []), t]);
    }
    let brokenChains = 0;
    for (const [series, list] of byPool) {
      for (let k = 1; k < list.length; k++) {
        const prev = list[k - 1] as TradeRecord;
        const cur = list[k] as TradeRecord;
        if (cur.prevPrice !== prev.price) {
          brokenChains++;
          if (examples.length < 5)
            examples.push(
              `after kill ${round}: pool series ${series}: trade ${cur.eventId} starts at ${cur.prevPrice}, the one before ended at ${prev.price}`,
            );
          break;
        }
      }
    }
    let lost = 0;
    for (const event of seen) {
      const aggregate = handle.market.pools.get(event.pool);
      const stored = aggregate ? byAggregate.get(aggregate.id) : undefined;
      if (!stored?.some((t) => t.blockTime === event.time && t.aggPrice === event.price)) {
        lost++;
        if (examples.length < 10)
          examples.push(`after kill ${round}: streamed ${event.pool} at ${event.time} (${event.price}) is not stored`);
      }
    }
    const bars = await handle.store.bars.all();
    await handle.store.bars.rebuild();
    const barsEqualRebuild = JSON.stringify(bars) === JSON.stringify(await handle.store.bars.all());
    if (!barsEqualRebuild && examples.length < 10) examples.push(`after kill ${round}: bars differ from a rebuild`);
    return { trades: trades.length, lost, brokenChains, duplicateIds: trades.length - ids.size, barsEqualRebuild };
  } finally {
    await handle.close();
  }
}

/**
 * `kills` times: start the server on the same data directory (catching up what it missed), stream
 * every Aggregate pool, trade hard, and kill -9 the server at a random moment; then, offline, after
 * every kill: every event a client received so far is stored, no trade is stored twice, each pool's
 * trades chain without a gap or a double (each trade starts from the last one's price), and the bars
 * equal a rebuild.
 */
export async function crashes(
  server: SoakServer,
  dataDir: string,
  aggregates: readonly string[],
  kills: number,
  seed: number,
): Promise<CrashResult> {
  let random = seed;
  const next = () => (random = (random * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const seen: Seen[] = [];
  const examples: string[] = [];
  let lost = 0;
  let brokenChains = 0;
  let duplicateIds = 0;
  let barsEqualRebuild = true;
  let tradesAfter = 0;
  for (let i = 0; i < kills; i++) {
    await server.start();
    const stream = await openRawStream(server, SOAK_KEY, aggregates, true, true);
    const stop = keepTrading(server, 10);
    await sleep(500 + next() * 2500);
    // kill -9: no shutdown path at all, mid-block as likely as not.
    await server.stop('SIGKILL');
    await stop();
    await stream.closed;
    seen.push(...events(stream.text()));
    const found = await check(dataDir, seen, examples, i + 1);
    // Counted once per kill that shows them (a lost event stays lost in later checks).
    lost = Math.max(lost, found.lost);
    brokenChains = Math.max(brokenChains, found.brokenChains);
    duplicateIds = Math.max(duplicateIds, found.duplicateIds);
    barsEqualRebuild &&= found.barsEqualRebuild;
    tradesAfter = found.trades;
  }
  return {
    kills,
    tradesAfter,
    streamedEvents: seen.length,
    lost,
    brokenChains,
    duplicateIds,
    barsEqualRebuild,
    examples,
  };
}
