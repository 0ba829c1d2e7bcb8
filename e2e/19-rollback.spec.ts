import type { APIRequestContext, Page } from '@playwright/test';
import { FakeOgmios } from '../tests/support/fake-ogmios';
import type { OgmiosWireBlock } from '../tests/support/prise';
import {
  nextSyntheticBlock,
  syntheticBlocks,
  syntheticPools,
  type ChainCursor,
} from '../tests/support/synthetic-chain';
import {
  chartAttributes,
  close,
  expectConnection,
  exportVisibleBars,
  headerPrice,
  waitForCandles,
} from './support/chart';
import { expect, test } from './support/fixtures';
import { gatewayHistory, groupSymbols, poolStats } from './support/market';
import { ServerProcess } from './support/server-process';

/**
 * A chain rollback as the browser sees it: a server process follows a fake Ogmios (`--source chain`)
 * whose chain has one Minswap V2 pool (synthetic blocks over its real datum layout). The pair trades
 * in block B at P1, shown by the chart's last candle and the tape; the node then rolls back before B
 * and sends B', where the same pool trades at P2. Within 2 s the last candle shows P2, the tape lists
 * B''s transaction and not B's, and the page was never reloaded. Embedded, and through a gateway in
 * front of the chain-fed server (remote mode). The top bar's badge says in both that the market is live on the chain
 * and how far behind the node it is.
 */

const KEY = 'e2e-rollback-upstream-key-0123456789';

interface Chain {
  readonly fake: FakeOgmios;
  readonly blocks: OgmiosWireBlock[];
  readonly cursor: ChainCursor;
  readonly pools: ReturnType<typeof syntheticPools>;
}

/** A fake Ogmios with the anchor, a block making the pool (no trade) and one trading it. */
async function startChain(): Promise<Chain> {
  const anchor: OgmiosWireBlock = {
    type: 'praos',
    era: 'babbage',
    id: 'ee'.repeat(32),
    height: 0,
    slot: 140_000_000,
    ancestor: 'genesis',
    transactions: [],
  };
  const cursor: ChainCursor = { slot: anchor.slot, id: anchor.id, height: 0 };
  const pools = syntheticPools(1, 90);
  const blocks = [anchor, ...syntheticBlocks(cursor, pools, 2, { updates: 1, sequential: true })];
  return { fake: await FakeOgmios.start(blocks), blocks, cursor, pools };
}

function chainArgs(chain: Chain): string[] {
  const anchor = chain.blocks[0] as OgmiosWireBlock;
  return ['--source', 'chain', '--ogmios', chain.fake.url, '--chain-start', `${anchor.slot}.${anchor.id}`];
}

/** The hashes of the transactions the tape links to. */
async function tapeTransactions(page: Page): Promise<string[]> {
  const links = await page
    .getByTestId('tape-tx')
    .evaluateAll((anchors) => anchors.map((a) => a.getAttribute('href') ?? ''));
  return links.map((href) => href.split('/').at(-1) ?? '');
}

/** Blocks a chain-fed server has committed (its tip), through /healthz. */
async function tipOf(request: APIRequestContext, origin: string): Promise<{ slot: number | null }> {
  const body = (await (await request.get(`${origin}/healthz`)).json()) as { chain: { tipSlot: number | null } };
  return { slot: body.chain.tipSlot };
}

