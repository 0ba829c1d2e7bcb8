import { pictureSettled } from './boot';
import './styles/app.css';
import { parseSelection } from './lib/selection';

// The page's entry: the boot requests above (a few kilobytes, sent at once), then the app's code, whose
// chart finds their answers waiting.
// A page opened on the market overview fetches the overview's chunk beside the app's (start.tsx waits
// for it before the first render).
if (parseSelection(location.search).view === 'markets') void import('./features/overview').catch(() => undefined);
void pictureSettled.then(() => import('./start')).then(({ startApp }) => startApp());
