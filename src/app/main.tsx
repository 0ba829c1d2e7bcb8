// First: before any zod schema is built (lib/strict-csp.ts).
import './lib/strict-csp';
import './styles/app.css';
import { firstPaint } from './first-paint';
import { afterNextFrame } from './lib/after-next-frame';
import { parseSelection } from './lib/selection';

// The page's one script: the page's first paint (first-paint.ts: the app's chart drawn from the bars
// the page carries, in this script's own run), then the app's code, which takes the chart over.
const paint = firstPaint();
// A page opened on the market overview fetches the overview's chunk beside the app's (start.tsx waits
// for it before the first render).
if (parseSelection(location.search).view === 'markets') void import('./features/overview').catch(() => undefined);
const start = () => void import('./start').then(({ startApp }) => startApp(paint));
// With a chart drawn, the app's code (its chunks' download and compile as much as its run) is asked
// after the browser's next frame: the frame that draws those candles and answers the pointer comes
// sooner without it on two cores (docs/app.md, "First load"). Without one, the app starts at once.
if (paint.chart) afterNextFrame(start);
else start();
