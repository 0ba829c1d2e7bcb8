import { readFileSync } from 'node:fs';
import type { APIRequestContext, Page } from '@playwright/test';
import { cip26ByTicker } from '../tests/support/cip26-sample';
import { cip68ByTicker } from '../tests/support/cip68-fixtures';
import { FakeKupo } from '../tests/support/fake-kupo';
import { FakeOgmios } from '../tests/support/fake-ogmios';
import { FakeTokenRegistry } from '../tests/support/fake-token-registry';
import type { OgmiosWireBlock } from '../tests/support/prise';
import {
  anchorBlock,
  syntheticBlocks,
  syntheticPoolId,
  type ChainCursor,
  type SyntheticPool,
} from '../tests/support/synthetic-chain';
import { startWebServer, type WebServer } from '../tests/support/web-servers';
import { chartAttributes, close, expectConnection, headerPrice, waitForCandles } from './support/chart';
import { expect, test } from './support/fixtures';
import { groupSymbols, poolStats } from './support/market';
import { ServerProcess } from './support/server-process';

/**
 * Real tokens on a chain market, as a trader sees them (issue 39): a server follows a fake Ogmios (`--source chain`)
 * whose chain has four Minswap V2 pools against ADA, with nothing known of their tokens when they appear:
 * - MIN (its real unit, the reserves of Minswap V2's real MIN/ADA pool: prise tx cb3e7f42…), which a fake token
 *   metadata server (`--token-registry`) knows from MIN's real registry entry (../shared/data/cip26-sample: Minswap,
 *   6 decimals, a PNG logo);
 * - USDM, a CIP-68 token, whose real reference datum (tests/fixtures/identity) a fake Kupo (`--kupo`) holds: name,
 *   ticker, 6 decimals and an `ipfs://` logo, which a local server standing in for the operator's IPFS gateway
 *   (`--ipfs-gateway`) serves as an SVG;
 * - a look-alike "MIN" under another policy, known to no source, whose pool is on the chain before the real MIN's;
 * - INDY (its real unit), whose registry entry first says 0 decimals, then is corrected to its real 6;
 * - WMT (its real unit), which the registry does not know at first, then does (its real entry).
 * The page shows MIN/ADA at its real price (not 10^6 off) with its registry name, logo and a "verified" mark, USDM
 * with its on-chain ticker, logo and mark, the look-alike marked unverified; the registry's correction of INDY's
 * decimals reaches the open page (header and chart) without a reload, and so does WMT's entry once the registry has
 * it: its name, its "verified" mark and its price.
 */

const USDM = cip68ByTicker('USDM');
const USDM_CID = (USDM.expected.logo ?? '').replace('ipfs://', '');
const SVG = readFileSync(new URL('../tests/fixtures/logos/cardano.svg', import.meta.url));

const MIN_ENTRY = cip26ByTicker('MIN');
const INDY_ENTRY = cip26ByTicker('INDY');
const WMT_ENTRY = cip26ByTicker('WMT');
const MIN = String(MIN_ENTRY.subject);
const INDY = String(INDY_ENTRY.subject);
const WMT = String(WMT_ENTRY.subject);
/** The look-alike: MIN's asset name under a policy of its own. */
const LOOK_ALIKE = `${'7a'.repeat(28)}4d494e`;
/** Minswap V2's real MIN/ADA pool's reserves (prise tx cb3e7f42…). */
const LOVELACE = 13_772_047_147_984n;
const RAW_MIN = 323_407_017_528_177n;

/** INDY's registry entry with the decimals given (the correction puts back the real 6). */
const indyWith = (decimals: number) => ({
  ...INDY_ENTRY,
  decimals: { ...(INDY_ENTRY.decimals as object), value: decimals },
});

