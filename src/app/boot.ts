import { resolutionSeconds } from '@/shared/first-chart';
import { drawPicture } from './boot/boot-chart';
import { offerBootChart } from './boot/boot-chart-handle';
import { bootRequests, inlineBars, inlineInfo, type BarsInPage, type FirstBars } from './boot/first-requests';
import { pictureFits } from './boot/picture-fits';
import { sourceBadgeOf, type SourceInfo } from './features/shell/lib/source-badge';
import { invertLabel, pairOfName } from './lib/invert-label';
import { provisionalSymbolInfo } from './lib/provisional-symbol';
import { parseSelection, type Selection } from './lib/selection';
import { storedPreferences, type Preferences } from './stores/preferences';

/**
 * The page's first script (main.tsx imports it before anything else), without React, zod or the
 * datafeed: what the first chart needs, before the app's own code has loaded. It shows the page frame
 * of index.html in the user's theme and draws the first bars into the frame's chart place with
 * lightweight-charts (boot/boot-chart.ts: the one library the page's one script carries beside it),
 * which the app's chart takes over (boot/boot-chart-handle.ts).
 *
 * The server usually puts /info and the first bars in the page (src/server/platform.ts): then nothing
 * is asked and the frame is shown and the picture drawn in this script's own run, in one task, the way
 * a page that only draws them would. Otherwise it asks the gateway for them at once, so the chart
 * finds the answers waiting instead of asking after it has run (boot/first-requests.ts), and draws
 * once they are in: the frame is laid out unseen meanwhile.
 */

/** The page frame of index.html (the chart page's layout before the app renders) and its chart place. */
export const PAGE_FRAME_ID = 'page-frame';
export const PAGE_FRAME_CHART_ID = 'page-frame-chart';

/** Longest the page frame waits for /info (its source badge) before it is shown without one. */
const FRAME_WAIT_MS = 1_000;
/** Longest the frame waits for the picture's bars before it is shown without them. */
const FRAME_LATEST_MS = 150;
/** Longest the app's code waits for the picture. */
const PICTURE_WAIT_MS = 400;

function readPreferences(): Preferences {
  try {
    return storedPreferences(localStorage);
  } catch {
    return storedPreferences(undefined);
  }
}

/** /info's body, or undefined once FRAME_WAIT_MS have passed without it. */
const infoInTime = (info: Promise<unknown>) => Promise.race([info, new Promise<undefined>((resolve) => setTimeout(resolve, FRAME_WAIT_MS))]);

/**
 * The frame's controls as the app's first render sets them: the resolution, the invert toggle's text
 * and state (lib/invert-label.ts: the sides the URL's symbol names), the currency, the theme, time
 * zone and chart options from the stored preferences.
 */
function fillFrame(frame: HTMLElement, selection: Selection, preferences: Preferences): void {
  const press = (selector: string, pressed: (element: HTMLElement) => boolean) => {
    for (const element of frame.querySelectorAll<HTMLElement>(selector)) {
      if (pressed(element)) element.setAttribute('aria-pressed', 'true');
      else element.removeAttribute('aria-pressed');
    }
  };
  press('[data-res]', (e) => e.dataset.res === selection.resolution);
  press('[data-currency]', (e) => e.dataset.currency === selection.currency);
  press('[data-theme-choice]', (e) => e.dataset.themeChoice === preferences.theme);
  press('[data-zone]', (e) => e.dataset.zone === preferences.timeZone);
  press('[data-option]', (e) => {
    const option = e.dataset.option;
    return option === 'showVolume' || option === 'showTvl' || option === 'logScale' || option === 'compare' ? preferences[option] : false;
  });
  const inverted = selection.inverted && selection.currency !== 'usd';
  press('[data-invert]', () => inverted);
  const invert = frame.querySelector<HTMLElement>('[data-invert]');
  if (invert) invert.textContent = invertLabel(pairOfName(selection.symbol), inverted);
}

/**
 * Shows the page frame with the source badge /info names, the same as the app's top bar carries
 * (features/shell/lib/source-badge.ts), so nothing moves when the app renders.
 */
function revealFrame(frame: HTMLElement, info: unknown): void {
  if (frame.dataset.shown !== undefined) return;
  frame.dataset.shown = '';
  const badge = sourceBadgeOf(typeof info === 'object' && info !== null ? (info as SourceInfo) : undefined);
  if (badge) {
    const element = document.createElement('span');
    element.className = badge.warning ? 'badge badge--warning' : 'badge';
    element.textContent = badge.text;
    frame.querySelector('.topbar__brand')?.append(element);
  }
  frame.hidden = false;
  frame.style.visibility = '';
}

