import type { ReactNode } from 'react';

/** A button that is on or off (aria-pressed); `disabled` with a `title` saying why. */
export function ToggleButton({
  pressed,
  onToggle,
  children,
  label,
  testId,
  disabled,
  title,
  className,
}: {
  pressed: boolean;
  onToggle: () => void;
  children: ReactNode;
  label?: string;
  testId?: string;
  disabled?: boolean;
  title?: string;
  /** More classes beside the button's own. */
  className?: string;
}) {
  return (
    <button
      type="button"
      className={className ? `button button--toggle ${className}` : 'button button--toggle'}
      aria-pressed={pressed}
      onClick={onToggle}
      aria-label={label}
      data-testid={testId}
      disabled={disabled}
      title={title}
    >
      {children}
    </button>
  );
}
