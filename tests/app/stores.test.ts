import { describe, expect, it } from 'vitest';
import {
  createPreferencesStore,
  DEFAULT_PREFERENCES,
  MAX_RECENT,
  PREFERENCES_KEY,
} from '../../src/app/stores/preferences-store';
import { SINGLE_LAYOUT } from '../../src/app/lib/layout';
import { normaliseResolution } from '../../src/app/lib/first-chart';
import {
  createSelectionStore,
  formatSelection,
  parseSelection,
  type UrlHost,
} from '../../src/app/stores/selection-store';
import { memoryStorage } from './render-app';

/** A URL host with a history of its own (back/forward by hand). */
function fakeHost(search: string): UrlHost & { entries: string[]; go(to: number): void } {
  const entries = [search];
  let at = 0;
  const host = {
    entries,
    location: { pathname: '/', hash: '', search },
    history: {
      pushState: (_data: unknown, _unused: string, url?: string) => {
        entries.splice(at + 1);
        entries.push(new URL(url ?? '/', 'http://x').search);
        at++;
        host.location.search = entries[at] ?? '';
      },
      replaceState: (_data: unknown, _unused: string, url?: string) => {
        entries[at] = new URL(url ?? '/', 'http://x').search;
        host.location.search = entries[at] ?? '';
      },
    },
    go: (to: number) => {
      at = to;
      host.location.search = entries[at] ?? '';
    },
  };
  return host;
}

describe('selection in the URL', () => {
  it('reads group, symbol and resolution with defaults and aliases', () => {
    expect(parseSelection('')).toEqual({
      group: 'Aggregate',
      symbol: undefined,
      resolution: '60',
      inverted: false,
      indicators: '',
      currency: 'ada',
      view: 'chart',
      layout: SINGLE_LAYOUT,
    });
    expect(parseSelection('?group=Minswap&symbol=ADA.SNEK_Minswap_Pool1&res=1D')).toEqual({
      group: 'Minswap',
      symbol: 'ADA.SNEK_Minswap_Pool1',
      resolution: '1D',
      inverted: false,
      indicators: '',
      currency: 'ada',
      view: 'chart',
      layout: SINGLE_LAYOUT,
    });
    expect(parseSelection('?view=markets&group=Minswap').view).toBe('markets');
    expect(parseSelection('?view=other').view).toBe('chart');
    expect(parseSelection('?ind=RSI14,sma,bb20-2.5,nope,sma50,vwap').indicators).toBe('sma20,bb20-2.5,vwap,rsi14');
    expect(parseSelection('?inv=1').inverted).toBe(true);
    expect(parseSelection('?inv=0').inverted).toBe(false);
    expect(parseSelection('?cur=usd').currency).toBe('usd');
    expect(parseSelection('?cur=USD').currency).toBe('usd');
    expect(parseSelection('?cur=eur').currency).toBe('ada');
    expect(parseSelection('?res=15min').resolution).toBe('15');
    expect(parseSelection('?resolution=1h').resolution).toBe('60');
    expect(parseSelection('?res=7').resolution).toBe('60');
    expect(['1', '5m', '15', '60min', 'D', '1d'].map(normaliseResolution)).toEqual(['1', '5', '15', '60', '1D', '1D']);
    expect(normaliseResolution('weekly')).toBeUndefined();
  });

  it('writes a shareable query string that reads back the same', () => {
    const selection = {
      group: 'Aggregate',
      symbol: 'ADA.SNEK_Aggregate_Pool1',
      resolution: '60',
      inverted: false,
      indicators: '',
      currency: 'ada',
      view: 'chart',
      layout: SINGLE_LAYOUT,
    } as const;
    const search = formatSelection(selection, '?utm=x');
    expect(search).toBe('?group=Aggregate&symbol=ADA.SNEK_Aggregate_Pool1&res=60&utm=x');
    expect(parseSelection(search)).toEqual(selection);
    const inverted = { ...selection, inverted: true, indicators: 'ema50,rsi14' };
    expect(formatSelection(inverted, '?inv=1&ind=x&utm=x')).toBe(
      '?group=Aggregate&symbol=ADA.SNEK_Aggregate_Pool1&res=60&inv=1&ind=ema50%2Crsi14&utm=x',
    );
    expect(parseSelection(formatSelection(inverted))).toEqual(inverted);
    const usd = { ...selection, currency: 'usd' as const };
    expect(formatSelection(usd, '?cur=ada&utm=x')).toBe(
      '?group=Aggregate&symbol=ADA.SNEK_Aggregate_Pool1&res=60&cur=usd&utm=x',
    );
    expect(parseSelection(formatSelection(usd))).toEqual(usd);
    expect(formatSelection(selection, '?cur=usd')).toBe('?group=Aggregate&symbol=ADA.SNEK_Aggregate_Pool1&res=60');
    const markets = { ...selection, symbol: undefined, view: 'markets' } as const;
    expect(formatSelection(markets, '?view=chart&utm=x')).toBe('?group=Aggregate&res=60&view=markets&utm=x');
    expect(parseSelection(formatSelection(markets))).toEqual(markets);
  });

  it('keeps a screen’s place in its history entry: a new entry starts without one, Back finds it, a rewrite keeps it', () => {
    window.history.replaceState(null, '', '/?view=markets');
    const store = createSelectionStore(window);
    expect(store.getState().place('overview')).toBeUndefined();
    store.getState().keepPlace('overview', { offset: 440 });
    store.getState().keepPlace('other', 1);
    expect(store.getState().place('overview')).toEqual({ offset: 440 });
    expect(window.location.search).toBe('?view=markets');
    store.getState().select({ view: 'chart', symbol: 'ADA.SNEK_Aggregate_Pool1' });
    expect(window.location.search).toBe('?group=Aggregate&symbol=ADA.SNEK_Aggregate_Pool1&res=60');
    expect(store.getState().place('overview')).toBeUndefined();
    store.getState().keepPlace('chart', 'x');
    store.getState().select({ resolution: '5' }, { replace: true });
    expect(store.getState().place('chart')).toBe('x');
  });

  it('pushes a history entry per change, replaces on request, and follows popstate', () => {
    const host = fakeHost('?symbol=snek');
    const store = createSelectionStore(host);
    store.getState().select({ symbol: 'ADA.SNEK_Aggregate_Pool1' }, { replace: true });
    expect(host.entries).toEqual(['?group=Aggregate&symbol=ADA.SNEK_Aggregate_Pool1&res=60']);
    store.getState().select({ resolution: '5' });
    store.getState().select({ resolution: '5' });
    expect(host.entries).toHaveLength(2);
    host.go(0);
    store.getState().syncFromUrl();
    expect(store.getState().resolution).toBe('60');
    host.go(1);
    store.getState().syncFromUrl();
    expect(store.getState().resolution).toBe('5');
  });
});

