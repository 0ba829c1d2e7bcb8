import { screen, waitFor } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { appTestBed, chartElement } from './render-app';

/**
 * The token header marks where the token's identity comes from (/gw/v1/token-info's `source`): in the simulated
 * market, SNEK's real registry identity, USDM's on-chain CIP-68 metadata, and a generated token known by nothing but
 * its asset name, unverified.
 */
const bed = appTestBed();

/** A generated token with an ADA pair and a ticker no other token has: its Aggregate's symbol name. */
function generatedSymbol(): string {
  const { market } = bed.tp.runtime;
  const tickers = [...market.tokens.values()].map((t) => t.ticker);
  const token = [...market.tokens.values()].find(
    (t) =>
      t.id > 40 &&
      /^[A-Z0-9]+$/.test(t.ticker) &&
      tickers.filter((ticker) => ticker === t.ticker).length === 1 &&
      market.adaPairOf(t.unit) !== undefined,
  );
  if (!token) throw new Error('no generated token with an ADA pair');
  return `ADA.${token.ticker}_Aggregate_Pool1`;
}

async function markOf(symbol: string): Promise<HTMLElement> {
  const { container } = bed.open(`/?symbol=${encodeURIComponent(symbol)}`);
  await waitFor(() => expect(chartElement(container).dataset.symbol).toBe(symbol), { timeout: 10_000 });
  return screen.findByTestId('identity-mark', {}, { timeout: 10_000 });
}

describe("the token header's identity mark", () => {
  it('says a registry token is verified by the registry', async () => {
    const mark = await markOf('ADA.SNEK_Aggregate_Pool1');
    expect(mark).toHaveAccessibleName('verified (registry)');
    expect(mark).toHaveAttribute('title', 'verified (registry)');
    expect(mark).toHaveAttribute('data-source', 'registry');
  });

  it("says a CIP-68 token's identity is its on-chain metadata", async () => {
    const mark = await markOf('ADA.USDM_Aggregate_Pool1');
    expect(mark).toHaveAccessibleName('on-chain metadata (CIP-68)');
  });

  it('marks a token known by its asset name alone unverified, beside its name', async () => {
    const mark = await markOf(generatedSymbol());
    expect(mark).toHaveAccessibleName('unverified');
    expect(mark).toHaveAttribute('title', 'unverified');
    await waitFor(() => expect(screen.getByTestId('header-name').nextElementSibling).toBe(mark));
  });
});
