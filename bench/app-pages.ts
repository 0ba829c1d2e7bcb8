import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Browser, BrowserContext, Page } from '@playwright/test';
import { INDICATOR_ADD_MARK, INDICATOR_DRAWN_MEASURE } from '../src/app/features/chart/lib/marks';
import { OVERVIEW_ROWS_MARK, OVERVIEW_SORT_MARK, OVERVIEW_SORT_MEASURE } from '../src/app/features/overview/lib/marks';
import { median, percentile, round, type BenchRow } from './measure';

/**
 * The app benchmark's measures of issue 14 (market overview, trades tape, indicators, the chart page's
 * JS), each on a page of its own in Debian's Chromium against the production server of bench/app.ts.
 */

const SUITE = 'app';
const SORT_TARGET_MS = 50;
const LONG_TASK_TARGET_MS = 50;
const INDICATOR_TARGET_MS = 100;
/** Issue 26: the chart page's JS (what a visitor downloads for it). */
export const JS_TARGET_KB = 200;
/** The tape's feed: one forced block of one trade every 20 ms on the pair shown, for 10 s. */
export const FEED = { tradesPerSecond: 50, seconds: 10, tradesPerBlock: 1 } as const;
/** The overview's sortable columns (features/overview), each clicked twice: high to low, then low to high. */
const SORT_COLUMNS = ['price', 'change', 'volume', 'tvl', 'spread'] as const;
const VIEWPORT = { width: 1280, height: 800 } as const;

/** Where the pointer moves on a chart page at VIEWPORT: over the price pane of the chart's place. */
export const CHART_POINTER = { x: 480, y: 420 } as const;
/** Time between two pointer moves while the bench waits for the chart to answer one. */
const POINTER_STEP_MS = 4;

/**
 * A fresh browser context (cold cache) at the bench's viewport. tsx (esbuild's keepNames) wraps the
 * named functions of the page scripts the bench passes to `addInitScript`/`evaluate` in `__name()`,
 * which the page does not have: without this shim such a script throws at its first named function
 * and measures nothing (the layout shift and "interactive" of navigate() did, silently, once).
 */
export async function benchContext(
  browser: Browser,
  viewport: { width: number; height: number } = VIEWPORT,
): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport });
  await context.addInitScript('window.__name = (f) => f;');
  return context;
}

/** What one cold navigation measured. */
export interface Navigation {
  /** `mark`'s time from the navigation start (ms). */
  readonly ms: number;
  readonly detail: unknown;
  /** With `pointer`: when the chart first answered a pointer move (the `answered` mark), ms from the navigation start. */
  readonly answeredMs: number | undefined;
  /** With `settled`: the page's cumulative layout shift (shifts without recent input) until it settled. */
  readonly layoutShift: number | undefined;
  /** The sources of those shifts (element, from -> to), to say what moved. */
  readonly shifts: readonly string[];
}

/**
 * A performance mark's time from the navigation start, and its detail, in a fresh context (cold cache).
 * With `pointer`: the pointer moves over `pointer.at` from the navigation on, a move every few
 * milliseconds, until the page sets `pointer.answered` (the chart's first answer to the pointer: its
 * "interactive"), whose time is `answeredMs`. With `settled`: the page's layout shifts are summed until
 * each of those selectors is on the page and half a second more (the header, the tape and the pools in).
 */