describe('preferences', () => {
  it('persist across reloads (same storage, new store)', () => {
    const storage = memoryStorage();
    const first = createPreferencesStore(storage);
    expect(first.getState().theme).toBe(DEFAULT_PREFERENCES.theme);
    first.getState().setTheme('light');
    first.getState().toggle('showVolume');
    first.getState().setTimeZone('local');
    first.getState().setCurrency('usd');
    first.getState().toggleWatch({ symbol: 'ADA.MIN_Aggregate_Pool1', group: 'Aggregate' });
    expect(storage.values.has(PREFERENCES_KEY)).toBe(true);
    const reloaded = createPreferencesStore(storage);
    expect(reloaded.getState()).toMatchObject({
      theme: 'light',
      showVolume: false,
      timeZone: 'local',
      currency: 'usd',
      watchlist: [{ symbol: 'ADA.MIN_Aggregate_Pool1', group: 'Aggregate' }],
    });
  });

  it('keeps the latest recent picks first, without duplicates', () => {
    const store = createPreferencesStore(memoryStorage());
    for (let i = 0; i < MAX_RECENT + 3; i++) store.getState().addRecent({ symbol: `S${i}`, group: 'Aggregate' });
    store.getState().addRecent({ symbol: 'S5', group: 'Aggregate' });
    const recent = store.getState().recent.map((r) => r.symbol);
    expect(recent).toHaveLength(MAX_RECENT);
    expect(recent[0]).toBe('S5');
    expect(new Set(recent).size).toBe(recent.length);
  });
});
