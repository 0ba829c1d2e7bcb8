import { sourceBadgeOf } from '../../src/app/features/shell/lib/source-badge';
import { screen, waitFor } from '@testing-library/react';
import { afterAll, describe, expect, it } from 'vitest';
import { gatewayInfoSchema } from '../../src/shared/api/gateway';
import { FakeOgmios } from '../support/fake-ogmios';
import { hasPrise, realOgmiosBlocks } from '../support/prise';
import { appTestBed } from './render-app';

/** The badge says where prices come from: the chain source with its state and lag, or imported data. */
let fake: FakeOgmios | undefined;
afterAll(async () => fake?.close());

describe.skipIf(!hasPrise)('the source badge on the chain source', () => {
  const bed = appTestBed(async () => {
    const blocks = realOgmiosBlocks();
    fake = await FakeOgmios.start(blocks);
    const start = blocks[0];
    return { env: { SOURCE: 'chain', OGMIOS_URL: fake.url, CHAIN_START: `${start?.slot}.${start?.id}` } };
  });

  it('shows the chain, its state and how far behind the node it is; no "Simulated market"', async () => {
    bed.tp.runtime.startLive();
    await waitFor(
      async () => {
        const info = gatewayInfoSchema.parse(await (await bed.tp.fetch('/gw/v1/info')).json());
        // Live within 2 minutes of the node's tip; wait for the whole chain (all ten blocks) to be applied.
        expect(info.market?.chain).toMatchObject({ state: 'live', tipSlot: 115_586_077 });
      },
      { timeout: 15_000 },
    );
    const info = gatewayInfoSchema.parse(await (await bed.tp.fetch('/gw/v1/info')).json());
    expect(info).toMatchObject({
      simulated: false,
      market: { source: 'chain', chain: { lagSeconds: 0, tipSlot: 115_586_077 } },
    });
    bed.open('/');
    expect(await screen.findByTestId('source-badge')).toHaveTextContent('Cardano chain · live · 0 s behind the chain');
    expect(screen.queryByTestId('simulated-badge')).toBeNull();
  });
});

describe('the source badge with imported data only', () => {
  const bed = appTestBed({ env: { SOURCE: 'none' } });
  it('says so, and the market is empty (no simulated market created beside the imports)', async () => {
    const info = gatewayInfoSchema.parse(await (await bed.tp.fetch('/gw/v1/info')).json());
    expect(info).toMatchObject({ simulated: false, market: { source: 'none' } });
    expect(bed.tp.runtime.market.pools.size).toBe(0);
    bed.open('/');
    expect(await screen.findByTestId('source-badge')).toHaveTextContent('Imported data');
  });
});

describe('the chain badge’s words', () => {
  it('says "catching up" and how far behind while the source syncs, and "live" with seconds once at the tip', () => {
    const chain = (state: string, lagSeconds: number | null) => ({
      market: { source: 'chain', chain: { state, lagSeconds, tipSlot: 1 } },
    });
    expect(sourceBadgeOf(chain('syncing', 3 * 3_600))?.text).toBe('Cardano chain · catching up · 3 h behind the chain');
    expect(sourceBadgeOf(chain('syncing', 600))?.text).toBe('Cardano chain · catching up · 10 min behind the chain');
    expect(sourceBadgeOf(chain('live', 2))?.text).toBe('Cardano chain · live · 2 s behind the chain');
    expect(sourceBadgeOf(chain('connecting', null))?.text).toBe('Cardano chain · connecting');
  });
});