export async function navigate(
  browser: Browser,
  url: string,
  mark: string,
  options: {
    readonly pointer?: { readonly at: { x: number; y: number }; readonly answered: string };
    readonly settled?: readonly string[];
  } = {},
): Promise<Navigation> {
  const context = await benchContext(browser);
  try {
    const page = await context.newPage();
    let answered = false;
    await page.exposeFunction('__benchAnswered', () => {
      answered = true;
    });
    await page.addInitScript((answeredMark: string | undefined) => {
      const w = window as unknown as {
        __shift: number;
        __shifts: string[];
        __benchAnswered?: () => void;
        __benchObserving?: boolean;
      };
      w.__shift = 0;
      w.__shifts = [];
      const rect = (r: DOMRectReadOnly) =>
        `${Math.round(r.x)},${Math.round(r.y)} ${Math.round(r.width)}x${Math.round(r.height)}`;
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries() as (PerformanceEntry & {
          value: number;
          hadRecentInput: boolean;
          sources?: { node?: Node | null; previousRect: DOMRectReadOnly; currentRect: DOMRectReadOnly }[];
        })[]) {
          if (entry.hadRecentInput) continue;
          w.__shift += entry.value;
          for (const source of entry.sources ?? []) {
            const node =
              source.node instanceof Element
                ? `${source.node.tagName.toLowerCase()}.${source.node.className}`
                : (source.node?.nodeName ?? '?');
            w.__shifts.push(
              `${node} ${rect(source.previousRect)} -> ${rect(source.currentRect)} (${entry.value.toFixed(4)} at ${Math.round(entry.startTime)} ms)`,
            );
          }
        }
      }).observe({ type: 'layout-shift', buffered: true });
      if (answeredMark) {
        new PerformanceObserver((list) => {
          if (list.getEntriesByName(answeredMark).length > 0) w.__benchAnswered?.();
        }).observe({ type: 'mark' });
      }
      // The script ran to its end: its observers are in place (checked below).
      w.__benchObserving = true;
    }, options.pointer?.answered);
    const loaded = page.goto(url);
    if (options.pointer) {
      const started = Date.now();
      for (let i = 0; !answered && Date.now() - started < 30_000; i++) {
        await page.mouse.move(options.pointer.at.x + (i % 2), options.pointer.at.y).catch(() => undefined);
        await new Promise((resolve) => setTimeout(resolve, POINTER_STEP_MS));
      }
    }
    await loaded;
    await page.waitForFunction((name) => performance.getEntriesByName(name).length > 0, mark, {
      timeout: 30_000,
      polling: 20,
    });
    if (options.settled) {
      for (const selector of options.settled) await page.waitForSelector(selector, { timeout: 30_000 });
      await page.waitForTimeout(500);
    }
    const measured = await page.evaluate(
      ({ name, answeredMark }) => {
        const entry = performance.getEntriesByName(name)[0] as PerformanceMark | undefined;
        const w = window as unknown as { __shift: number; __shifts: string[]; __benchObserving?: boolean };
        return {
          observing: w.__benchObserving === true,
          ms: entry?.startTime ?? Number.NaN,
          detail: entry?.detail as unknown,
          answeredMs: answeredMark ? performance.getEntriesByName(answeredMark)[0]?.startTime : undefined,
          layoutShift: w.__shift,
          shifts: w.__shifts,
        };
      },
      { name: mark, answeredMark: options.pointer?.answered },
    );
    // A page script that failed measures nothing: a layout shift of 0 from it would be a lie.
    if (!measured.observing) throw new Error(`navigate ${url}: the bench's page script did not run to its end`);
    const { observing: _, ...navigation } = measured;
    return navigation;
  } finally {
    await context.close();
  }
}

/** The Aggregate overview's URL, and the mark its first rows set. */
export const OVERVIEW_PAGE = { path: '/?view=markets&group=Aggregate', mark: OVERVIEW_ROWS_MARK } as const;

/** The row of "overview: open Aggregate -> rows shown" from the navigations measured (ms) and the rows the mark counted. */
export function overviewRowsRow(times: readonly number[], rows: number, target: number): BenchRow {
  const value = median(times);
  return {
    suite: SUITE,
    name: 'overview: open Aggregate -> rows shown',
    value: round(value, 0),
    unit: 'ms',
    target: `<= ${target} ms`,
    pass: value <= target,
    note: `median of ${times.length} cold navigations to ${OVERVIEW_PAGE.path} (-> the ${OVERVIEW_ROWS_MARK} mark), max ${round(Math.max(...times), 0)} ms; ${rows.toLocaleString('en-US')} rows listed`,
  };
}

/**
 * Sorting the Aggregate overview: every column's sort button clicked twice (high to low, low to high),
 * `rounds` times; each sort's duration is the app's `overview:sorted` measure (click -> sorted rows
 * committed). Event Timing adds what the click cost up to the next paint.
 */