/**
 * Lays the frame out unseen (visibility: hidden), while the main thread waits for the bars: its first
 * style and layout (10-15 ms) are then done when the picture is drawn, instead of being forced by the
 * chart's first measure of its place.
 */
function layOutFrame(frame: HTMLElement): void {
  if (frame.dataset.shown !== undefined || !frame.hidden) return;
  frame.style.visibility = 'hidden';
  frame.hidden = false;
  void frame.offsetHeight;
}

/** Draws the first bars into the frame's chart place (boot/boot-chart.ts) and offers the picture to the app's chart. */
function drawInto(target: string, body: unknown, selection: Selection, preferences: Preferences): void {
  const slot = document.getElementById(PAGE_FRAME_CHART_ID);
  const symbol = provisionalSymbolInfo(target);
  if (body === undefined || !slot?.isConnected || !symbol) return;
  const picture = drawPicture({ slot, target, info: symbol, resolution: selection.resolution, barSeconds: resolutionSeconds(selection.resolution), inverted: selection.inverted, appearance: preferences, body });
  if (picture) offerBootChart(picture);
}

/**
 * With the first bars and /info in the page (the server put them there): shows the frame and draws
 * the picture at once, in the boot script's own run, as a page that only draws them would. The page's
 * stylesheet is in by then (a module script runs after the stylesheets before it).
 */
function drawAtOnce(frame: HTMLElement, bars: BarsInPage, info: unknown, selection: Selection, preferences: Preferences): void {
  revealFrame(frame, info);
  try {
    drawInto(bars.target, JSON.parse(bars.body) as unknown, selection, preferences);
  } catch {
    // The app's chart draws the bars and says what is wrong with them.
  }
}

/**
 * Otherwise, once the first bars are asked (at once for a pair in the URL, after /info for the group's
 * deepest) and their answer and /info are in, shows the frame and draws the bars into its chart place.
 * The frame is shown whatever fails.
 */
async function drawFirstPicture(frame: HTMLElement, info: Promise<unknown>, first: Promise<FirstBars | undefined>, selection: Selection, preferences: Preferences): Promise<void> {
  try {
    const bars = await first;
    if (!bars) return;
    const [body, infoBody] = await Promise.all([bars.copy.then((response): Promise<unknown> | undefined => (response.ok ? response.json() : undefined)), infoInTime(info)]);
    revealFrame(frame, infoBody);
    drawInto(bars.target, body, selection, preferences);
  } finally {
    revealFrame(frame, await infoInTime(info));
  }
}

const selection = parseSelection(location.search);
const preferences = readPreferences();
document.documentElement.dataset.theme = preferences.theme;
const frame = document.getElementById(PAGE_FRAME_ID);
const onChart = frame !== null && selection.view === 'chart';
const picture = onChart && pictureFits(selection, preferences);
const infoInPage = inlineInfo();
const answers = bootRequests(location.search, undefined, Date.now, { copyFirstBars: picture, inlineInfo: infoInPage, inlineBars: inlineBars() });
// The frame is the chart page's: the market overview renders without it.
if (frame && !onChart) frame.remove();
if (frame && onChart) fillFrame(frame, selection, preferences);
// The first bars and /info both in the page: the frame and the picture at once.
const atOnce = frame && picture && infoInPage !== undefined ? answers.inPage : undefined;
if (frame && atOnce) drawAtOnce(frame, atOnce, infoInPage, selection, preferences);
// Else, without a picture, the frame is shown once /info names its badge; with one, with the picture,
// or after FRAME_LATEST_MS when the bars are slow (an upstream far away), so the page is not blank meanwhile.
else if (frame && onChart) {
  const show = () => void infoInTime(answers.info).then((body) => revealFrame(frame, body));
  if (picture) {
    setTimeout(show, FRAME_LATEST_MS);
    // In a task of its own once the first bars are asked: their request is not held back by it.
    void answers.firstBars.then(() => setTimeout(() => layOutFrame(frame)));
  } else show();
}

/**
 * Settles once the picture is drawn, or cannot be (a picture that cannot be drawn is no loss: the app's
 * chart draws the bars), or after PICTURE_WAIT_MS: main.tsx loads the app's code after it, so that
 * compiling and running it does not hold the picture back.
 */
export const pictureSettled: Promise<void> =
  frame && picture && !atOnce
    ? Promise.race([drawFirstPicture(frame, answers.info, answers.firstBars, selection, preferences).catch(() => undefined), new Promise<void>((resolve) => setTimeout(resolve, PICTURE_WAIT_MS))])
    : Promise.resolve();
