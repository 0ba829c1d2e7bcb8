/** A determinate progress bar with its label (steps of a load). */
export function ProgressBar({ label, value, max }: { label: string; value: number; max: number }) {
  return (
    <div className="progress">
      <div className="progress__label" id="chart-progress-label">
        {label}
      </div>
      <div
        className="progress__track"
        role="progressbar"
        aria-labelledby="chart-progress-label"
        aria-valuemin={0}
        aria-valuemax={max}
        aria-valuenow={value}
      >
        <div className="progress__fill" style={{ width: `${Math.round((value / max) * 100)}%` }} />
      </div>
    </div>
  );
}
