import { usePreferences } from '@/app/providers/app-providers';

/** Theme (dark by default) and the time zone of times shown (UTC by default, or local): two segmented controls. */
export function DisplayToggles() {
  const theme = usePreferences((s) => s.theme);
  const setTheme = usePreferences((s) => s.setTheme);
  const timeZone = usePreferences((s) => s.timeZone);
  const setTimeZone = usePreferences((s) => s.setTimeZone);
  return (
    <>
      <div
        className="button-group segmented"
        role="group"
        aria-label="Theme"
        data-testid="theme-toggle"
        data-theme={theme}
      >
        <button
          type="button"
          className="button button--toggle"
          aria-pressed={theme === 'dark'}
          onClick={() => setTheme('dark')}
        >
          Dark
        </button>
        <button
          type="button"
          className="button button--toggle"
          aria-pressed={theme === 'light'}
          onClick={() => setTheme('light')}
        >
          Light
        </button>
      </div>
      <div
        className="button-group segmented"
        role="group"
        aria-label="Time zone"
        data-testid="timezone-toggle"
        data-timezone={timeZone}
      >
        <button
          type="button"
          className="button button--toggle"
          aria-pressed={timeZone === 'utc'}
          onClick={() => setTimeZone('utc')}
        >
          UTC
        </button>
        <button
          type="button"
          className="button button--toggle"
          aria-pressed={timeZone === 'local'}
          onClick={() => setTimeZone('local')}
        >
          Local
        </button>
      </div>
    </>
  );
}
