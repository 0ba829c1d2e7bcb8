import { act, fireEvent, render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import type { Bar, LibrarySymbolInfo } from '../../src/datafeed';
import { Chart } from '../../src/app/features/chart/lib/chart';
import { DrawingTools } from '../../src/app/features/drawings';
import { loadDrawings, saveDrawings } from '../../src/app/features/drawings/lib/storage';
import { asSeconds } from '../../src/shared/time';

const INFO: LibrarySymbolInfo = {
  name: 'ADA.SNEK_Minswap_Pool1',
  description: 'ADA/SNEK on Minswap',
  type: 'spot',
  session: '24x7',
  timezone: 'Etc/UTC',
  exchange: '',
  listed_exchange: '',
  format: 'price',
  pricescale: 10_000,
  minmov: 1,
};
const START = Date.UTC(2025, 0, 15) / 1000;
const BARS: Bar[] = Array.from({ length: 20 }, (_, i) => ({
  time: asSeconds(START + i * 3600),
  open: 0.002,
  high: 0.0025,
  low: 0.0015,
  close: 0.002,
  volume: 10,
  tvl: 1000,
}));

describe('the drawing tools', () => {
  const charts: Chart[] = [];
  afterEach(() => {
    for (const c of charts.splice(0)) c.dispose();
    localStorage.clear();
  });

  function surface() {
    const container = document.createElement('div');
    document.body.append(container);
    const chart = new Chart(container, {
      theme: 'dark',
      showVolume: true,
      showTvl: false,
      logScale: false,
      timeZone: 'utc',
    });
    charts.push(chart);
    chart.showBars(INFO, '60', BARS);
    return chart.surface();
  }

  it('names every control, picks tools, and selects, colours and deletes a kept drawing from the keyboard’s list', async () => {
    const user = userEvent.setup();
    saveDrawings(localStorage, 'Minswap', INFO.name, [
      {
        id: 'a',
        kind: 'trend',
        points: [
          { time: START, price: 0.002 },
          { time: START + 7200, price: 0.0021 },
        ],
        color: '#3b82f6',
      },
    ]);
    const host = surface();
    const { rerender, unmount } = render(<DrawingTools host={host} group="Minswap" symbol={INFO.name} open={false} />);
    // Closed: nothing shown, the drawings drawn all the same.
    expect(screen.queryByRole('group', { name: 'Drawing tools' })).toBeNull();
    rerender(<DrawingTools host={host} group="Minswap" symbol={INFO.name} open />);
    for (const name of ['Horizontal line', 'Trend line', 'Ray', 'Rectangle', 'Measure', 'Text note'])
      expect(screen.getByRole('button', { name })).toHaveAttribute('aria-pressed', 'false');
    await user.click(screen.getByRole('button', { name: 'Ray' }));
    expect(screen.getByRole('button', { name: 'Ray' })).toHaveAttribute('aria-pressed', 'true');
    expect(screen.getByRole('status')).toHaveTextContent(
      'Ray: click or tap its first point, then its second (or Place).',
    );
    await user.keyboard('{Escape}');
    expect(screen.getByRole('button', { name: 'Ray' })).toHaveAttribute('aria-pressed', 'false');

    const remove = screen.getByRole('button', { name: 'Delete the selected drawing' });
    expect(remove).toBeDisabled();
    await user.click(screen.getByText('Drawings (1)'));
    await user.click(screen.getByRole('button', { name: 'Trend line 1' }));
    expect(screen.getByRole('button', { name: 'Trend line 1' })).toHaveAttribute('aria-pressed', 'true');
    act(() => {
      fireEvent.change(screen.getByLabelText('Drawing colour'), { target: { value: '#ff0000' } });
    });
    expect(loadDrawings(localStorage, 'Minswap', INFO.name)[0]?.color).toBe('#ff0000');
    await user.click(remove);
    expect(screen.getByText('Drawings (0)')).toBeInTheDocument();

    // From the keyboard: a tool, Place, then the arrow keys move it (kept as moved).
    expect(screen.getByRole('button', { name: 'Place the drawing in the middle of the view' })).toBeDisabled();
    await user.click(screen.getByRole('button', { name: 'Horizontal line' }));
    await user.click(screen.getByRole('button', { name: 'Place the drawing in the middle of the view' }));
    const placed = loadDrawings(localStorage, 'Minswap', INFO.name);
    expect(placed.map((d) => d.kind)).toEqual(['hline']);
    screen.getByRole('button', { name: 'Horizontal line 1' }).focus();
    await user.keyboard('{ArrowUp}');
    const up = loadDrawings(localStorage, 'Minswap', INFO.name)[0]?.points[0]?.price ?? 0;
    expect(up).toBeGreaterThan(placed[0]?.points[0]?.price ?? Infinity);
    await user.keyboard('{Delete}');
    expect(screen.getByText('Drawings (0)')).toBeInTheDocument();
    expect(loadDrawings(localStorage, 'Minswap', INFO.name)).toEqual([]);
    unmount();
  });
});
