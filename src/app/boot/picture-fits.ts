import type { Selection } from '@/app/lib/selection';
import type { Preferences } from '@/app/stores/preferences';

/**
 * Whether the app's first chart looks like the picture: a chart page (not the overview, not compare
 * mode) without indicators and in ADA, from the URL and, where it names none, the stored choices.
 */
export function pictureFits(selection: Selection, preferences: Preferences): boolean {
  return (
    selection.view === 'chart' &&
    !preferences.compare &&
    selection.indicators === '' &&
    preferences.indicators === '' &&
    selection.currency === 'ada' &&
    preferences.currency === 'ada'
  );
}
