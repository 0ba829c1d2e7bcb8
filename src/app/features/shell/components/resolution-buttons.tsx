import type { ResolutionString } from '@/datafeed';
import { RESOLUTION_CHOICES } from '@/app/stores/selection-store';

/** 1m 5m 15m 1h 1D, the current one pressed. */
export function ResolutionButtons({
  value,
  onChange,
}: {
  value: ResolutionString;
  onChange: (resolution: ResolutionString) => void;
}) {
  return (
    <div className="button-group" role="group" aria-label="Resolution" data-testid="resolution-buttons">
      {RESOLUTION_CHOICES.map((choice) => (
        <button
          key={choice.value}
          type="button"
          className="button button--toggle"
          aria-pressed={value === choice.value}
          aria-label={choice.name}
          title={choice.name}
          onClick={() => onChange(choice.value)}
          data-testid={`resolution-${choice.value}`}
        >
          {choice.label}
        </button>
      ))}
    </div>
  );
}
