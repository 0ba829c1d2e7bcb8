import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterAll, describe, expect, it } from 'vitest';
import { hasInvisible } from '../../src/shared/visible-text';
import { importLookAlikes, LOOK_ALIKE_DAY, LOOK_ALIKES } from '../support/look-alikes';
import { appTestBed, chartReady } from './render-app';

/**
 * The app shows names anyone can mint (tickers, registry names, asset names) with their invisible and
 * bidi-control characters written out (`\u202E`), on a market of SNEK's look-alikes (issue 29).
 */
const root = mkdtempSync(join(tmpdir(), 'app-look-alikes-'));
const bed = appTestBed(async () => {
  const dataDir = join(root, 'data');
  await importLookAlikes(dataDir);
  return { dataDir, env: { SOURCE: 'none' }, nowMs: () => (LOOK_ALIKE_DAY + 86_400) * 1000 };
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('look-alike names in the app', () => {
  it('search shows the look-alikes of SNEK as they differ, nothing invisible in any option', async () => {
    const user = userEvent.setup();
    const { container } = bed.open(`/?symbol=${encodeURIComponent('ADA.SNEK_MinswapV2_Pool1')}&group=MinswapV2`);
    await chartReady(container, 'ADA.SNEK_MinswapV2_Pool1');
    const input = screen.getByRole('combobox', { name: 'Search pairs' });
    await user.click(input);
    await waitFor(() => expect(screen.getByTestId('pair-search')).toHaveAttribute('data-ready', 'true'), {
      timeout: 10_000,
    });
    await user.type(input, 'SNEK');
    const options = await within(screen.getByRole('listbox', { name: 'Pairs' })).findAllByRole('option');
    const texts = options.map((option) => option.textContent ?? '');
    for (const text of texts) expect(hasInvisible(text), text).toBe(false);
    // The zero-width one, as the service named it, and its registry name written out too.
    expect(texts.some((text) => text.includes('SNEK\\u200B-') && text.includes('Snek\\u200B'))).toBe(true);
    // The word-joiner one is found by what it shows.
    await user.clear(input);
    await user.type(input, 'u2060');
    const joiner = await within(screen.getByRole('listbox', { name: 'Pairs' })).findAllByRole('option');
    expect(joiner[0]?.textContent).toContain('SNEK\\u2060-');
  });

  it("the token header writes out a name's right-to-left override", async () => {
    const kens = LOOK_ALIKES.find((token) => token.ticker === '\u202EKENS');
    const name = `ADA.${kens?.shown ?? ''}_MinswapV2_Pool1`;
    const { container } = bed.open(`/?symbol=${encodeURIComponent(name)}&group=MinswapV2`);
    await chartReady(container, name);
    await waitFor(() => expect(screen.getByTestId('header-name')).toHaveTextContent('\\u202Ekens'));
    expect(screen.getByTestId('header-ticker')).toHaveTextContent('\\u202EKENS');
    expect(hasInvisible(screen.getByTestId('token-header').textContent ?? '')).toBe(false);
  });
});