interface World {
  readonly ogmios: FakeOgmios;
  readonly kupo: FakeKupo;
  readonly registry: FakeTokenRegistry;
  readonly ipfs: WebServer;
  readonly anchor: OgmiosWireBlock;
  /** The last block's slot. */
  readonly tipSlot: number;
  readonly pools: Readonly<Record<'min' | 'usdm' | 'lookAlike' | 'indy' | 'wmt', SyntheticPool>>;
}

async function startWorld(): Promise<World> {
  const anchor = anchorBlock();
  const pool = (lp: number, token: string, a: bigint, b: bigint): SyntheticPool => ({
    lp: lp.toString(16).padStart(64, '0'),
    token,
    a,
    b,
    liquidity: 7_000_000_000n,
  });
  const pools = {
    lookAlike: pool(1, LOOK_ALIKE, 20_000_000_000n, 900_000_000_000n),
    min: pool(2, MIN, LOVELACE, RAW_MIN),
    usdm: pool(3, USDM.ftUnit, 4_000_000_000_000n, 1_300_000_000_000n),
    indy: pool(4, INDY, 2_000_000_000_000n, 3_000_000_000_000n),
    wmt: pool(5, WMT, 1_000_000_000_000n, 4_000_000_000_000n),
  };
  const cursor: ChainCursor = { slot: anchor.slot, id: anchor.id, height: anchor.height };
  // The look-alike's pool first: it is on the chain before the real MIN's.
  const all = [pools.lookAlike, pools.min, pools.usdm, pools.indy, pools.wmt];
  const blocks = [anchor, ...syntheticBlocks(cursor, all, 3, { updates: all.length, sequential: true })];
  const kupo = await FakeKupo.start([]);
  kupo.setReferences(new Map([[USDM.unit, USDM.datum]]));
  const registry = await FakeTokenRegistry.start([MIN_ENTRY, indyWith(0)]);
  const ipfs = await startWebServer((request, response) => {
    if (request.url === `/ipfs/${USDM_CID}`) response.writeHead(200, { 'content-type': 'text/plain' }).end(SVG);
    else response.writeHead(404).end();
  });
  return {
    ogmios: await FakeOgmios.start(blocks),
    kupo,
    registry,
    ipfs,
    anchor,
    tipSlot: (blocks.at(-1) as OgmiosWireBlock).slot,
    pools,
  };
}

async function stopWorld(world: World): Promise<void> {
  await Promise.all([world.ogmios.close(), world.kupo.close(), world.registry.close(), world.ipfs.close()]);
}

interface Health {
  readonly chain: { readonly tipSlot: number | null };
  readonly identity?: {
    readonly pending: number;
    readonly logos?: { readonly pending: number; readonly fetched: number };
  };
}

/** The Aggregate symbol of a pool's pair (the pairs the live stream serves), found by the pool's own row. */
async function symbolOf(request: APIRequestContext, origin: string, pool: SyntheticPool): Promise<string> {
  const row = (await groupSymbols(request, 'MinswapV2', origin)).find((r) => r.ticker === syntheticPoolId(pool));
  expect(row, `the pool of ${pool.token} is listed`).toBeDefined();
  const pair = row?.symbol.split('_')[0] ?? '';
  const aggregate = (await groupSymbols(request, 'Aggregate', origin)).find((r) => r.symbol.split('_')[0] === pair);
  expect(aggregate, `${row?.symbol} 's pair is an Aggregate pair`).toBeDefined();
  return aggregate?.symbol ?? '';
}

async function open(page: Page, origin: string, symbol: string): Promise<void> {
  await page.goto(`${origin}/?group=Aggregate&symbol=${encodeURIComponent(symbol)}&res=5`);
  await waitForCandles(page, { symbol, resolution: '5' });
  await expectConnection(page, 'live');
}