async function followRollback(
  page: Page,
  request: APIRequestContext,
  chain: Chain,
  origin: string,
  dataOrigin: string,
): Promise<void> {
  await expect
    .poll(async () => (await tipOf(request, dataOrigin)).slot, {
      timeout: 30_000,
      message: 'the server follows the chain to its tip',
    })
    .toBe(chain.blocks.at(-1)?.slot);
  const [pair] = await groupSymbols(request, 'Aggregate', origin);
  if (!pair) throw new Error('no Aggregate pair on the chain-fed market');

  await page.goto(`${origin}/?group=Aggregate&symbol=${encodeURIComponent(pair.symbol)}&res=1`);
  await waitForCandles(page, { symbol: pair.symbol, resolution: '1' });
  await expectConnection(page, 'live');
  // Freshness (issue 42): the top bar says the market follows the chain, live, and how far behind the node it is.
  await expect(page.getByTestId('source-badge')).toHaveText(/^Cardano chain · live · \d+ s behind the chain$/);
  // Anything but a reload keeps this.
  await page.evaluate(() => ((window as unknown as { rollbackMarker?: number }).rollbackMarker = 1));
  let navigations = 0;
  page.on('framenavigated', (frame) => void (frame === page.mainFrame() && navigations++));

  // Block B, three minutes after the last: the pool trades at P1 in a candle of its own, shown last and in the tape.
  const pool = chain.pools[0] as (typeof chain.pools)[number];
  const before = { a: pool.a, b: pool.b, cursor: { ...chain.cursor } };
  const point = chain.blocks.at(-1) as OgmiosWireBlock;
  const b = nextSyntheticBlock(chain.cursor, chain.pools, { updates: 2, slotStep: 180 });
  const bTxs = (b.transactions as { id: string }[]).map((tx) => tx.id);
  chain.fake.extend([b]);
  await expect
    .poll(async () => (await tipOf(request, dataOrigin)).slot, { timeout: 10_000, message: 'the server has block B' })
    .toBe(b.slot);
  const p1 = (await poolStats(request, pair.ticker, origin)).current_price;
  await expect
    .poll(async () => close((await chartAttributes(page)).lastClose, p1), {
      timeout: 10_000,
      message: 'the last candle shows P1',
    })
    .toBe(true);
  await expect
    .poll(async () => (await tapeTransactions(page)).some((tx) => bTxs.includes(tx)), {
      timeout: 10_000,
      message: "the tape lists B's trade",
    })
    .toBe(true);
  await expect
    .poll(async () => close(await headerPrice(page), p1), { timeout: 10_000, message: 'the header shows P1' })
    .toBe(true);

  // The node rolls back before B and sends B' instead, 20 s after the point: the same pool, one swap
  // from the state before B. B's candle must go (a live bar cannot remove it: the chart is told to).
  pool.a = before.a;
  pool.b = before.b;
  Object.assign(chain.cursor, before.cursor);
  const b2 = nextSyntheticBlock(chain.cursor, chain.pools, { updates: 1, fork: 1 });
  const b2Txs = (b2.transactions as { id: string }[]).map((tx) => tx.id);
  const sentAt = Date.now();
  chain.fake.rollBackTo(point.slot);
  chain.fake.extend([b2]);

  // Within 2 s the last candle shows the corrected price, P2 (the server's, once it has B').
  let p2 = Number.NaN;
  await expect
    .poll(
      async () => {
        const price = (await poolStats(request, pair.ticker, origin)).current_price;
        if (close(price, p1)) return false;
        p2 = price;
        return close((await chartAttributes(page)).lastClose, price);
      },
      { timeout: 2_000, intervals: [50], message: 'the last candle shows the price of the new chain within 2 s' },
    )
    .toBe(true);
  test.info().annotations.push({
    type: 'latency',
    description: `the chart showed B''s price ${Date.now() - sentAt} ms after the rollback was sent`,
  });
  expect(close(p2, p1), 'P2 differs from P1').toBe(false);
  const shown = await chartAttributes(page);
  expect(close(shown.lastClose, p1), 'the last candle no longer shows P1').toBe(false);
  // Every bar the chart shows is the server's, volumes included: B's trades are in none of them (the
  // last candle's close alone would be P2 even if B's trades stayed folded into it).
  await expect(async () => {
    const bars = await exportVisibleBars(page);
    const history = await gatewayHistory(
      request,
      pair.ticker,
      '1',
      bars[0]?.time ?? 0,
      (bars.at(-1)?.time ?? 0) + 60,
      origin,
    );
    expect(bars.map((bar) => bar.time)).toEqual(history.map((bar) => bar.time));
    for (const [i, bar] of bars.entries()) {
      const other = history[i];
      const same =
        other !== undefined &&
        close(bar.open, other.open) &&
        close(bar.high, other.high) &&
        close(bar.low, other.low) &&
        close(bar.close, other.close) &&
        close(bar.volume, other.volume, 1e-6);
      expect(same, `bar ${bar.time}: ${JSON.stringify(bar)} vs ${JSON.stringify(other)}`).toBe(true);
    }
  }).toPass({ timeout: 5_000 });

  // The tape lists B''s transaction and no longer B's.
  await expect
    .poll(
      async () => {
        const txs = await tapeTransactions(page);
        return txs.some((tx) => b2Txs.includes(tx)) && !txs.some((tx) => bTxs.includes(tx));
      },
      { timeout: 10_000, message: "the tape lists B''s trade and not B's" },
    )
    .toBe(true);

  // The header's price is the new chain's too.
  await expect
    .poll(async () => close(await headerPrice(page), p2), { timeout: 10_000, message: 'the header shows P2' })
    .toBe(true);

  // No reload: the page is the one that was opened.
  expect(
    await page.evaluate(() => (window as unknown as { rollbackMarker?: number }).rollbackMarker),
    'the page was not reloaded',
  ).toBe(1);
  expect(navigations, 'navigations of the page').toBe(0);
  await expectConnection(page, 'live');
}

test('rollback: the chart, the tape and the header follow the chain back and onto its new branch, with no page reload', async ({
  page,
  request,
}, testInfo) => {
  test.setTimeout(90_000);
  const chain = await startChain();
  const server = await ServerProcess.create({
    logFile: testInfo.outputPath('server.log'),
    market: chainArgs(chain),
    testControls: false,
  });
  try {
    await server.start();
    await followRollback(page, request, chain, server.origin, server.origin);
  } finally {
    await server.dispose();
    await chain.fake.close();
  }
});

test('rollback through a gateway in front of the chain-fed server (remote mode)', async ({
  page,
  request,
}, testInfo) => {
  test.setTimeout(120_000);
  const chain = await startChain();
  const service = await ServerProcess.create({
    logFile: testInfo.outputPath('service.log'),
    market: chainArgs(chain),
    testControls: false,
    env: { TOKEN_API_KEYS: `${KEY}:enterprise` },
  });
  const gateway = await ServerProcess.create({
    logFile: testInfo.outputPath('gateway.log'),
    testControls: false,
    readyPath: '/gw/v1/info',
    env: { UPSTREAM_URL: service.origin, UPSTREAM_API_KEY: KEY },
  });
  try {
    await service.start();
    await gateway.start();
    await followRollback(page, request, chain, gateway.origin, service.origin);
  } finally {
    await gateway.dispose();
    await service.dispose();
    await chain.fake.close();
  }
});
