import { liveErrorSchema } from '../../src/shared/api/gateway';
import { symbolInfoResponseSchema } from '../../src/shared/api/symbol-info';
import { openLiveFrom, type LiveFrom } from '../../tests/support/live-client';
import { liveStatuses, liveTrades, type SseReader } from '../../tests/support/sse';
import { percentile } from '../measure';
import { rssMiB } from './load';
import type { SoakServer } from './server';

/**
 * The gateway's live capacity under attack (issue 29, docs/gateway.md "A fair share"): with the
 * default limits (1,000 pools upstream, 50 per connection, 20 connections and a quarter of the pools
 * per client), hostile clients hold every connection they may and keep asking for more, while honest
 * clients at other addresses follow 50 pools each and must get every trade of their pools.
 *
 * The hostile side: one loopback address opening 20 connections of 50 distinct pools, and
 * re-opening each refused one 50 ms later (EventSource waits 3 s) with pools it does not follow yet,
 * the honest clients' included, and an `X-Forwarded-For` of its choosing (not believed: it is no trusted proxy);
 * and one IPv6 subscriber behind the trusted proxy (TRUST_PROXY=127.0.0.9), a new address of its /64
 * for every connection. Between them they may hold 500 pools: the 500 left are the honest clients'
 * (10 × 50, distinct from the hostile ones), which fills the budget exactly.
 */

/** The trusted proxy of this part's server (its TRUST_PROXY). */
export const FAIR_PROXY = '127.0.0.9';

export interface FairResult {
  readonly seconds: number;
  readonly aggregatePools: number;
  readonly hostileAttempts: number;
  readonly hostileRefused: number;
  /** Pools the hostile clients held at the end (each identity at most its share). */
  readonly hostilePoolsHeld: Readonly<Record<string, number>>;
  readonly honestClients: number;
  readonly honestConnected: number;
  /** Honest connections that ended or were refused during the run. */
  readonly honestLost: number;
  readonly forcedTrades: number;
  /** Forced trades on an honest client's pools that reached it. */
  readonly honestTradesDelivered: number;
  /** Time from a forced block's answer to its trade at the honest client, ms. */
  readonly deliveryP50Ms: number;
  readonly deliveryP99Ms: number;
  readonly refusals: Readonly<Record<string, number>>;
  readonly rssPeakMiB: number;
  readonly examples: readonly string[];
}