export async function overviewSort(
  browser: Browser,
  origin: string,
  log: (line: string) => void,
  rounds = 3,
): Promise<BenchRow> {
  const context = await benchContext(browser);
  try {
    const page = await context.newPage();
    await page.goto(`${origin}${OVERVIEW_PAGE.path}`);
    const overview = page.getByTestId('market-overview');
    await page.waitForFunction((name) => performance.getEntriesByName(name).length > 0, OVERVIEW_ROWS_MARK, {
      timeout: 30_000,
      polling: 20,
    });
    const rows = Number(await overview.getAttribute('data-count'));
    await page.evaluate(() => {
      const w = window as unknown as { __clicks?: number[] };
      w.__clicks = [];
      // Event Timing: clicks whose handling and next paint took 16 ms or more (the API's floor).
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) if (e.name === 'click') w.__clicks?.push(e.duration);
      }).observe({ type: 'event', durationThreshold: 16 } as PerformanceObserverInit);
    });
    const times: number[] = [];
    const labels: string[] = [];
    for (let r = 0; r < rounds; r++) {
      for (const key of SORT_COLUMNS) {
        for (const direction of ['desc', 'asc'] as const) {
          await page.evaluate(
            ([mark, measure]) => {
              performance.clearMarks(mark);
              performance.clearMeasures(measure);
            },
            [OVERVIEW_SORT_MARK, OVERVIEW_SORT_MEASURE] as const,
          );
          await page.getByTestId(`sort-${key}`).click();
          await page.waitForFunction(
            ([k, d, measure]) => {
              const element = document.querySelector<HTMLElement>('[data-testid="market-overview"]');
              return (
                element?.dataset.sort === k &&
                element.dataset.direction === d &&
                performance.getEntriesByName(measure).length > 0
              );
            },
            [key, direction, OVERVIEW_SORT_MEASURE] as const,
            { timeout: 10_000, polling: 10 },
          );
          times.push(
            await page.evaluate(
              (measure) => performance.getEntriesByName(measure)[0]?.duration ?? Number.NaN,
              OVERVIEW_SORT_MEASURE,
            ),
          );
          labels.push(`${key} ${direction}`);
          // Let the paint and the live rows of the new order settle before the next click.
          await page.waitForTimeout(150);
        }
      }
    }
    const slow = await page.evaluate(() => (window as unknown as { __clicks?: number[] }).__clicks ?? []);
    log(
      `app: overview sorts (${rows} rows): ${times.map((t, i) => `${labels[i]} ${round(t, 0)}`).join(', ')} ms; clicks to next paint: ${slow.map((t) => round(t, 0)).join(', ')} ms`,
    );
    const p95 = percentile(times, 95);
    return {
      suite: SUITE,
      name: 'overview: sort 6,000+ rows (p95)',
      value: round(p95, 1),
      unit: 'ms',
      target: `<= ${SORT_TARGET_MS} ms`,
      pass: rows >= 6000 && p95 <= SORT_TARGET_MS,
      note: `${rows.toLocaleString('en-US')} Aggregate rows; ${times.length} sorts (${SORT_COLUMNS.join(', ')}, each high->low and low->high, ${rounds} rounds), median ${round(median(times), 1)} ms, max ${round(Math.max(...times), 1)} ms (${OVERVIEW_SORT_MEASURE}: click -> sorted rows committed); Event Timing (click to next paint): ${slow.length} of ${times.length} >= 16 ms${slow.length > 0 ? `, worst ${round(Math.max(...slow), 0)} ms` : ''}`,
    };
  } finally {
    await context.close();
  }
}

/**
 * Ticking an indicator in the chart's menu until it is drawn: the app's `indicator:drawn` measure
 * (the pick -> the chart's frame with the lines), SMA over the price and RSI in a pane of its own,
 * each `adds` times after one unmeasured add, taken off again in between.
 */
