import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it } from 'vitest';
import { Chart, type ClickedCandle } from '../../src/app/features/chart/lib/chart';
import type { ChartAppearance } from '../../src/app/features/chart/lib/chart-style';
import { formatPrice } from '../../src/app/lib/format';
import { formatDateTime } from '../../src/app/lib/time-format';
import type { LibrarySymbolInfo, ResolutionString } from '../../src/datafeed';
import { attachDatafeed, resolveSymbol } from '../datafeed/harness';
import { ensureDefined } from '../support/ensure';
import { aggregatesByActivity } from '../support/market';
import { appTestBed, chartReady } from './render-app';

/**
 * The chart's keyboard cursor (issue 27 part 5, "every tool reachable"): the real chart on the real
 * datafeed over the in-process platform, keys dispatched on its place as a browser does; and in the
 * app, a candle's trades opened with Enter take the focus and give it back.
 */
const bed = appTestBed({ pools: 120, days: 2 });

const LOOK: ChartAppearance = { theme: 'dark', showVolume: true, showTvl: false, logScale: false, timeZone: 'utc' };

const stops: (() => void)[] = [];
afterEach(() => {
  for (const stop of stops.splice(0)) stop();
});

/** The chart focused, its keyboard cursor loaded (a chunk loaded with the first focus: it writes `data-cursor`). */
async function focus(place: HTMLElement): Promise<void> {
  place.focus();
  await waitFor(() => expect(place.dataset.cursor).toBe(''));
}

/** A key pressed on `element`, as the browser dispatches it (cancelable: the chart takes it or not). */
function press(element: HTMLElement, key: string, init: KeyboardEventInit = {}): boolean {
  return element.dispatchEvent(new KeyboardEvent('keydown', { key, bubbles: true, cancelable: true, ...init }));
}

/** The busiest Aggregate pool's chart (one hour: every bar of the market's two days), focusable as the app's chart place is, with what it opens. */
async function busiestChart(
  resolution: ResolutionString = '60',
): Promise<{ place: HTMLElement; chart: Chart; info: LibrarySymbolInfo; opened: ClickedCandle[] }> {
  const feed = attachDatafeed(bed.tp);
  const pool = ensureDefined((await aggregatesByActivity(bed.tp.runtime))[0], 'an Aggregate pool');
  const info = await resolveSymbol(feed.datafeed, pool.poolId);
  const place = document.createElement('div');
  place.tabIndex = 0;
  document.body.append(place);
  const chart = new Chart(place, LOOK);
  stops.push(() => {
    chart.dispose();
    place.remove();
    void feed.close();
  });
  chart.setSymbol(info, resolution);
  chart.connect(feed.datafeed);
  await waitFor(() => expect(place.dataset.status).toBe('ready'), { timeout: 10_000 });
  // At one hour the two days the market holds are one page: Home goes to the first bar there is.
  if (resolution === '60')
    await waitFor(() => expect(chart.getState()).toMatchObject({ exhausted: true, loadingOlder: false }), {
      timeout: 10_000,
    });
  const opened: ClickedCandle[] = [];
  chart.onCandle((candle) => opened.push(candle));
  return { place, chart, info, opened };
}

