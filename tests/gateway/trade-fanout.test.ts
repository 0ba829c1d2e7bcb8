import { describe, expect, it } from 'vitest';
import { LiveHub, type LiveClient } from '../../src/gateway/live/live-hub';
import { TradeFanout } from '../../src/gateway/live/trade-fanout';

/** A browser that records what it is written, each write apart; `refuse` makes it a dropped one. */
function browser(pools: string[], options: { writeNow?: boolean; refuse?: boolean } = {}) {
  const writes: { text: string; bytes: number | undefined; now: boolean }[] = [];
  const record = (now: boolean) => (text: string, bytes?: number) => {
    if (options.refuse) return false;
    writes.push({ text, bytes, now });
    return true;
  };
  return {
    pools: new Set(pools),
    address: '192.0.2.1',
    connected: false,
    missedEvents: false,
    writes,
    write: record(false),
    ...(options.writeNow ? { writeNow: record(true) } : {}),
    close: () => {},
  };
}

const ticks = () => new Promise((resolve) => setImmediate(resolve));
const frame = (pool: string, n: number) => `event: trade\ndata: {"pool_id":"${pool}","n":${n}}\n\n`;

describe('trades fanned out per set of pools', () => {
  it("writes a run's frames once joined to each browser, in the order the events came, sharing one text between browsers of the same pools", async () => {
    const counts = { written: 0, dropped: 0 };
    const fanout = new TradeFanout<ReturnType<typeof browser>>((written, dropped) => {
      counts.written += written;
      counts.dropped += dropped;
    });
    const a = browser(['aa', 'bb'], { writeNow: true });
    // The same pools given in another order: the same set.
    const b = browser(['bb', 'aa'], { writeNow: true });
    const c = browser(['bb']);
    expect(fanout.add(a)).toBe(true);
    expect(fanout.add(b)).toBe(false);
    expect(fanout.add(c)).toBe(false);
    expect([...fanout.byPool.keys()].sort()).toEqual(['aa', 'bb']);

    const frames = [frame('aa', 1), frame('bb', 2), frame('cc', 3), frame('aa', 4)];
    for (const f of frames) fanout.publish(/"pool_id":"(\w+)"/.exec(f)?.[1] ?? '', f, Buffer.byteLength(f));
    // Nothing is written during the run.
    expect(a.writes.length + c.writes.length).toBe(0);
    await ticks();

    const both = frames.filter((f) => !f.includes('"cc"')).join('');
    expect(a.writes).toEqual([{ text: both, bytes: Buffer.byteLength(both), now: true }]);
    expect(b.writes).toEqual(a.writes);
    // A browser without writeNow is written with write.
    expect(c.writes).toEqual([{ text: frames[1], bytes: Buffer.byteLength(frames[1] ?? ''), now: false }]);
    expect(counts).toEqual({ written: 3 + 3 + 1, dropped: 0 });
  });

  it('counts the events of a browser that could not take them as dropped', async () => {
    const counts = { written: 0, dropped: 0 };
    const fanout = new TradeFanout<ReturnType<typeof browser>>((written, dropped) => {
      counts.written += written;
      counts.dropped += dropped;
    });
    fanout.add(browser(['aa']));
    fanout.add(browser(['aa'], { refuse: true }));
    fanout.publish('aa', frame('aa', 1), 10);
    fanout.publish('aa', frame('aa', 2), 10);
    await ticks();
    expect(counts).toEqual({ written: 2, dropped: 2 });
  });

  it("keeps a set's pools in the union while one of its browsers remains, and forgets frames queued for a set that left", async () => {
    const fanout = new TradeFanout<ReturnType<typeof browser>>(() => {});
    const a = browser(['aa', 'bb']);
    const b = browser(['aa', 'bb']);
    const c = browser(['cc']);
    fanout.add(a);
    fanout.add(b);
    fanout.add(c);
    // The first browser of the set leaves: the set stays, for the second.
    expect(fanout.remove(a)).toBe(false);
    expect(fanout.remove(a)).toBe(false);
    fanout.publish('aa', frame('aa', 1), 10);
    fanout.publish('cc', frame('cc', 2), 10);
    expect(fanout.remove(c)).toBe(true);
    await ticks();
    expect(a.writes).toEqual([]);
    expect(b.writes.map((w) => w.text)).toEqual([frame('aa', 1)]);
    expect(c.writes).toEqual([]);
    expect([...fanout.byPool.keys()].sort()).toEqual(['aa', 'bb']);
    expect(fanout.remove(b)).toBe(true);
    expect(fanout.byPool.size).toBe(0);
  });

  it('tells apart sets of the same size', async () => {
    const fanout = new TradeFanout<ReturnType<typeof browser>>(() => {});
    const sets = [
      ['aa', 'bb'],
      ['aa', 'cc'],
      ['ab', 'ba'],
      ['ba', 'ab', 'cc'],
    ].map((pools) => browser(pools));
    for (const b of sets) fanout.add(b);
    fanout.publish('bb', frame('bb', 1), 10);
    await ticks();
    expect(sets.map((b) => b.writes.length)).toEqual([1, 0, 0, 0]);
  });
});

describe('the live hub writing trades per run', () => {
  const trade = (pool: string, n: number) => ({
    block_time: 1_700_000_000 + n,
    pool_id: pool,
    current_price: n + 1,
    previous_price: n,
    current_tvl: 10,
    previous_tvl: 10,
    volume: 1,
  });
  const kinds = (client: ReturnType<typeof browser>) =>
    client.writes.flatMap((w) => [...w.text.matchAll(/event: (\w+)/g)].map((m) => m[1]));

  it('writes a status that follows trades in the same run after them, and counts deliveries', async () => {
    const hub = new LiveHub(() => {});
    const client = browser(['aa'], { writeNow: true });
    hub.add(client as LiveClient);
    hub.onLive(new Set(['aa']), false);
    hub.onEvent(trade('aa', 1));
    hub.onEvent(trade('aa', 2));
    // The upstream dropped right after those events, in the same run.
    hub.onDown();
    await ticks();
    expect(kinds(client)).toEqual(['status', 'trade', 'trade', 'status']);
    expect(hub.delivered).toBe(2);
  });

  it('gives a browser that joins in the middle of a run only the events after it joined', async () => {
    const hub = new LiveHub(() => {});
    const first = browser(['aa']);
    hub.add(first as LiveClient);
    hub.onLive(new Set(['aa']), false);
    hub.onEvent(trade('aa', 1));
    const second = browser(['aa']);
    hub.add(second as LiveClient);
    hub.onEvent(trade('aa', 2));
    await ticks();
    expect(kinds(first)).toEqual(['status', 'trade', 'trade']);
    expect(kinds(second)).toEqual(['status', 'trade']);
    expect(second.writes.at(-1)?.text).toContain('"block_time":1700000002');
  });
});
