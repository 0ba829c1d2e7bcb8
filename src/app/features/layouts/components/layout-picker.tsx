import { ToggleButton } from '@/app/components/toggle-button';
import type { LayoutKind } from '@/app/lib/layout';
import { LAYOUT_CHOICES } from '@/app/lib/layout-edit';

/**
 * The toolbar's layout buttons (one chart, two side by side or stacked, four) and, with several
 * charts, the switch that keeps their crosshair and time range in step. Light on purpose: it is in the
 * chart page's first code; the layouts themselves are a chunk loaded when one is chosen.
 */
export function LayoutPicker({
  kind,
  sync,
  onKind,
  onSync,
}: {
  kind: LayoutKind;
  sync: boolean;
  onKind: (kind: LayoutKind) => void;
  onSync: (sync: boolean) => void;
}) {
  return (
    <div className="button-group layout-picker" role="group" aria-label="Layout" data-testid="layout-picker">
      {LAYOUT_CHOICES.map((choice) => (
        <button
          key={choice.kind}
          type="button"
          className="button button--toggle"
          aria-pressed={kind === choice.kind}
          aria-label={choice.name}
          title={choice.name}
          onClick={() => onKind(choice.kind)}
          data-testid={`layout-${choice.kind}`}
        >
          {choice.label}
        </button>
      ))}
      {kind === '1' ? null : (
        <ToggleButton
          pressed={sync}
          onToggle={() => onSync(!sync)}
          label="Keep crosshair and time in step"
          testId="layout-sync"
        >
          ⇄
        </ToggleButton>
      )}
    </div>
  );
}
