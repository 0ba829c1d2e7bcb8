import { act, render, screen } from '@testing-library/react';
import { Suspense, useLayoutEffect } from 'react';
import { describe, expect, it, vi } from 'vitest';
import { lazyPart } from '../../src/app/lib/lazy-part';

/** lib/lazy-part: a lazy part preloaded before its first render renders at once, never its fallback. */

function Fallback({ seen }: { seen: () => void }) {
  // Called at every commit of the fallback: a fallback that is never committed is never seen.
  useLayoutEffect(() => seen());
  return <p>Loading…</p>;
}

function Overview({ group }: { group: string }) {
  return <p>Overview of {group}</p>;
}

describe('lazyPart', () => {
  it('renders a preloaded part in the first commit, with no fallback shown before it', async () => {
    const load = vi.fn(() => Promise.resolve(Overview));
    const { Part, preload } = lazyPart(load);
    await preload();
    const seen = vi.fn();
    render(
      <Suspense fallback={<Fallback seen={seen} />}>
        <Part group="Aggregate" />
      </Suspense>,
    );
    expect(screen.getByText('Overview of Aggregate')).toBeTruthy();
    expect(seen).not.toHaveBeenCalled();
    // Preloading again, or rendering, loads nothing more.
    await preload();
    expect(load).toHaveBeenCalledTimes(1);
  });

  it('suspends as React.lazy when not preloaded: the fallback, then the part', async () => {
    let resolve: (component: typeof Overview) => void = () => undefined;
    const { Part } = lazyPart(() => new Promise<typeof Overview>((r) => (resolve = r)));
    const seen = vi.fn();
    render(
      <Suspense fallback={<Fallback seen={seen} />}>
        <Part group="MinswapV2" />
      </Suspense>,
    );
    expect(screen.getByText('Loading…')).toBeTruthy();
    expect(seen).toHaveBeenCalled();
    await act(async () => resolve(Overview));
    expect(await screen.findByText('Overview of MinswapV2')).toBeTruthy();
  });

  it('asks again for a chunk whose preload failed', async () => {
    const load = vi
      .fn<() => Promise<typeof Overview>>()
      .mockRejectedValueOnce(new TypeError('Failed to fetch dynamically imported module: /assets/overview.js'))
      .mockResolvedValue(Overview);
    const { Part, preload } = lazyPart(load);
    await expect(preload()).rejects.toThrow('Failed to fetch dynamically imported module');
    await preload();
    expect(load).toHaveBeenCalledTimes(2);
    render(<Part group="Aggregate" />);
    expect(screen.getByText('Overview of Aggregate')).toBeTruthy();
  });
});
