import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { screen, waitFor, within } from '@testing-library/react';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { NO_STABLECOIN_REASON } from '../../src/app/hooks/use-ada-usd';
import { symbolInfoResponseSchema } from '../../src/shared/api/symbol-info';
import { tradesResponseSchema } from '../../src/shared/api/extensions';
import { ensureDefined } from '../support/ensure';
import { FakeOgmios } from '../support/fake-ogmios';
import { hasPrise, realOgmiosBlocks } from '../support/prise';
import { startServerProcess } from '../support/server-process';
import { appTestBed, chartReady } from './render-app';

/**
 * The app on a market read from the Cardano chain: prise's real mainnet blocks, followed through a fake
 * Ogmios by a real server process (`serve --source chain`; its decoders run in Node, not in this file's
 * jsdom), then served from that data directory in-process. Its trade links to its transaction, and the
 * market has no stablecoin pool, so USD prices are off, saying why.
 */
const dir = mkdtempSync(join(tmpdir(), 'chain-market-'));
let fake: FakeOgmios | undefined;
afterAll(async () => {
  await fake?.close();
  rmSync(dir, { recursive: true, force: true });
});
afterEach(() => {
  vi.restoreAllMocks();
});

describe.skipIf(!hasPrise)('a market from the chain', () => {
  const bed = appTestBed(async () => {
    const blocks = realOgmiosBlocks();
    fake = await FakeOgmios.start(blocks);
    const start = ensureDefined(blocks[0]);
    const follower = await startServerProcess({
      dataDir: dir,
      args: ['--source', 'chain', '--ogmios', fake.url, '--chain-start', `${start.slot}.${start.id}`],
    });
    try {
      const health = async () =>
        ((await (await fetch(`${follower.origin}/healthz`)).json()) as { chain: { tipSlot: number | null } }).chain
          .tipSlot;
      await vi.waitUntil(async () => (await health()) === blocks.at(-1)?.slot, { timeout: 20_000, interval: 50 });
    } finally {
      await follower.stop();
    }
    return { dataDir: dir, env: { SOURCE: 'chain', OGMIOS_URL: fake.url } };
  });

  /** The Aggregate pool that traded on chain, with its stored trades. */
  async function tradedPool(): Promise<{ symbol: string; id: string }> {
    const symbols = symbolInfoResponseSchema.parse(
      await (await bed.tp.fetch('/gw/v1/symbol_info?group=Aggregate')).json(),
    );
    for (const [i, ticker] of symbols.ticker.entries()) {
      const body = tradesResponseSchema.parse(
        await (await bed.tp.fetch(`/gw/v1/trades?pool=${ticker}&limit=5`)).json(),
      );
      const trade = body.trades[0];
      if (trade) return { symbol: ensureDefined(symbols.symbol[i]), id: trade.id };
    }
    throw new Error('no Aggregate pool traded');
  }

  it('links a chain trade (`txHash#output`) to the transaction on a Cardano explorer; no USD without a stablecoin pool', async () => {
    const traded = await tradedPool();
    const [, hash] = ensureDefined(/^([0-9a-f]{64})#\d+$/.exec(traded.id), `a chain event id, not ${traded.id}`);

    // jsdom lays nothing out: the tape's list gets the height it has on screen, so its virtualizer shows rows.
    vi.spyOn(HTMLElement.prototype, 'clientHeight', 'get').mockImplementation(function (this: HTMLElement) {
      return this.dataset.testid === 'tape-rows' ? 280 : 0;
    });
    const { container } = bed.open(`/?symbol=${traded.symbol}&res=60&cur=usd`);
    await chartReady(container);
    const row = ensureDefined((await screen.findAllByTestId('tape-row', {}, { timeout: 10_000 }))[0]);
    const link = within(row).getByRole('link', { name: /tx/ });
    expect(link).toHaveAttribute('href', `https://cexplorer.io/tx/${hash}`);
    expect(link).toHaveAttribute('target', '_blank');
    expect(link).toHaveAttribute('rel', expect.stringContaining('noopener'));

    // No USDM, DJED, iUSD or USDA pool on this chain's few blocks: USD is off, and says why; prices in ADA.
    const usd = screen.getByRole('button', { name: 'USD' });
    await waitFor(() => expect(usd).toBeDisabled());
    expect(usd).toHaveAccessibleDescription(NO_STABLECOIN_REASON);
    expect(usd).toHaveAttribute('title', NO_STABLECOIN_REASON);
    expect(screen.getByRole('button', { name: 'ADA' })).toHaveAttribute('aria-pressed', 'true');
    expect(screen.getByTestId('price-chart').dataset.currency).toBe('ada');
    expect(within(screen.getByTestId('trades-tape')).getByText('Value (ADA)')).toBeInTheDocument();
  });
});
