// First: before any zod schema is built (lib/strict-csp.ts).
import './lib/strict-csp';
import { pictureSettled } from './boot';
import './styles/app.css';
import { parseSelection } from './lib/selection';

// The page's one script: the boot script above (the page frame, the first picture of the chart and the
// boot requests: boot.ts), then the app's code, whose chart finds the answers waiting.
// A page opened on the market overview fetches the overview's chunk beside the app's (start.tsx waits
// for it before the first render).
if (parseSelection(location.search).view === 'markets') void import('./features/overview').catch(() => undefined);
void pictureSettled.then(() => import('./start')).then(({ startApp }) => startApp());
