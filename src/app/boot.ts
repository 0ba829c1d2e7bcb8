import { offerBootChart } from './boot/boot-chart-handle';
import { bootRequests, type FirstBars } from './boot/first-requests';
import { sourceBadgeOf, type SourceInfo } from './features/shell/lib/source-badge';
import { pictureFits } from './boot/picture-fits';
import { parseSelection, type Selection } from './lib/selection';
import { storedPreferences, type Preferences } from './stores/preferences';

/**
 * The page's first script (main.tsx imports it before anything else), a few kilobytes without React,
 * zod or the chart: it asks the gateway for what the first chart needs while the app's own code is
 * still loading, so the chart finds the answers waiting instead of asking after it has run
 * (boot/first-requests.ts). On a chart page it shows the page frame of index.html in the user's theme
 * and draws the first bars into the frame's chart place (boot/boot-chart.ts), which the app's chart
 * takes over.
 */

/** The page frame of index.html (the chart page's layout before the app renders) and its chart place. */
export const PAGE_FRAME_ID = 'page-frame';
export const PAGE_FRAME_CHART_ID = 'page-frame-chart';

function readPreferences(): Preferences {
  try {
    return storedPreferences(localStorage);
  } catch {
    return storedPreferences(undefined);
  }
}

/** Longest the app's code waits for the picture. */
const PICTURE_WAIT_MS = 400;

/** Longest the page frame waits for /info (its source badge) before it is shown without. */
const FRAME_WAIT_MS = 1_000;

/**
 * Shows the page frame once /info has said where the prices come from: its top bar then carries the
 * same badge as the app's (features/shell/lib/source-badge.ts), so nothing moves when the app renders.
 */
async function showFrame(frame: HTMLElement, info: Promise<unknown>): Promise<void> {
  const body = await Promise.race([info, new Promise((resolve) => setTimeout(resolve, FRAME_WAIT_MS))]);
  const badge = sourceBadgeOf(typeof body === 'object' && body !== null ? (body as SourceInfo) : undefined);
  if (badge) {
    const element = document.createElement('span');
    element.className = badge.warning ? 'badge badge--warning' : 'badge';
    element.textContent = badge.text;
    frame.querySelector('.topbar__brand')?.append(element);
  }
  frame.hidden = false;
}

/** Draws the picture into the shown frame once the bars and the chart's code are in (nothing when either fails). */
async function drawFirstPicture(shown: Promise<void>, first: Promise<FirstBars | undefined>, selection: Selection, preferences: Preferences): Promise<void> {
  const chunk = import('./boot/boot-chart');
  const bars = await first;
  if (!bars) return;
  const response = await bars.copy;
  if (!response.ok) return;
  const body: unknown = await response.json();
  const { drawPicture } = await chunk;
  await shown;
  const slot = document.getElementById(PAGE_FRAME_CHART_ID);
  if (!slot) return;
  const picture = drawPicture({ slot, target: bars.target, resolution: selection.resolution, inverted: selection.inverted, appearance: preferences, body });
  if (picture) offerBootChart(picture);
}

const selection = parseSelection(location.search);
const preferences = readPreferences();
document.documentElement.dataset.theme = preferences.theme;
const frame = document.getElementById(PAGE_FRAME_ID);
const picture = frame !== null && pictureFits(selection, preferences);
const answers = bootRequests(location.search, undefined, Date.now, { copyFirstBars: picture });
// The frame is the chart page's: the market overview renders without it.
if (frame && selection.view !== 'chart') frame.remove();
const shown = frame && selection.view === 'chart' ? showFrame(frame, answers.info) : Promise.resolve();
/**
 * Settles once the picture is drawn, or cannot be (a picture that cannot be drawn is no loss: the app's
 * chart draws the bars), or after PICTURE_WAIT_MS: main.tsx loads the app's code after it, so that
 * compiling and running it does not hold the picture back.
 */
export const pictureSettled: Promise<void> = picture
  ? Promise.race([drawFirstPicture(shown, answers.firstBars, selection, preferences).catch(() => undefined), new Promise<void>((resolve) => setTimeout(resolve, PICTURE_WAIT_MS))])
  : Promise.resolve();
