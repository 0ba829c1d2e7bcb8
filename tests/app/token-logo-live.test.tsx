import type { ServerResponse } from 'node:http';
import { screen, waitFor } from '@testing-library/react';
import { afterAll, describe, expect, it } from 'vitest';
import { logoPng } from '../../src/service/identity/logos/logo-image';
import { runtimeInternals } from '../../src/service/runtime-internals';
import { symbolInfoResponseSchema } from '../../src/shared/api/symbol-info';
import { addUnknownTokenPool } from '../support/ada-pools';
import { cip26ByTicker } from '../support/cip26-sample';
import { ensureDefined } from '../support/ensure';
import { FakeTokenRegistry } from '../support/fake-token-registry';
import { startWebServer, type WebServer } from '../support/web-servers';
import { appTestBed, chartReady } from './render-app';

/**
 * A token's logo fetched while the page is open reaches it without a reload (docs/chain.md "Logos"): the registry
 * names MIN's logo as an `ipfs://` URI (a fake metadata server, MIN's real entry otherwise), the operator's IPFS
 * gateway (a local server) holds it until the page shows MIN without a logo, then gives MIN's real registry PNG. The
 * service stores it, tells its streams (a metadata line), the gateway tells the page (a `metadata` event), and the
 * header shows the logo.
 */
const MIN = cip26ByTicker('MIN');
const UNIT = String(MIN.subject);
const CID = 'bafkreibn7ov4xv5wase5bqvbf2b3ibuyn6iydciuj2krw7ulxd62btfanm';
const PNG = Buffer.from(String((MIN.logo as { value?: unknown }).value), 'base64');
const NOW = 1_718_000_000;

let release: () => void = () => undefined;
const held = new Promise<void>((resolve) => (release = resolve));
let gateway: WebServer | undefined;
let registry: FakeTokenRegistry | undefined;
afterAll(async () => {
  release();
  await gateway?.close();
  await registry?.close();
});

const bed = appTestBed(async () => {
  gateway = await startWebServer((request, response: ServerResponse) => {
    if (request.url === `/ipfs/${CID}`) void held.then(() => response.writeHead(200).end(PNG));
    else response.writeHead(404).end();
  });
  registry = await FakeTokenRegistry.start([{ ...MIN, logo: { ...(MIN.logo as object), value: `ipfs://${CID}` } }]);
  return {
    env: { SOURCE: 'none', TOKEN_REGISTRY_URL: registry.url, IPFS_GATEWAY: gateway.origin },
    nowMs: () => (NOW + 600) * 1000,
  };
});

describe('a token logo fetched while the page is open', () => {
  it('replaces the initials in the header without a reload', async () => {
    const { ingestor } = runtimeInternals(bed.tp.runtime);
    const pool = addUnknownTokenPool(ingestor, {
      unit: UNIT,
      ticker: 'MIN',
      poolId: 'ab'.repeat(28),
      lovelace: 1e12,
      tokens: 3e13,
    });
    await ingestor.commit();
    await ingestor.swapOnce(pool, 1.01e12, 2.98e13, NOW, 1e10, 'trade-1');
    await ingestor.commit();
    bed.tp.platform.startLive();
    // Named from the registry (its logo still held by the gateway).
    await waitFor(() => expect(bed.tp.runtime.market.tokens.get(UNIT)?.name).toBe('Minswap'), { timeout: 20_000 });

    // The pair's Aggregate (DEX pools' pages do not stream: they get no live events).
    const info = symbolInfoResponseSchema.parse(
      await (await bed.tp.fetch('/gw/v1/symbol_info?group=Aggregate')).json(),
    );
    const symbol = ensureDefined(info.symbol[0]);
    const app = bed.open(`/?symbol=${encodeURIComponent(symbol)}`);
    await chartReady(app.container, symbol);
    const header = await screen.findByTestId('token-header', {}, { timeout: 10_000 });
    await waitFor(() => expect(header.querySelector('[data-testid="token-logo-fallback"]')).not.toBeNull(), {
      timeout: 10_000,
    });

    release();
    const made = await logoPng(PNG);
    if (!made.ok) throw new Error(made.reason);
    await waitFor(
      () =>
        expect(header.querySelector('[data-testid="token-logo"]')).toHaveAttribute(
          'src',
          `data:image/png;base64,${made.png.toString('base64')}`,
        ),
      { timeout: 20_000 },
    );
  });
});
