import { afterEach, describe, expect, it } from 'vitest';
import type { Bar, LibrarySymbolInfo } from '../../src/datafeed';
import { Chart } from '../../src/app/features/chart/lib/chart';
import { DrawingLayer } from '../../src/app/features/drawings/lib/drawing-layer';
import {
  hitTest,
  logicalOfTime,
  rayEnd,
  timeOfLogical,
  type Shape,
} from '../../src/app/features/drawings/lib/geometry';
import { formatPercent, formatSpan, measure } from '../../src/app/features/drawings/lib/model';
import { loadDrawings, MAX_DRAWINGS, parseDrawings, saveDrawings } from '../../src/app/features/drawings/lib/storage';
import { drawingsKey, hasDrawings } from '../../src/app/features/drawings/lib/storage-key';
import { asSeconds } from '../../src/shared/time';

/** A Storage in memory (the browser's localStorage's interface). */
function memory(): Storage & { values: Map<string, string> } {
  const values = new Map<string, string>();
  return {
    values,
    get length() {
      return values.size;
    },
    key: (i: number) => [...values.keys()][i] ?? null,
    clear: () => values.clear(),
    getItem: (key: string) => values.get(key) ?? null,
    setItem: (key: string, value: string) => void values.set(key, String(value)),
    removeItem: (key: string) => void values.delete(key),
  };
}

describe('times and logical indexes', () => {
  // Hourly bars with a missing hour (no trade) between 2 and 4.
  const times = [0, 3600, 7200, 14_400, 18_000];
  it('puts a time between two bars in proportion, and beyond the ends a step per index', () => {
    expect(logicalOfTime(times, 3600, 3600)).toBe(1);
    expect(logicalOfTime(times, 5400, 3600)).toBe(1.5);
    // The gap: 2 h between indexes 2 and 3.
    expect(logicalOfTime(times, 10_800, 3600)).toBe(2.5);
    expect(logicalOfTime(times, -7200, 3600)).toBe(-2);
    expect(logicalOfTime(times, 25_200, 3600)).toBe(6);
    expect(logicalOfTime([], 0, 60)).toBeUndefined();
  });

  it('finds the time again from its index, whatever the time', () => {
    for (const t of [-9000, 0, 1234, 3600, 9999, 14_400, 17_000, 18_000, 40_000]) {
      const logical = logicalOfTime(times, t, 3600);
      expect(logical).toBeDefined();
      expect(timeOfLogical(times, logical ?? 0, 3600)).toBeCloseTo(t, 6);
    }
  });

  it('keeps a minute drawn at 1 minute at its moment on hourly bars', () => {
    const hourly = [0, 3600, 7200];
    // 01:30 lies halfway between the 01:00 and 02:00 bars.
    expect(logicalOfTime(hourly, 5400, 3600)).toBe(1.5);
  });
});

describe('hit tests', () => {
  const shapes: Shape[] = [
    { id: 'h', kind: 'hline', points: [{ x: 50, y: 100 }] },
    {
      id: 't',
      kind: 'trend',
      points: [
        { x: 0, y: 0 },
        { x: 100, y: 100 },
      ],
    },
    {
      id: 'r',
      kind: 'rect',
      points: [
        { x: 200, y: 200 },
        { x: 300, y: 260 },
      ],
    },
    { id: 'n', kind: 'note', points: [{ x: 400, y: 50 }], box: { width: 60, height: 24 } },
    {
      id: 'ray',
      kind: 'ray',
      points: [
        { x: 500, y: 300 },
        { x: 510, y: 300 },
      ],
    },
  ];
  it('takes an end first, then the line or area', () => {
    expect(hitTest(shapes, { x: 98, y: 101 }, 6)).toEqual({ id: 't', handle: 1 });
    expect(hitTest(shapes, { x: 40, y: 42 }, 6)).toEqual({ id: 't', handle: 'body' });
    expect(hitTest(shapes, { x: 700, y: 103 }, 6)).toEqual({ id: 'h', handle: 'body' });
    expect(hitTest(shapes, { x: 250, y: 230 }, 6)).toEqual({ id: 'r', handle: 'body' });
    expect(hitTest(shapes, { x: 430, y: 40 }, 6)).toEqual({ id: 'n', handle: 'body' });
    // A ray goes on past its second point, never back before its first.
    expect(hitTest(shapes, { x: 700, y: 300 }, 6)).toEqual({ id: 'ray', handle: 'body' });
    expect(hitTest(shapes, { x: 480, y: 300 }, 6)).toBeUndefined();
    expect(hitTest(shapes, { x: 150, y: 20 }, 6)).toBeUndefined();
  });

  it('a finger takes more than a mouse', () => {
    expect(hitTest(shapes, { x: 700, y: 112 }, 6)).toBeUndefined();
    expect(hitTest(shapes, { x: 700, y: 112 }, 14)).toEqual({ id: 'h', handle: 'body' });
  });

  it('ends a ray at the pane edge', () => {
    expect(rayEnd({ x: 10, y: 10 }, { x: 20, y: 20 }, 100, 50)).toEqual({ x: 50, y: 50 });
    expect(rayEnd({ x: 10, y: 10 }, { x: 10, y: 10 }, 100, 50)).toEqual({ x: 10, y: 10 });
  });
});

