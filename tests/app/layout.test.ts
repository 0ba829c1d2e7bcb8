import { describe, expect, it } from 'vitest';
import { parseCell, SINGLE_LAYOUT } from '../../src/app/lib/layout';
import { withCell, withKind } from '../../src/app/lib/layout-edit';
import { formatSelection, parseSelection, sameSelection } from '../../src/app/lib/selection';

const first = { group: 'Aggregate', symbol: 'ADA.SNEK_Aggregate_Pool1' };

describe('layouts in the URL', () => {
  it('one chart writes nothing and reads as one chart', () => {
    const selection = parseSelection('?group=Aggregate&symbol=ADA.SNEK_Aggregate_Pool1&res=60');
    expect(selection.layout).toEqual(SINGLE_LAYOUT);
    expect(formatSelection(selection)).toBe('?group=Aggregate&symbol=ADA.SNEK_Aggregate_Pool1&res=60');
    // Cells of a one-chart URL are not kept.
    expect(parseSelection('?layout=1&c2=60,Minswap,X&sync=1').layout).toEqual(SINGLE_LAYOUT);
  });

  it('four charts with their own pair, group and resolution read back the same, in step or not', () => {
    const base = parseSelection('?group=Aggregate&symbol=ADA.SNEK_Aggregate_Pool1&res=60');
    const four = withCell(withKind(base.layout, '4', first), 3, {
      group: 'Minswap',
      symbol: 'ADA.MIN_Minswap_Pool2',
      resolution: '1' as never,
    });
    const selection = { ...base, layout: { ...four, sync: true } };
    const search = formatSelection(selection, '?utm=x&c4=junk');
    expect(search).toBe(
      '?group=Aggregate&symbol=ADA.SNEK_Aggregate_Pool1&res=60&layout=4&c2=1D%2CAggregate%2CADA.SNEK_Aggregate_Pool1&c3=1%2CMinswap%2CADA.MIN_Minswap_Pool2&c4=5%2CAggregate%2CADA.SNEK_Aggregate_Pool1&sync=1&utm=x',
    );
    const read = parseSelection(search);
    expect(read.layout).toEqual(selection.layout);
    expect(sameSelection(read, selection)).toBe(true);
    expect(sameSelection(read, { ...selection, layout: { ...selection.layout, sync: false } })).toBe(false);
    expect(
      sameSelection(read, { ...selection, layout: withCell(selection.layout, 2, { resolution: '5' as never }) }),
    ).toBe(false);
  });

  it("charts the URL does not describe, or describes badly, take the defaults (the first chart's pair at other resolutions)", () => {
    const layout = parseSelection(
      '?group=Minswap&symbol=ADA.X_Minswap_Pool1&layout=4&c2=weekly,Aggregate,Y&c3=15,,Z',
    ).layout;
    expect(layout.cells).toEqual([
      { group: 'Minswap', symbol: 'ADA.X_Minswap_Pool1', resolution: '1D' },
      { group: 'Minswap', symbol: 'ADA.X_Minswap_Pool1', resolution: '15' },
      { group: 'Minswap', symbol: 'ADA.X_Minswap_Pool1', resolution: '5' },
    ]);
    expect(parseSelection('?layout=2').layout.kind).toBe('2h');
    expect(parseSelection('?layout=3').layout.kind).toBe('1');
    // The symbol is last and free text (commas and all); empty: the group's deepest pair.
    expect(parseCell('1h,Aggregate,ADA.A,B')).toEqual({ resolution: '60', group: 'Aggregate', symbol: 'ADA.A,B' });
    expect(parseCell('60,Aggregate,')).toEqual({ resolution: '60', group: 'Aggregate', symbol: undefined });
    expect(parseCell('60,Aggregate')).toBeUndefined();
  });

  it('changing the layout keeps the charts it had and adds new ones after them', () => {
    const two = withKind(SINGLE_LAYOUT, '2v', first);
    const changed = withCell(two, 2, { symbol: 'ADA.MIN_Aggregate_Pool1' });
    const four = withKind({ ...changed, sync: true }, '4', first);
    expect(four.cells[0]?.symbol).toBe('ADA.MIN_Aggregate_Pool1');
    expect(four.cells).toHaveLength(3);
    expect(four.sync).toBe(true);
    expect(withKind(four, '1', first)).toEqual(SINGLE_LAYOUT);
  });
});
