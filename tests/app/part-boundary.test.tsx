import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { lazy, Suspense, useState } from 'react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isChunkFailure, PartBoundary } from '../../src/app/components/part-boundary';

/** components/part-boundary: a part of the page that fails says so in its place; the rest stays. */

const CHROMIUM = 'Failed to fetch dynamically imported module: http://127.0.0.1:4173/assets/trades-B0kRc6d7.js';

describe('PartBoundary', () => {
  afterEach(() => vi.restoreAllMocks());

  it('knows a chunk that could not load by the words of each browser', () => {
    expect(isChunkFailure(new TypeError(CHROMIUM))).toBe(true);
    expect(isChunkFailure(new TypeError('error loading dynamically imported module: http://x/a.js'))).toBe(true);
    expect(isChunkFailure(new TypeError('Importing a module script failed.'))).toBe(true);
    expect(isChunkFailure(new Error('Unable to preload CSS for /assets/overview.css'))).toBe(true);
    expect(isChunkFailure(new Error('Cannot read properties of undefined'))).toBe(false);
    expect(isChunkFailure('Failed to fetch dynamically imported module')).toBe(false);
  });

  it('shows a lazy part whose chunk failed as an alert with a reload, and keeps its neighbours', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const reload = vi.fn();
    // What React.lazy gets from import() when the chunk cannot be fetched.
    const Tape = lazy(() => Promise.reject(new TypeError(CHROMIUM)));
    render(
      <div>
        <p>The chart</p>
        <PartBoundary label="The trades" testId="tape-part-error" reload={reload}>
          <Suspense fallback={null}>
            <Tape />
          </Suspense>
        </PartBoundary>
      </div>,
    );
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('The trades could not load');
    expect(screen.getByTestId('tape-part-error-message')).toHaveTextContent(
      `Its code could not be fetched (${CHROMIUM}). Reload the page to try again`,
    );
    expect(screen.getByText('The chart')).toBeInTheDocument();
    // A Retry would meet the same failed module: only a reload is offered.
    expect(screen.queryByRole('button', { name: 'Retry' })).toBeNull();
    await userEvent.click(screen.getByRole('button', { name: 'Reload the page' }));
    expect(reload).toHaveBeenCalledOnce();
  });

  it('offers a Retry for another error, and tries again by itself when its key changes', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => undefined);
    let failing = true;
    function Part({ pair }: { pair: string }) {
      if (failing) throw new Error(`no numbers for ${pair}`);
      return <p>Numbers of {pair}</p>;
    }
    function Page() {
      const [pair, setPair] = useState('SNEK');
      return (
        <>
          <button type="button" onClick={() => setPair('MIN')}>
            Another pair
          </button>
          <PartBoundary label="The pools of this pair" testId="pools-part-error" resetKey={pair}>
            <Part pair={pair} />
          </PartBoundary>
        </>
      );
    }
    render(<Page />);
    expect(screen.getByRole('alert')).toHaveTextContent('The pools of this pair failed');
    expect(screen.getByTestId('pools-part-error-message')).toHaveTextContent('no numbers for SNEK');
    // Still failing: Retry shows it again.
    await userEvent.click(screen.getByRole('button', { name: 'Retry' }));
    expect(screen.getByTestId('pools-part-error-message')).toHaveTextContent('no numbers for SNEK');
    // Another pair: the part tries again by itself.
    await userEvent.click(screen.getByRole('button', { name: 'Another pair' }));
    expect(screen.getByTestId('pools-part-error-message')).toHaveTextContent('no numbers for MIN');
    failing = false;
    await userEvent.click(screen.getByRole('button', { name: 'Retry' }));
    expect(screen.getByText('Numbers of MIN')).toBeInTheDocument();
    expect(screen.queryByRole('alert')).toBeNull();
  });
});
