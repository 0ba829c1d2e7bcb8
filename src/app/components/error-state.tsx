export interface ErrorStateProps {
  readonly title: string;
  readonly message: string;
  readonly onRetry?: () => void;
  /** A second way out, e.g. "Show the default pair". */
  readonly action?: { readonly label: string; readonly onClick: () => void };
  readonly testId?: string;
}

/** An error with its message (the server's own words) and a Retry button. */
export function ErrorState({ title, message, onRetry, action, testId = 'error-state' }: ErrorStateProps) {
  return (
    <div className="error-state" role="alert" data-testid={testId}>
      <p className="error-state__title">{title}</p>
      <p className="error-state__message" data-testid={`${testId}-message`}>
        {message}
      </p>
      <div className="error-state__actions">
        {onRetry ? (
          <button type="button" className="button" onClick={onRetry} data-testid={`${testId}-retry`}>
            Retry
          </button>
        ) : null}
        {action ? (
          <button
            type="button"
            className="button button--primary"
            onClick={action.onClick}
            data-testid={`${testId}-action`}
          >
            {action.label}
          </button>
        ) : null}
      </div>
    </div>
  );
}