describe('the measure', () => {
  it('says the change, the percent, the bars and the time between two points', () => {
    const m = measure({ price: 2, logical: 10, time: 0 }, { price: 2.5, logical: 22, time: 12 * 3600 });
    expect(m).toEqual({ change: 0.5, percent: 25, bars: 12, seconds: 43_200 });
    expect(formatPercent(m.percent)).toBe('+25.00 %');
    expect(formatPercent(-1)).toBe('−1.00 %');
    expect(formatSpan(m.seconds)).toBe('12h');
    expect(formatSpan(2 * 86_400 + 3 * 3600 + 60)).toBe('2d 3h');
    expect(formatSpan(-90 * 60)).toBe('-1h 30m');
    expect(formatSpan(0)).toBe('0m');
  });
});

describe('storage', () => {
  const line = { id: 'a', kind: 'hline', points: [{ time: 100, price: 0.5 }], color: '#ff0000' };
  it('keeps each pair and group apart, and removes the entry with the last drawing', () => {
    const storage = memory();
    expect(saveDrawings(storage, 'Aggregate', 'ADA.SNEK', [line as never])).toBe(true);
    expect(loadDrawings(storage, 'Aggregate', 'ADA.SNEK')).toEqual([line]);
    expect(loadDrawings(storage, 'Minswap', 'ADA.SNEK')).toEqual([]);
    saveDrawings(storage, 'Aggregate', 'ADA.SNEK', []);
    expect(storage.values.has(drawingsKey('Aggregate', 'ADA.SNEK'))).toBe(false);
  });

  it('reads what is a drawing and leaves the rest out', () => {
    const entry = {
      v: 1,
      drawings: [
        line,
        { ...line, id: 'a' }, // the same id again
        { ...line, id: 'b', kind: 'circle' },
        { ...line, id: 'c', color: 'red' },
        { ...line, id: 'd', points: [{ time: 1, price: -1 }] },
        { ...line, id: 'e', kind: 'trend' }, // one point for two
        { id: 'f', kind: 'note', points: [{ time: 1, price: 1 }], color: '#00ff00', text: 'x'.repeat(500) },
      ],
    };
    const read = parseDrawings(JSON.stringify(entry));
    expect(read.map((d) => d.id)).toEqual(['a', 'f']);
    expect(read[1]?.text).toHaveLength(200);
    expect(parseDrawings('{not json')).toEqual([]);
    expect(parseDrawings(JSON.stringify({ v: 2, drawings: [line] }))).toEqual([]);
    const many = Array.from({ length: MAX_DRAWINGS + 5 }, (_, i) => ({ ...line, id: `x${i}` }));
    expect(parseDrawings(JSON.stringify({ v: 1, drawings: many }))).toHaveLength(MAX_DRAWINGS);
  });

  it('says so when the browser refuses, and reads a refusing storage as none', () => {
    const refusing = {
      ...memory(),
      setItem: () => {
        throw new Error('QuotaExceededError');
      },
      getItem: () => {
        throw new Error('SecurityError');
      },
    } as Storage;
    expect(saveDrawings(refusing, 'g', 's', [line as never])).toBe(false);
    expect(loadDrawings(refusing, 'g', 's')).toEqual([]);
  });

  it('tells the page whether a pair has drawings', () => {
    localStorage.clear();
    expect(hasDrawings('Aggregate', 'ADA.SNEK')).toBe(false);
    saveDrawings(localStorage, 'Aggregate', 'ADA.SNEK', [line as never]);
    expect(hasDrawings('Aggregate', 'ADA.SNEK')).toBe(true);
    localStorage.clear();
  });
});

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
const BARS: Bar[] = Array.from({ length: 50 }, (_, i) => ({
  time: asSeconds(START + i * 3600),
  open: 0.002,
  high: 0.0025,
  low: 0.0015,
  close: 0.002 + i * 0.00001,
  volume: 10,
  tvl: 1000,
}));

