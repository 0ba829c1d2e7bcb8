import { describeCondition, type Alert } from '../lib/alert';

export interface FiredNotice {
  readonly id: string;
  readonly text: string;
}

/** What a fired alert says: `SNEK/ADA on Aggregate crossed above 0.0042: 0.00421`. */
export function firedText(alert: Alert): string {
  const at = alert.firedPrice === undefined ? '' : `: ${Number(alert.firedPrice.toPrecision(6))}`;
  const move =
    alert.firedMove === undefined ? '' : ` (${alert.firedMove > 0 ? '+' : ''}${alert.firedMove.toFixed(2)} %)`;
  return `${alert.label} ${describeCondition(alert.condition)
    .replace(/^crosses/, 'crossed')
    .replace(/^moves/, 'moved')}${at}${move}`;
}

/**
 * The page's notices of alerts that fired: a live region (screen readers read each as it comes), in a
 * corner over the page, each with a button to dismiss it. The region is there before anything fires,
 * as a live region must be to be heard.
 */
export function AlertNotices({
  notices,
  onDismiss,
}: {
  notices: readonly FiredNotice[];
  onDismiss: (id: string) => void;
}) {
  return (
    <div
      className="alert-notices"
      role="status"
      aria-live="assertive"
      aria-label="Alerts that fired"
      data-testid="alert-notices"
    >
      {notices.map((notice) => (
        <p key={notice.id} className="alert-notice" data-testid="alert-notice">
          <span>{notice.text}</span>
          <button
            type="button"
            className="button button--small button--ghost"
            onClick={() => onDismiss(notice.id)}
            aria-label={`Dismiss: ${notice.text}`}
          >
            ✕
          </button>
        </p>
      ))}
    </div>
  );
}
