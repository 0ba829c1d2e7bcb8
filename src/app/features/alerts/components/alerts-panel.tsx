import { useLayoutEffect, useRef, useState } from 'react';
import { formatDateTime } from '@/app/lib/time-format';
import type { TimeZoneMode } from '@/app/lib/time-format';
import { describeCondition, type Alert, type AlertCondition } from '../lib/alert';
import type { AlertBook } from '../lib/alert-book';
import { ALERT_ADD_MARK, ALERT_ADDED_MEASURE } from '../lib/marks';
import type { SystemNotifier } from '../lib/notify';
import { AlertForm } from './alert-form';

/** The pair a new alert is made on: the one on screen, in its orientation. */
export interface AlertPair {
  readonly symbol: string;
  readonly group: string;
  readonly pool: string;
  /** `SNEK/ADA on Aggregate` */
  readonly label: string;
  readonly inverted: boolean;
}

const priceText = (price: number) => String(Number(price.toPrecision(6)));

/**
 * The alerts panel: a form for a new alert on the pair shown, and every alert (armed or fired, when,
 * at what price) with its pair's chart, edit, re-arm and remove.
 */
export function AlertsPanel(props: {
  live: boolean;
  book: AlertBook;
  alerts: readonly Alert[];
  pair: AlertPair | undefined;
  price: number | undefined;
  timeZone: TimeZoneMode;
  notifier: SystemNotifier;
  onClose: () => void;
  onShow: (symbol: string, group: string) => void;
}) {
  const { live, book, alerts, pair, price, timeZone, notifier, onClose, onShow } = props;
  const [editing, setEditing] = useState<Alert | undefined>(undefined);
  const [blocked, setBlocked] = useState(false);
  const measuring = useRef(false);

  // The benchmark's "adding an alert": from the press to the next frame with the alert listed.
  useLayoutEffect(() => {
    if (!measuring.current) return;
    measuring.current = false;
    requestAnimationFrame(() => {
      try {
        performance.measure(ALERT_ADDED_MEASURE, ALERT_ADD_MARK);
      } catch {
        // No mark (cleared by a benchmark): nothing to measure.
      }
    });
  }, [alerts]);

  const add = (condition: AlertCondition): string | undefined => {
    if (!pair) return 'No pair is shown';
    performance.mark(ALERT_ADD_MARK);
    try {
      book.add({ ...pair, condition });
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
    measuring.current = true;
    // The first alert asks for the system's notifications (a click's consequence, never on load).
    void notifier.ask().then((answer) => setBlocked(answer === 'denied'));
    return undefined;
  };
  const save = (condition: AlertCondition): string | undefined => {
    if (!editing) return undefined;
    try {
      book.edit(editing.id, condition);
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
    setEditing(undefined);
    return undefined;
  };

  return (
    <section
      className="alerts"
      aria-labelledby="alerts-title"
      id="alerts-panel"
      data-testid="alerts-panel"
      data-live={live ? 'true' : 'false'}
    >
      <div className="alerts__head">
        <h2 id="alerts-title" className="panel-title">
          Alerts
        </h2>
        <button
          type="button"
          className="button button--small button--ghost"
          onClick={onClose}
          aria-label="Close the alerts"
        >
          ✕
        </button>
      </div>
      {editing ? (
        <AlertForm
          key={editing.id}
          pairLabel={editing.label}
          price={undefined}
          editing={editing.condition}
          onSubmit={save}
          onCancel={() => setEditing(undefined)}
        />
      ) : pair ? (
        <AlertForm
          key={`${pair.group}:${pair.symbol}:${pair.inverted}:${price === undefined ? '' : 'p'}`}
          pairLabel={pair.label}
          price={price}
          onSubmit={add}
        />
      ) : (
        <p className="alerts__note">Open a pair’s chart to add an alert on it.</p>
      )}
      {blocked ? (
        <p className="alerts__note">System notifications are blocked for this site: alerts show on this page only.</p>
      ) : null}
      <p className="alerts__note">Alerts are checked while this page is open (in any tab), not while it is closed.</p>
      {alerts.length === 0 ? (
        <p className="alerts__note" data-testid="alerts-empty">
          No alerts yet.
        </p>
      ) : (
        <ul className="alerts__list" data-testid="alerts-list" data-count={alerts.length}>
          {alerts.map((alert) => {
            const what = `${alert.label} ${describeCondition(alert.condition, priceText)}`;
            return (
              <li
                key={alert.id}
                className="alerts__row"
                data-testid="alert-row"
                data-status={alert.status}
                data-id={alert.id}
              >
                <span className="alerts__what">{what}</span>
                <span className={`alerts__status alerts__status--${alert.status}`} data-testid="alert-status">
                  {alert.status === 'armed'
                    ? 'Armed'
                    : `Fired ${alert.firedAt === undefined ? '' : formatDateTime(Math.floor(alert.firedAt / 1000), timeZone)}${alert.firedPrice === undefined ? '' : ` at ${priceText(alert.firedPrice)}`}`}
                </span>
                <span className="alerts__actions">
                  <button
                    type="button"
                    className="button button--small"
                    onClick={() => onShow(alert.symbol, alert.group)}
                    aria-label={`Show the chart: ${what}`}
                  >
                    Chart
                  </button>
                  <button
                    type="button"
                    className="button button--small"
                    onClick={() => setEditing(alert)}
                    aria-label={`Edit alert: ${what}`}
                    data-testid="alert-edit"
                  >
                    Edit
                  </button>
                  {alert.status === 'fired' ? (
                    <button
                      type="button"
                      className="button button--small"
                      onClick={() => book.rearm(alert.id)}
                      aria-label={`Arm again: ${what}`}
                      data-testid="alert-rearm"
                    >
                      Re-arm
                    </button>
                  ) : null}
                  <button
                    type="button"
                    className="button button--small button--ghost"
                    onClick={() => book.remove(alert.id)}
                    aria-label={`Remove alert: ${what}`}
                    data-testid="alert-remove"
                  >
                    ✕
                  </button>
                </span>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