export async function indicatorAdds(browser: Browser, origin: string, adds = 6): Promise<BenchRow> {
  const context = await benchContext(browser);
  try {
    const page = await context.newPage();
    await page.goto(`${origin}/`);
    await waitForChart(page);
    await page.getByTestId('indicator-menu').locator('summary').click();
    const byKind: Record<string, number[]> = { sma: [], rsi: [] };
    let bars = 0;
    for (const kind of ['sma', 'rsi'] as const) {
      for (let i = 0; i <= adds; i++) {
        await page.evaluate((measure) => performance.clearMeasures(measure), INDICATOR_DRAWN_MEASURE);
        await page.getByTestId(`indicator-${kind}`).check();
        await page.waitForFunction(
          (measure) => performance.getEntriesByName(measure).length > 0,
          INDICATOR_DRAWN_MEASURE,
          { timeout: 10_000, polling: 10 },
        );
        const entry = await page.evaluate((measure) => {
          const e = performance.getEntriesByName(measure)[0] as PerformanceMeasure | undefined;
          return { duration: e?.duration ?? Number.NaN, bars: (e?.detail as { bars?: number } | undefined)?.bars ?? 0 };
        }, INDICATOR_DRAWN_MEASURE);
        if (i > 0) byKind[kind]?.push(entry.duration);
        bars = entry.bars;
        await page.getByTestId(`indicator-${kind}`).uncheck();
        await page.waitForSelector('[data-testid="price-chart"][data-indicators=""]', { timeout: 10_000 });
        await page.waitForTimeout(100);
      }
    }
    const all = [...(byKind.sma ?? []), ...(byKind.rsi ?? [])];
    const value = median(all);
    const stats = (kind: string) =>
      `${kind.toUpperCase()} median ${round(median(byKind[kind] ?? []), 1)} ms, max ${round(Math.max(...(byKind[kind] ?? [])), 1)} ms`;
    return {
      suite: SUITE,
      name: 'indicator add -> drawn',
      value: round(value, 1),
      unit: 'ms',
      target: `<= ${INDICATOR_TARGET_MS} ms`,
      pass: value <= INDICATOR_TARGET_MS,
      note: `median of ${all.length} adds over ${bars} bars (${INDICATOR_ADD_MARK} -> ${INDICATOR_DRAWN_MEASURE}: tick in the menu -> the chart's frame with the lines); ${stats('sma')} (over the price), ${stats('rsi')} (its own pane)`,
    };
  } finally {
    await context.close();
  }
}

/**
 * The JS the chart page (`/`, cold cache) fetched until the network is idle after its first candles:
 * each script's gzip size (level 9, as the "JS shipped" row counts) and the bytes that went over the
 * wire (the server sends the build's precompressed brotli).
 */
export async function jsLoadedByChartPage(
  browser: Browser,
  origin: string,
  staticDir: string,
  builtFiles: number,
): Promise<BenchRow> {
  const context = await benchContext(browser);
  const scripts = new Map<string, Promise<number>>();
  context.on('response', (response) => {
    const url = new URL(response.url());
    if (url.origin !== origin || !url.pathname.endsWith('.js') || scripts.has(url.pathname)) return;
    scripts.set(
      url.pathname,
      response
        .request()
        .sizes()
        .then(
          (sizes) => sizes.responseBodySize,
          () => Number.NaN,
        ),
    );
  });
  try {
    const page = await context.newPage();
    await page.goto(`${origin}/`);
    await waitForChart(page);
    await page.waitForLoadState('networkidle');
    await page.waitForTimeout(1000);
    let gzip = 0;
    let raw = 0;
    let wire = 0;
    for (const [path, size] of scripts) {
      const bytes = readFileSync(join(staticDir, path));
      raw += bytes.length;
      gzip += gzipSync(bytes, { level: 9 }).length;
      wire += await size;
    }
    return {
      suite: SUITE,
      name: 'JS loaded by the chart page (gzip)',
      value: round(gzip / 1000, 1),
      unit: 'kB',
      target: `<= ${JS_TARGET_KB} kB`,
      pass: scripts.size > 0 && gzip / 1000 <= JS_TARGET_KB,
      note: `${scripts.size} of ${builtFiles} built file(s) fetched by / until idle after its first candles; ${round(raw / 1000, 0)} kB minified, ${round(wire / 1000, 1)} kB over the wire (brotli as served)`,
    };
  } finally {
    await context.close();
  }
}

