import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { appTestBed, chartReady } from './render-app';

const bed = appTestBed();

const LANDMARKS = ['banner', 'complementary', 'contentinfo', 'form', 'main', 'navigation', 'region', 'search'];

/** Focusable things: none may sit inside a chart (a slider or an image: its content is not exposed). */
const FOCUSABLE = 'a[href], button, input, select, textarea, [tabindex]:not([tabindex="-1"])';

describe('accessibility', () => {
  it('names the token header and the watchlist once each, and keeps links out of the chart images', async () => {
    const user = userEvent.setup();
    const app = bed.open('/?symbol=ADA.SNEK_Aggregate_Pool1&res=60');
    await chartReady(app.container);
    const header = await screen.findByTestId('token-header', {}, { timeout: 10_000 });
    // A landmark whose name is announced: "Snek (SNEK)" or the decoded asset name.
    expect(screen.getByRole('region', { name: /\(SNEK\)$/ })).toBe(header);
    expect(LANDMARKS.flatMap((role) => screen.queryAllByRole(role, { name: 'Watchlist' }))).toHaveLength(1);

    expect(screen.getByTestId('price-chart').querySelectorAll(FOCUSABLE)).toHaveLength(0);
    // The attribution lightweight-charts' licence asks for (its NOTICE and a link to TradingView), on the page.
    const footer = screen.getByRole('contentinfo');
    expect(footer).toHaveTextContent('TradingView Lightweight Charts');
    expect(footer).toHaveTextContent(/Copyright © 2023 TradingView, Inc\./);
    expect(screen.getByRole('link', { name: /TradingView/ })).toHaveAttribute('href', 'https://www.tradingview.com/');

    await user.click(screen.getByRole('button', { name: 'Compare DEX pools with Aggregate' }));
    await waitFor(() => expect(Number(screen.getByTestId('compare-chart').dataset.series)).toBeGreaterThan(1), {
      timeout: 10_000,
    });
    expect(screen.getByTestId('compare-chart').querySelectorAll(FOCUSABLE)).toHaveLength(0);
  });
});
