import type { ReactNode } from 'react';

/** A button that is on or off (aria-pressed). */
export function ToggleButton({ pressed, onToggle, children, label, testId }: { pressed: boolean; onToggle: () => void; children: ReactNode; label?: string; testId?: string }) {
  return (
    <button type="button" className="button button--toggle" aria-pressed={pressed} onClick={onToggle} aria-label={label} data-testid={testId}>
      {children}
    </button>
  );
}
