import './boot';
import './styles/app.css';

// The page's entry: the boot requests above (a few kilobytes, sent at once), then the app's code, whose
// chart finds their answers waiting.
void import('./start').then(({ startApp }) => startApp());