describe('drawings on the chart', () => {
  const made: { dispose(): void }[] = [];
  afterEach(() => {
    for (const m of made.splice(0).reverse()) m.dispose();
  });

  function chartWithBars() {
    const container = document.createElement('div');
    document.body.append(container);
    const chart = new Chart(container, {
      theme: 'dark',
      showVolume: true,
      showTvl: false,
      logScale: false,
      timeZone: 'utc',
    });
    made.push(chart);
    chart.showBars(INFO, '60', BARS);
    return chart;
  }

  it('shows a price as kept inverted (1 / price) and back, and keeps drawings in the datafeed’s prices', () => {
    const chart = chartWithBars();
    const surface = chart.surface();
    expect(surface.toShown(0.002, START)).toBe(0.002);
    chart.setInverted(true);
    expect(surface.toShown(0.002, START)).toBeCloseTo(500, 9);
    expect(surface.fromShown(500, START)).toBeCloseTo(0.002, 12);
    expect(surface.step()).toBe(3600);
    expect(surface.bars()).toHaveLength(50);
  });

  it('adds, colours, selects and deletes drawings, kept per pair; Delete and Escape from the keyboard', () => {
    const chart = chartWithBars();
    const storage = memory();
    const layer = new DrawingLayer(chart.surface(), storage, 'Minswap', INFO.name);
    made.push(layer);
    const line = layer.add('trend', [
      { time: START, price: 0.002 },
      { time: START + 10 * 3600, price: 0.0021 },
    ]);
    expect(layer.getState().selected).toBe(line.id);
    layer.setColor('#ff0000');
    layer.setColor('not a colour');
    expect(layer.getState().drawings[0]?.color).toBe('#ff0000');
    layer.setTool('note');
    layer.setNoteText('Support');
    const note = layer.add('note', [{ time: START, price: 0.0019 }]);
    expect(note.text).toBe('Support');
    expect(note.color).toBe('#ff0000');

    // Another layer on the same pair reads them back (a reload); another group has none.
    const again = new DrawingLayer(chart.surface(), storage, 'Minswap', INFO.name);
    made.push(again);
    expect(again.getState().drawings.map((d) => d.kind)).toEqual(['trend', 'note']);
    expect(new DrawingLayer(chart.surface(), storage, 'Aggregate', INFO.name).getState().drawings).toEqual([]);

    layer.select(line.id);
    document.body.dispatchEvent(new KeyboardEvent('keydown', { key: 'Delete', bubbles: true }));
    expect(layer.getState().drawings.map((d) => d.kind)).toEqual(['note']);
    // Typing in a field never deletes.
    const input = document.createElement('input');
    document.body.append(input);
    layer.select(note.id);
    input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Backspace', bubbles: true }));
    expect(layer.getState().drawings).toHaveLength(1);
    document.body.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }));
    expect(layer.getState().selected).toBeUndefined();
    layer.remove(note.id);
    expect(storage.values.size).toBe(0);
    input.remove();
  });
});