interface Conn {
  readonly reader: SseReader;
  readonly close: () => void;
  readonly pools: readonly string[];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves with 'connected', or the error the connection was refused with. */
async function outcome(reader: SseReader): Promise<'connected' | string> {
  await reader.until(
    (frames) =>
      frames.some(
        (f) =>
          f.event === 'error' ||
          (f.event === 'status' && (JSON.parse(f.data) as { state: string }).state === 'connected'),
      ),
    15_000,
  );
  const error = reader.events('error')[0];
  return error === undefined ? 'connected' : liveErrorSchema.parse(error).errmsg;
}

/** The refusal's kind, for the report (the message without its numbers and addresses). */
const kind = (errmsg: string) => errmsg.replace(/from \S+/, 'from <client>').replace(/\d+/g, 'N');

export async function fairCapacity(server: SoakServer, options: { seconds: number }): Promise<FairResult> {
  const origin = server.origin;
  const info = symbolInfoResponseSchema.parse(
    await (await fetch(`${origin}/gw/v1/symbol_info?group=Aggregate`)).json(),
  );
  const pools = info.ticker.map((t) => t.toLowerCase());
  if (pools.length < 1000) throw new Error(`the fair part needs 1,000 Aggregate pools; the market has ${pools.length}`);
  const slice = (from: number) => pools.slice(from, from + 50);
  const examples: string[] = [];
  const refusals: Record<string, number> = {};
  const held = new Map<string, Set<Conn>>();
  let attempts = 0;
  let refused = 0;
  let running = true;

  /** One hostile identity: `from(i)` says who connection i claims to be; refused ones are re-opened at once. */
  const hostile = (identity: string, from: (i: number) => LiveFrom, firstSlice: number) => {
    const mine = new Set<Conn>();
    held.set(identity, mine);
    const slot = async (i: number) => {
      let attempt = 0;
      while (running) {
        // Five connections of its own range (its share); every other attempt asks pools it does not
        // follow yet (more is what it is after): the honest clients' and beyond.
        const start =
          attempt === 0 && i < 5 ? firstSlice + i * 50 : 500 + Math.floor(Math.random() * (pools.length - 550));
        const connPools = slice(start);
        attempts++;
        attempt++;
        let opened: Awaited<ReturnType<typeof openLiveFrom>>;
        try {
          opened = await openLiveFrom(origin, connPools, from(attempt * 20 + i));
        } catch (error) {
          if (examples.length < 10) examples.push(`hostile ${identity}: ${String(error)}`);
          await sleep(100);
          continue;
        }
        const result = await outcome(opened.reader).catch((error: unknown) => `no answer: ${String(error)}`);
        if (result === 'connected') {
          const conn = { ...opened, pools: connPools };
          mine.add(conn);
          // Held until the end (or until the server drops it).
          while (running && !opened.reader.ended) await sleep(200);
          mine.delete(conn);
          opened.close();
        } else {
          refused++;
          refusals[kind(result)] = (refusals[kind(result)] ?? 0) + 1;
          opened.close();
          await sleep(50);
        }
      }
    };
    return Array.from({ length: 20 }, (_, i) => slot(i));
  };

  let peak = rssMiB(server.pid);
  const sampler = setInterval(() => (peak = Math.max(peak, rssMiB(server.pid))), 500);
  const started = performance.now();
  const hostiles = [
    ...hostile('127.0.0.2', (i) => ({ localAddress: '127.0.0.2', forwardedFor: `198.51.100.${(i % 250) + 1}` }), 0),
    ...hostile(
      '2001:db8:bad:1::/64',
      (i) => ({ localAddress: FAIR_PROXY, forwardedFor: `2001:db8:bad:1::${(i + 1).toString(16)}` }),
      250,
    ),
  ];
  // Let the hostile clients take what they can first.
  await sleep(3_000);

  const honest: Conn[] = [];
  let honestLost = 0;
  for (let i = 0; i < 10; i++) {
    const connPools = slice(500 + i * 50);
    const opened = await openLiveFrom(origin, connPools, { localAddress: `127.0.1.${i + 1}` });
    const result = await outcome(opened.reader).catch((error: unknown) => String(error));
    if (result !== 'connected') {
      honestLost++;
      if (examples.length < 10) examples.push(`honest client ${i + 1} refused: ${result}`);
      opened.close();
      continue;
    }
    honest.push({ ...opened, pools: connPools });
  }

  // Trade on the honest clients' pools, one pool at a time (a block every 50 ms at most: the market
  // busy, the server with time left for the attack), and time each trade to its follower.
  let forced = 0;
  let delivered = 0;
  const delays: number[] = [];
  const deadline = started + options.seconds * 1000;
  for (let n = 0; performance.now() < deadline && honest.length > 0; n++) {
    const paced = sleep(50);
    const conn = honest[n % honest.length];
    if (!conn) break;
    const pool = conn.pools[Math.floor(n / honest.length) % conn.pools.length] ?? '';
    const before = liveTrades(conn.reader).length;
    const asked = await fetch(`${origin}/__test__/block?pool=${pool}&trades=1`, {
      method: 'POST',
      signal: AbortSignal.timeout(10_000),
    }).catch(() => undefined);
    if (asked?.status !== 200) {
      if (examples.length < 10) examples.push(`forced block on ${pool}: ${asked?.status ?? 'no answer'}`);
      continue;
    }
    const answered = performance.now();
    forced++;
    try {
      await conn.reader.until(
        () =>
          liveTrades(conn.reader)
            .slice(before)
            .some((t) => t.pool_id === pool),
        10_000,
      );
      delivered++;
      delays.push(performance.now() - answered);
    } catch {
      if (examples.length < 10) examples.push(`a trade on ${pool} did not reach its honest follower within 10 s`);
    }
    await paced;
  }
  const hostilePoolsHeld = Object.fromEntries(
    [...held].map(([identity, conns]) => [identity, new Set([...conns].flatMap((c) => c.pools)).size]),
  );
  const honestConnected = honest.filter(
    (c) => !c.reader.ended && liveStatuses(c.reader).at(-1)?.state === 'connected',
  ).length;
  honestLost += honest.length - honestConnected;
  running = false;
  clearInterval(sampler);
  honest.forEach((c) => c.close());
  await Promise.all(hostiles);
  return {
    seconds: Math.round((performance.now() - started) / 1000),
    aggregatePools: pools.length,
    hostileAttempts: attempts,
    hostileRefused: refused,
    hostilePoolsHeld,
    honestClients: 10,
    honestConnected,
    honestLost,
    forcedTrades: forced,
    honestTradesDelivered: delivered,
    deliveryP50Ms: Math.round(percentile(delays, 50) * 10) / 10,
    deliveryP99Ms: Math.round(percentile(delays, 99) * 10) / 10,
    refusals,
    rssPeakMiB: Math.round(peak),
    examples,
  };
}