describe('the chart’s keyboard cursor', () => {
  it('moves from the newest bar between bars, stops at either end, shows each in the legend and in view, and goes with Escape', async () => {
    const { place, chart, info } = await busiestChart();
    const bars = chart.surface().bars();
    const timeAt = (i: number) => String(ensureDefined(bars.at(i)).time);
    const legendClose = () =>
      ensureDefined(place.nextElementSibling?.querySelector('[data-testid="legend-close"]')).textContent;
    const inView = (i: number) => {
      const range = ensureDefined(chart.link().chart.timeScale().getVisibleLogicalRange());
      return range.from <= i && i <= range.to;
    };
    expect(bars.length).toBeGreaterThan(30);
    // The slider's value before the cursor is loaded: the newest bar (the one the legend shows).
    expect(place).toHaveAttribute('aria-valuenow', String(bars.length));
    expect(place).toHaveAttribute('aria-valuemax', String(bars.length));
    expect(place.dataset.cursor).toBeUndefined();
    await focus(place);
    expect(place).toHaveAttribute('aria-valuetext', 'No candle chosen');
    expect(place).toHaveAttribute('aria-valuenow', String(bars.length));

    // The first step puts the cursor on the newest bar, the next one on the bar before.
    expect(press(place, 'ArrowLeft')).toBe(false);
    expect(place.dataset.cursor).toBe(timeAt(-1));
    expect(press(place, 'ArrowLeft')).toBe(false);
    const second = ensureDefined(bars.at(-2));
    expect(place.dataset.cursor).toBe(String(second.time));
    expect(place).toHaveAttribute('aria-valuenow', String(bars.length - 1));
    expect(place.getAttribute('aria-valuetext')).toBe(
      `${formatDateTime(second.time, 'utc', true)}: open ${formatPrice(second.open, info.pricescale)}, high ${formatPrice(second.high, info.pricescale)}, low ${formatPrice(second.low, info.pricescale)}, close ${formatPrice(second.close, info.pricescale)}`,
    );
    expect(legendClose()).toBe(formatPrice(second.close, info.pricescale));

    press(place, 'Home');
    expect(place.dataset.cursor).toBe(timeAt(0));
    expect(inView(0)).toBe(true);
    expect(legendClose()).toBe(formatPrice(ensureDefined(bars[0]).close, info.pricescale));
    press(place, 'ArrowLeft');
    press(place, 'ArrowDown');
    press(place, 'PageDown');
    expect(place.dataset.cursor).toBe(timeAt(0));
    press(place, 'PageUp');
    expect(place.dataset.cursor).toBe(timeAt(10));
    press(place, 'ArrowUp');
    press(place, 'ArrowRight');
    expect(place.dataset.cursor).toBe(timeAt(12));
    expect(inView(12)).toBe(true);

    press(place, 'End');
    expect(place.dataset.cursor).toBe(timeAt(-1));
    expect(inView(bars.length - 1)).toBe(true);
    press(place, 'ArrowRight');
    press(place, 'PageUp');
    expect(place.dataset.cursor).toBe(timeAt(-1));

    press(place, 'ArrowLeft');
    expect(press(place, 'Escape')).toBe(false);
    expect(place.dataset.cursor).toBe('');
    expect(place).toHaveAttribute('aria-valuetext', 'No candle chosen');
    // The legend shows the newest bar again, as without the pointer.
    expect(legendClose()).toBe(formatPrice(ensureDefined(bars.at(-1)).close, info.pricescale));
    // Escape without a cursor, other keys and shortcuts are left to the page.
    expect(press(place, 'Escape')).toBe(true);
    expect(press(place, 'a')).toBe(true);
    expect(press(place, 'ArrowLeft', { ctrlKey: true })).toBe(true);
    expect(place.dataset.cursor).toBe('');
  });

  it('is hidden while the chart has no focus and comes back with it; a key another part took is not its own; the pointer takes over', async () => {
    const { place, chart, info } = await busiestChart();
    const bars = chart.surface().bars();
    await focus(place);
    press(place, 'End');
    press(place, 'ArrowLeft');
    const time = String(ensureDefined(bars.at(-2)).time);
    expect(place.dataset.cursor).toBe(time);
    place.blur();
    expect(place.dataset.cursor).toBe('');
    expect(place).toHaveAttribute('aria-valuetext', 'No candle chosen');
    place.focus();
    expect(place.dataset.cursor).toBe(time);
    // A selected drawing takes the arrows first (features/drawings: its keys are captured on the document).
    const takeArrows = (event: KeyboardEvent) => event.key.startsWith('Arrow') && event.preventDefault();
    document.addEventListener('keydown', takeArrows, true);
    stops.push(() => document.removeEventListener('keydown', takeArrows, true));
    press(place, 'ArrowLeft');
    expect(place.dataset.cursor).toBe(time);
    document.removeEventListener('keydown', takeArrows, true);

    // The pointer over the chart takes over: the cursor is forgotten, the legend shows the pointer's bar.
    const lw = chart.link().chart;
    const top = ensureDefined(
      [...ensureDefined(lw.chartElement().querySelector('tr')?.children[1]).querySelectorAll('canvas')].at(-1),
    );
    const over = { clientX: ensureDefined(lw.timeScale().logicalToCoordinate(5 as never)), clientY: 40 };
    top.dispatchEvent(new MouseEvent('mouseenter', over));
    top.dispatchEvent(new MouseEvent('mousemove', { ...over, bubbles: true }));
    expect(place.dataset.cursor).toBe('');
    expect(place).toHaveAttribute('aria-valuetext', 'No candle chosen');
    const legendClose = ensureDefined(
      place.nextElementSibling?.querySelector('[data-testid="legend-close"]'),
    ).textContent;
    expect(legendClose).toBe(formatPrice(ensureDefined(bars[5]).close, info.pricescale));
    place.blur();
    place.focus();
    expect(place.dataset.cursor).toBe('');
  });

  it('stays on its bar as older bars load in front of it (Home then goes to the new first bar) and as prices turn', async () => {
    const { place, chart } = await busiestChart('5');
    await focus(place);
    press(place, 'Home');
    const first = chart.surface().bars()[0];
    expect(place.dataset.cursor).toBe(String(first?.time));
    // Near the oldest bar, the chart loads the page before it.
    await waitFor(() => expect(chart.surface().bars()[0]?.time).toBeLessThan(ensureDefined(first).time), {
      timeout: 10_000,
    });
    await waitFor(() => expect(chart.getState().loadingOlder).toBe(false));
    const bars = chart.surface().bars();
    const index = bars.findIndex((bar) => bar.time === first?.time);
    expect(index).toBeGreaterThan(0);
    expect(place.dataset.cursor).toBe(String(first?.time));
    expect(place).toHaveAttribute('aria-valuenow', String(index + 1));
    expect(place).toHaveAttribute('aria-valuemax', String(bars.length));
    press(place, 'ArrowLeft');
    expect(place.dataset.cursor).toBe(String(bars[index - 1]?.time));
    press(place, 'Home');
    const oldest = ensureDefined(chart.surface().bars()[0]);
    expect(place.dataset.cursor).toBe(String(oldest.time));

    // Prices turned (the bars drawn again): the legend and the value read out are the turned bar's.
    chart.setInverted(true);
    const turned = ensureDefined(chart.surface().bars()[0]);
    expect(turned.time).toBe(oldest.time);
    expect(turned.close).not.toBe(oldest.close);
    expect(place.dataset.cursor).toBe(String(oldest.time));
    expect(ensureDefined(place.nextElementSibling?.querySelector('[data-testid="legend-close"]')).textContent).toBe(
      formatPrice(turned.close),
    );
    expect(place.getAttribute('aria-valuetext')).toContain(`, close ${formatPrice(turned.close)}`);
  });

  it('opens the bar under it with Enter or Space: the same candle a click on that bar gives', async () => {
    const { place, chart, opened } = await busiestChart();
    const bars = chart.surface().bars();
    await focus(place);
    // Without a cursor, Enter opens the newest bar (the one the legend shows).
    expect(press(place, 'Enter')).toBe(false);
    expect(opened.at(-1)?.shown).toEqual(bars.at(-1));
    expect(place.dataset.cursor).toBe(String(ensureDefined(bars.at(-1)).time));
    press(place, 'Home');
    press(place, 'PageUp');
    expect(press(place, ' ')).toBe(false);
    const keyed = ensureDefined(opened.at(-1));
    expect(keyed.shown).toEqual(bars[10]);
    expect(keyed.keyboard).toBe(true);

    // A click on bar 10, where lightweight-charts draws it (its pane's top canvas takes the pointer).
    const lw = chart.link().chart;
    const x = ensureDefined(lw.timeScale().logicalToCoordinate(10 as never));
    const pane = ensureDefined(lw.chartElement().querySelector('tr')?.children[1]);
    const top = ensureDefined([...pane.querySelectorAll('canvas')].at(-1));
    const at = { clientX: x, clientY: 40, button: 0, bubbles: true };
    top.dispatchEvent(new MouseEvent('mousedown', at));
    top.dispatchEvent(new MouseEvent('mouseup', at));
    await waitFor(() => expect(opened).toHaveLength(3));
    const clicked = ensureDefined(opened.at(-1));
    expect(clicked.keyboard).toBeUndefined();
    expect({ ...keyed, keyboard: undefined }).toEqual({ ...clicked, keyboard: undefined });
  });
});

