import { useLiveStatus } from '@/app/providers/app-providers';
import type { LiveState } from '@/app/providers/live-status';

const LABELS: Readonly<Record<LiveState, string>> = {
  idle: 'History only',
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Reconnecting…',
  offline: 'Offline',
};

const DESCRIPTIONS: Readonly<Record<LiveState, string>> = {
  idle: 'No live updates for this pool: DEX pools show history, refreshed every minute',
  connecting: 'Opening the live connection',
  live: 'Live updates on',
  reconnecting: 'The live connection dropped; reconnecting',
  offline: 'No connection',
};

/** Live / reconnecting / offline, from the gateway's status events and the browser's online state. */
export function ConnectionStatus() {
  const { state, detail } = useLiveStatus();
  return (
    <div
      className={`status status--${state}`}
      role="status"
      aria-live="polite"
      data-testid="connection-status"
      data-state={state}
      title={detail ?? DESCRIPTIONS[state]}
    >
      <span className="status__dot" aria-hidden="true" />
      <span>{LABELS[state]}</span>
      <span className="visually-hidden">{detail ? `: ${detail}` : ''}</span>
    </div>
  );
}
