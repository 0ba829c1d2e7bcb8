import { render, screen, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { ChartLegend } from '../../src/app/features/chart/components/chart-legend';
import { legendOf, type LegendBar } from '../../src/app/features/chart/lib/chart-style';
import { asSeconds } from '../../src/shared/time';

/** What the legend reads of the chart controller: the bar under the crosshair. */
function legendSource(bar: LegendBar) {
  return { subscribeLegend: () => () => {}, getLegend: () => bar };
}

const bar = (open: number, close: number) => legendOf({ time: asSeconds(1_738_332_000), open, high: Math.max(open, close), low: Math.min(open, close), close, volume: 1234.5, tvl: 8_590_000 });

describe('chart legend', () => {
  it('colours a change by its rounded value: 0.00% is neither up nor down', () => {
    render(<ChartLegend controller={legendSource(bar(1, 1.00004))} pricescale={10_000} title="ADA/SNEK on Aggregate" />);
    const change = screen.getByText('0.00%');
    expect(change).toHaveClass('trend--flat');
  });

  it('writes prices with an adaptive precision while the pricescale is unknown (0: a stand-in symbol)', () => {
    render(<ChartLegend controller={legendSource(bar(1.2, 1.23456))} pricescale={0} title={undefined} />);
    expect(screen.getByTestId('legend-close')).toHaveTextContent('1.2346');
  });

  it('is a valid description list: only dt/dd groups inside the <dl>, the title outside', () => {
    render(<ChartLegend controller={legendSource(bar(1, 1.1))} pricescale={100} title="ADA/SNEK on Aggregate" />);
    const legend = screen.getByTestId('chart-legend');
    expect(legend).toHaveTextContent('ADA/SNEK on Aggregate');
    const list = legend.querySelector('dl');
    expect(list).not.toBeNull();
    for (const child of Array.from(list?.children ?? [])) {
      expect(child.tagName).toBe('DIV');
      expect(Array.from(child.children).map((c) => c.tagName)).toEqual(['DT', 'DD']);
    }
    expect(screen.getByRole('group', { name: 'Bar values' })).toBe(legend);
  });

  it('has a button that shows every field when the legend is compact (narrow screens)', async () => {
    const user = userEvent.setup();
    render(<ChartLegend controller={legendSource(bar(1, 1.1))} pricescale={100} title="ADA/SNEK on Aggregate" />);
    const legend = screen.getByTestId('chart-legend');
    const more = within(legend).getByRole('button', { name: 'All bar values' });
    expect(more).toHaveAttribute('aria-expanded', 'false');
    expect(legend).toHaveAttribute('data-expanded', 'false');
    await user.click(more);
    expect(more).toHaveAttribute('aria-expanded', 'true');
    expect(legend).toHaveAttribute('data-expanded', 'true');
  });
});