describe('a candle’s trades opened from the keyboard', () => {
  it('take the focus (their heading) and give it back to the chart on Close and on Escape, the cursor on the same candle; a click moves no focus', async () => {
    const user = userEvent.setup();
    const feed = attachDatafeed(bed.tp);
    const pool = ensureDefined((await aggregatesByActivity(bed.tp.runtime))[0], 'an Aggregate pool');
    const info = await resolveSymbol(feed.datafeed, pool.poolId);
    await feed.close();
    const app = bed.open(`/?group=Aggregate&symbol=${info.name}&res=60`);
    const chart = await chartReady(app.container);
    expect(chart).toBe(screen.getByRole('slider', { name: /^Candlestick chart of / }));
    expect(chart).toHaveAccessibleDescription(/Arrow keys move between candles.*Enter lists the candle’s trades/);

    await focus(chart);
    await user.keyboard('{ArrowLeft}{ArrowLeft}{Enter}');
    const cursor = ensureDefined(chart.dataset.cursor);
    const panel = await screen.findByTestId('candle-trades', {}, { timeout: 10_000 });
    expect(panel.dataset.time).toBe(cursor);
    const heading = within(panel).getByRole('heading');
    await waitFor(() => expect(heading).toHaveFocus());
    // The chart, left, hides its cursor.
    expect(chart.dataset.cursor).toBe('');

    await user.click(within(panel).getByTestId('candle-trades-close'));
    expect(screen.queryByTestId('candle-trades')).not.toBeInTheDocument();
    expect(chart).toHaveFocus();
    expect(chart.dataset.cursor).toBe(cursor);

    await user.keyboard('{ArrowLeft}{Enter}');
    const next = await screen.findByTestId('candle-trades');
    expect(Number(next.dataset.time)).toBeLessThan(Number(cursor));
    await waitFor(() => expect(within(next).getByRole('heading')).toHaveFocus());
    await user.keyboard('{Escape}');
    expect(screen.queryByTestId('candle-trades')).not.toBeInTheDocument();
    expect(chart).toHaveFocus();

    // The pointer's way: the list opens where it did, and the focus stays where it was.
    chart.blur();
    const lw = chart.querySelector('table');
    const top = ensureDefined(
      [...ensureDefined(lw?.querySelector('tr')?.children[1]).querySelectorAll('canvas')].at(-1),
    );
    const at = { clientX: 300, clientY: 40, button: 0, bubbles: true };
    top.dispatchEvent(new MouseEvent('mousedown', at));
    top.dispatchEvent(new MouseEvent('mouseup', at));
    const clicked = await screen.findByTestId('candle-trades');
    expect(within(clicked).getByRole('heading')).not.toHaveFocus();
    expect(document.body).toHaveFocus();
  });
});