/** The header's logo is a picture (not the initials), loaded. */
async function expectHeaderLogo(page: Page): Promise<void> {
  const logo = page.getByTestId('token-header').getByTestId('token-logo');
  await expect(logo).toBeVisible();
  await expect.poll(() => logo.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
}

test('real tokens on a chain market: names, marks, logos and prices from the registry and the chain, and a registry correction reaching the open page', async ({
  page,
  request,
}, testInfo) => {
  test.setTimeout(120_000);
  const world = await startWorld();
  const server = await ServerProcess.create({
    logFile: testInfo.outputPath('server.log'),
    market: [
      '--source',
      'chain',
      '--ogmios',
      world.ogmios.url,
      '--chain-start',
      `${world.anchor.slot}.${world.anchor.id}`,
      '--kupo',
      world.kupo.url,
      '--token-registry',
      world.registry.url,
      '--token-registry-refresh',
      '2s',
      '--ipfs-gateway',
      world.ipfs.origin,
    ],
    testControls: false,
    // As for the other flows' server (playwright.config.ts): this flow opens five pages in a few seconds from one
    // address, which is not a user; the per-address budget of whole-market lists is tested in tests/gateway.
    env: { GATEWAY_LIST_REQUESTS_PER_MINUTE_PER_ADDRESS: '0', GATEWAY_LIST_BYTES_PER_MINUTE_PER_ADDRESS: '0' },
  });
  try {
    await server.start();
    const origin = server.origin;
    const health = async () => (await (await request.get(`${origin}/healthz`)).json()) as Health;
    // The chain followed to its tip, every token looked up, the logos fetched.
    await expect
      .poll(
        async () => {
          const h = await health();
          return (
            h.chain.tipSlot === world.tipSlot &&
            h.identity?.pending === 0 &&
            h.identity.logos?.pending === 0 &&
            h.identity.logos.fetched >= 2
          );
        },
        { timeout: 45_000, message: 'the server is at the tip with every token named and its logos fetched' },
      )
      .toBe(true);

    // MIN/ADA: at the real pool's price (about 0.0426 ADA, the synthetic swaps moving it a little), named by the
    // registry, with its logo and the "verified" mark.
    const minPool = syntheticPoolId(world.pools.min);
    const minPrice = (await poolStats(request, minPool, origin)).current_price;
    expect(minPrice).toBeGreaterThan(0.042);
    expect(minPrice).toBeLessThan(0.045);
    await open(page, origin, await symbolOf(request, origin, world.pools.min));
    await expect(page.getByTestId('header-name')).toHaveText('Minswap');
    await expect(page.getByTestId('header-ticker')).toHaveText('MIN');
    await expect(page.getByTestId('identity-mark')).toHaveAttribute('data-source', 'registry');
    await expect(page.getByRole('img', { name: 'verified (registry)' })).toBeVisible();
    await expect.poll(() => headerPrice(page).then((p) => close(p, minPrice, 1e-6))).toBe(true);
    await expectHeaderLogo(page);
    await page.screenshot({ path: testInfo.outputPath('min.png') });

    // USDM: its on-chain (CIP-68) name and ticker, its ipfs:// logo, the on-chain mark; priced with its 6 decimals.
    await open(page, origin, await symbolOf(request, origin, world.pools.usdm));
    await expect(page.getByTestId('header-ticker')).toHaveText('USDM');
    await expect(page.getByTestId('identity-mark')).toHaveAttribute('data-source', 'cip68');
    await expect(page.getByRole('img', { name: 'on-chain metadata (CIP-68)' })).toBeVisible();
    await expectHeaderLogo(page);
    const usdmPrice = (await poolStats(request, syntheticPoolId(world.pools.usdm), origin)).current_price;
    expect(usdmPrice).toBeGreaterThan(2.9);
    expect(usdmPrice).toBeLessThan(3.2);

    // The look-alike: its asset name, marked unverified, no logo of its own (initials); though it came first, the
    // plain ticker is the real MIN's, the look-alike's told apart by its policy.
    await open(page, origin, await symbolOf(request, origin, world.pools.lookAlike));
    await expect(page.getByTestId('header-ticker')).toHaveText(/^MIN-7a7a7a/);
    await expect(page.getByTestId('identity-mark')).toHaveAttribute('data-source', 'asset-name');
    await expect(page.getByRole('img', { name: 'unverified' })).toBeVisible();
    await expect(page.getByTestId('token-header').getByTestId('token-logo-fallback')).toBeVisible();
    await page.screenshot({ path: testInfo.outputPath('look-alike.png') });

    // INDY, named by a registry entry that gives it 0 decimals: its price is 10^6 too low.
    const indyPool = syntheticPoolId(world.pools.indy);
    const wrong = (await poolStats(request, indyPool, origin)).current_price;
    expect(wrong).toBeLessThan(1e-5);
    await open(page, origin, await symbolOf(request, origin, world.pools.indy));
    await expect(page.getByTestId('header-ticker')).toHaveText('INDY');
    await expect.poll(() => headerPrice(page).then((p) => close(p, wrong, 1e-6))).toBe(true);
    await page.evaluate(() => ((window as unknown as { identityMarker?: number }).identityMarker = 1));
    // Loads of a document (the URL may change in place: a pair renamed takes its new name with replaceState).
    let navigations = 0;
    page.on('load', () => void navigations++);

    // The registry corrects it to 6: asked again within its refresh, the open page follows — header and chart.
    world.registry.set([indyWith(6)]);
    await expect
      .poll(async () => close((await poolStats(request, indyPool, origin)).current_price, wrong * 1e6, 1e-9), {
        timeout: 20_000,
        message: 'the service serves the corrected price, 10^6 times the wrong one',
      })
      .toBe(true);
    const right = (await poolStats(request, indyPool, origin)).current_price;
    expect(right).toBeGreaterThan(0.6);
    expect(right).toBeLessThan(0.7);
    await expect
      .poll(() => headerPrice(page).then((p) => close(p, right, 1e-6)), {
        timeout: 15_000,
        message: 'the header shows the corrected price',
      })
      .toBe(true);
    await expect
      .poll(async () => close((await chartAttributes(page)).lastClose, right, 1e-6), {
        timeout: 15_000,
        message: "the chart's last candle shows the corrected price",
      })
      .toBe(true);
    expect(
      await page.evaluate(() => (window as unknown as { identityMarker?: number }).identityMarker),
      'the page was not reloaded',
    ).toBe(1);
    expect(navigations, 'documents loaded').toBe(0);

    // WMT, unknown to the registry: its asset name, unverified, 10^6 off. The registry learns it while its page is open.
    const wmtPool = syntheticPoolId(world.pools.wmt);
    const unnamed = (await poolStats(request, wmtPool, origin)).current_price;
    await open(page, origin, await symbolOf(request, origin, world.pools.wmt));
    await expect(page.getByTestId('header-name')).toHaveText('worldmobiletoken');
    await expect(page.getByTestId('identity-mark')).toHaveAttribute('data-source', 'asset-name');
    await page.evaluate(() => ((window as unknown as { identityMarker?: number }).identityMarker = 2));
    navigations = 0;
    world.registry.set([WMT_ENTRY]);
    await expect(page.getByTestId('header-name')).toHaveText('World Mobile Token', { timeout: 20_000 });
    await expect(page.getByTestId('header-ticker')).toHaveText('WMT');
    await expect(page.getByTestId('identity-mark')).toHaveAttribute('data-source', 'registry');
    await expect
      .poll(() => headerPrice(page).then((p) => close(p, unnamed * 1e6, 1e-6)), {
        timeout: 15_000,
        message: "the header shows WMT's price with its decimals",
      })
      .toBe(true);
    expect(await page.evaluate(() => (window as unknown as { identityMarker?: number }).identityMarker)).toBe(2);
    expect(navigations, 'documents loaded').toBe(0);
  } finally {
    await server.dispose();
    await stopWorld(world);
  }
});