/** The deepest Aggregate pool (what `/` shows). */
export async function deepestPool(origin: string): Promise<string> {
  const liquidity = (await (await fetch(`${origin}/gw/v1/liquidity?group=Aggregate`)).json()) as {
    ticker: string[];
    tvl_ada: number[];
  };
  let best = 0;
  liquidity.tvl_ada.forEach((tvl, i) => {
    if (tvl > (liquidity.tvl_ada[best] ?? -Infinity)) best = i;
  });
  return liquidity.ticker[best] ?? '';
}

/** Blocks of `FEED` on `pool`, on schedule (not waiting for answers); the trades made. */
export async function feed(origin: string, pool: string): Promise<{ sent: number; ms: number }> {
  const intervalMs = 1000 / (FEED.tradesPerSecond / FEED.tradesPerBlock);
  const blocks = Math.round((FEED.seconds * 1000) / intervalMs);
  const answers: Promise<number>[] = [];
  const started = performance.now();
  for (let i = 0; i < blocks; i++) {
    const wait = started + i * intervalMs - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    answers.push(
      fetch(`${origin}/__test__/block?pool=${pool}&trades=${FEED.tradesPerBlock}`, { method: 'POST' }).then(
        async (response) => {
          if (!response.ok) throw new Error(`POST /__test__/block: ${response.status} ${await response.text()}`);
          return ((await response.json()) as { trades: number }).trades;
        },
      ),
    );
  }
  const sent = (await Promise.all(answers)).reduce((a, b) => a + b, 0);
  return { sent, ms: performance.now() - started };
}

/**
 * The trades tape kept up with a busy pair: `/` (the deepest Aggregate pair, the tape under the chart)
 * while the server's test control puts 50 trades a second on that pair for 10 s, one trade per block
 * (each its own stream event). In the page: Long Tasks (>= 50 ms, the API's floor), the longest gap
 * between animation frames, and the tape's row count (each live trade is a row on top until the feed
 * pauses).
 */
