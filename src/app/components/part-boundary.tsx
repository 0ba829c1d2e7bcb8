import { Component, type ErrorInfo, type ReactNode } from 'react';
import { ErrorState } from './error-state';

/**
 * The messages browsers give when a module (a lazy chunk) cannot be fetched: Chromium, Firefox,
 * Safari, and Vite's preload of the chunk's CSS.
 */
const CHUNK_FAILURE =
  /dynamically imported module|Importing a module script failed|error loading dynamically imported module|Unable to preload CSS/i;

/** True when `error` says a chunk of the app's code could not load (a reload fetches it again). */
export function isChunkFailure(error: unknown): boolean {
  return error instanceof Error && CHUNK_FAILURE.test(error.message);
}

export interface PartBoundaryProps {
  /** What the part is, as a title's subject: "The trades", "The market overview". */
  readonly label: string;
  readonly testId: string;
  readonly children: ReactNode;
  /** A change of it (another pair) clears an error that was not a chunk's: the part tries again. */
  readonly resetKey?: string;
  /** Reloads the page (a test may pass its own). */
  readonly reload?: () => void;
}

interface PartBoundaryState {
  readonly error: Error | undefined;
}

/**
 * One part of the page (a lazy chunk: the trades, the pools panel, compare mode, the overview) that
 * fails without taking the page down: it says what failed in its place and offers the way back. A
 * chunk that could not load stays failed in the browser until the page is reloaded, so it offers a
 * reload (the selection is in the URL and comes back); another error offers a Retry.
 */
export class PartBoundary extends Component<PartBoundaryProps, PartBoundaryState> {
  override state: PartBoundaryState = { error: undefined };

  static getDerivedStateFromError(error: unknown): PartBoundaryState {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  override componentDidCatch(error: Error, info: ErrorInfo): void {
    console.error(`${this.props.label} failed`, error, info.componentStack);
  }

  override componentDidUpdate(previous: PartBoundaryProps): void {
    if (this.state.error && previous.resetKey !== this.props.resetKey && !isChunkFailure(this.state.error))
      this.setState({ error: undefined });
  }

  override render(): ReactNode {
    const { error } = this.state;
    if (!error) return this.props.children;
    const { label, testId, reload = () => window.location.reload() } = this.props;
    if (isChunkFailure(error)) {
      return (
        <ErrorState
          title={`${label} could not load`}
          message={`Its code could not be fetched (${error.message}). Reload the page to try again: the pair and settings stay as they are.`}
          action={{ label: 'Reload the page', onClick: reload }}
          testId={testId}
        />
      );
    }
    return (
      <ErrorState
        title={`${label} failed`}
        message={error.message}
        onRetry={() => this.setState({ error: undefined })}
        testId={testId}
      />
    );
  }
}
