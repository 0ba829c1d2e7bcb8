import { usePreferences } from '../../../providers/app-providers';

/** Theme (dark by default) and the time zone of times shown (UTC or local). */
export function DisplayToggles() {
  const theme = usePreferences((s) => s.theme);
  const setTheme = usePreferences((s) => s.setTheme);
  const timeZone = usePreferences((s) => s.timeZone);
  const setTimeZone = usePreferences((s) => s.setTimeZone);
  return (
    <div className="button-group" role="group" aria-label="Display">
      <button
        type="button"
        className="button"
        role="switch"
        aria-checked={theme === 'light'}
        aria-label="Light theme"
        onClick={() => setTheme(theme === 'dark' ? 'light' : 'dark')}
        data-testid="theme-toggle"
        data-theme={theme}
      >
        {theme === 'dark' ? 'Dark' : 'Light'}
      </button>
      <button
        type="button"
        className="button"
        role="switch"
        aria-checked={timeZone === 'local'}
        aria-label="Local time (off: UTC)"
        onClick={() => setTimeZone(timeZone === 'utc' ? 'local' : 'utc')}
        data-testid="timezone-toggle"
        data-timezone={timeZone}
      >
        {timeZone === 'utc' ? 'UTC' : 'Local'}
      </button>
    </div>
  );
}