export async function tapeUnderLoad(browser: Browser, origin: string, log: (line: string) => void): Promise<BenchRow> {
  const context = await benchContext(browser);
  try {
    const page = await context.newPage();
    const pool = await deepestPool(origin);
    await page.goto(`${origin}/`);
    await waitForChart(page);
    await page.waitForSelector('[data-testid="connection-status"][data-state="live"]', { timeout: 30_000 });
    const list = page.getByTestId('tape-rows');
    await page.getByTestId('tape-row').first().waitFor({ timeout: 30_000 });
    // The stored trades are in; nothing else pending on the page.
    await page.waitForLoadState('networkidle');
    await page.waitForTimeout(1000);
    const shownBefore = Number(await list.getAttribute('data-count'));

    await page.evaluate(() => {
      const w = window as unknown as { __tape?: TapeProbe };
      const tape: TapeProbe = { longTasks: [], scripts: {}, frameGap: 0, maxCount: 0, added: 0, drops: 0, stop: false };
      w.__tape = tape;
      new PerformanceObserver((entries) => {
        for (const e of entries.getEntries()) if (!tape.stop) tape.longTasks.push(e.duration);
      }).observe({ type: 'longtask' });
      // Long animation frames (>= 50 ms): their scripts' time by what ran them, to say what the long tasks were.
      new PerformanceObserver((entries) => {
        if (tape.stop) return;
        for (const frame of entries.getEntries() as unknown as { scripts: { invoker: string; duration: number }[] }[]) {
          for (const script of frame.scripts)
            tape.scripts[script.invoker] = (tape.scripts[script.invoker] ?? 0) + script.duration;
        }
      }).observe({ type: 'long-animation-frame' });
      let last = performance.now();
      const frame = (now: number) => {
        tape.frameGap = Math.max(tape.frameGap, now - last);
        last = now;
        if (!tape.stop) requestAnimationFrame(frame);
      };
      requestAnimationFrame(frame);
      const rows = document.querySelector<HTMLElement>('[data-testid="tape-rows"]');
      let count = Number(rows?.dataset.count ?? 0);
      tape.maxCount = count;
      if (rows) {
        new MutationObserver(() => {
          if (tape.stop) return;
          const next = Number(rows.dataset.count ?? 0);
          if (next > count) tape.added += next - count;
          else if (next < count) tape.drops++;
          count = next;
          tape.maxCount = Math.max(tape.maxCount, next);
        }).observe(rows, { attributes: true, attributeFilter: ['data-count'] });
      }
    });

    const { sent, ms: fedMs } = await feed(origin, pool);
    // The last events on their way (the tape swaps its live rows for the stored page 400 ms after the last one).
    await page.waitForTimeout(300);
    const tape = await page.evaluate(() => {
      const w = window as unknown as { __tape: TapeProbe };
      w.__tape.stop = true;
      return w.__tape;
    });
    const longest = tape.longTasks.length > 0 ? Math.max(...tape.longTasks) : 0;
    const total = tape.longTasks.reduce((a, b) => a + b, 0);
    const scripts = Object.entries(tape.scripts).sort((a, b) => b[1] - a[1]);
    const scriptTotal = scripts.reduce((a, [, ms]) => a + ms, 0);
    const top = scripts[0];
    const topNote = top
      ? `; in long frames, scripts ran ${round(scriptTotal, 0)} ms, ${round((100 * top[1]) / scriptTotal, 0)} % of it ${top[0]}`
      : '';
    log(
      `app: tape fed ${sent} trades in ${round(fedMs / 1000, 1)} s; ${tape.added} rows added, ${tape.longTasks.length} long tasks (${tape.longTasks.map((t) => round(t, 0)).join(', ')}), longest frame gap ${round(tape.frameGap, 0)} ms; long frames' scripts: ${scripts.map(([invoker, ms]) => `${invoker} ${round(ms, 0)} ms`).join(', ')}`,
    );
    return {
      suite: SUITE,
      name: 'tape: 50 trades/s, longest task',
      value: round(longest, 0),
      unit: 'ms',
      target: `no task >= ${LONG_TASK_TARGET_MS} ms`,
      pass: tape.longTasks.length === 0 && tape.added >= sent,
      note: `${sent} trades on the shown pair in ${round(fedMs / 1000, 1)} s (${round(sent / (fedMs / 1000), 0)}/s, one per block); the tape added ${tape.added} rows (${shownBefore} -> ${tape.maxCount}${tape.drops > 0 ? `, ${tape.drops} resets` : ''}); ${tape.longTasks.length} long task(s) >= 50 ms${tape.longTasks.length > 0 ? `, ${round(total, 0)} ms in all` : " (0 = none; the API's floor)"}; longest gap between frames ${round(tape.frameGap, 0)} ms${topNote}`,
    };
  } finally {
    await context.close();
  }
}

/** What the tape's page script records during the feed (window.__tape). */
interface TapeProbe {
  readonly longTasks: number[];
  /** Script time in long animation frames, by invoker (e.g. "EventSource.ontrade"). */
  readonly scripts: Record<string, number>;
  frameGap: number;
  maxCount: number;
  added: number;
  drops: number;
  stop: boolean;
}

/**
 * The chart page ready for input: its chart drawn, and the app's first render in the skeleton's place.
 * The page's first paint draws the chart before the app runs (data-status="ready" is already set), and
 * the skeleton's controls are disabled: a click there (a menu's summary) is lost when the app's render
 * replaces it, as it was once in a run of the indicator adds.
 */
export async function waitForChart(page: Page): Promise<void> {
  await page.waitForSelector('[data-testid="price-chart"][data-status="ready"]', { timeout: 30_000 });
  await page.waitForFunction(() => document.querySelector('fieldset.skeleton') === null, undefined, {
    timeout: 30_000,
  });
}
