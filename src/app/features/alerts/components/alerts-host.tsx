import { useQuery } from '@tanstack/react-query';
import { useEffect, useState, useSyncExternalStore } from 'react';
import { tokenStatsSchema } from '@/shared/api/tokens';
import { AGGREGATE_GROUP } from '@/shared/groups';
import { tokenStatsQueryOptions } from '@/app/api/token-stats';
import { useApi, useDatafeed, usePreferences, useStorage } from '@/app/providers/app-providers';
import type { Alert } from '../lib/alert';
import { AlertBook } from '../lib/alert-book';
import { AlertWatcher } from '../lib/alert-watcher';
import { browserNotifier, type SystemNotifier } from '../lib/notify';
import { AlertNotices, firedText, type FiredNotice } from './alert-notices';
import { AlertsPanel, type AlertPair } from './alerts-panel';

export type { AlertPair } from './alerts-panel';

export interface AlertsHostProps {
  /** The panel is shown. */
  readonly open: boolean;
  readonly onClose: () => void;
  /** The pair on screen (a new alert's), if any. */
  readonly pair: AlertPair | undefined;
  /** Shows an alert's pair. */
  readonly onShow: (symbol: string, group: string) => void;
  /** The system's notifications (default: the browser's). */
  readonly notifier?: SystemNotifier;
}

/**
 * The alerts part, loaded when the first alert is made or the page starts with alerts kept: the book
 * (kept in the browser's storage), the watcher that follows every armed alert through the one live
 * connection, the notices of alerts that fired (on the page, and the system's where allowed), and
 * the panel when it is open.
 */
export function AlertsHost({ open, onClose, pair, onShow, notifier: given }: AlertsHostProps) {
  const datafeed = useDatafeed();
  const api = useApi();
  const storage = useStorage();
  const timeZone = usePreferences((s) => s.timeZone);
  const [notifier] = useState(() => given ?? browserNotifier());
  const [book] = useState(() => new AlertBook(storage));
  const [notices, setNotices] = useState<readonly FiredNotice[]>([]);
  const [live, setLive] = useState(false);
  const alerts = useSyncExternalStore(book.subscribe, book.getSnapshot, book.getSnapshot);

  useEffect(() => {
    const watcher = new AlertWatcher(
      book,
      {
        onTrades: (target, listener) => datafeed.onTrades(target, listener),
        poolPrice: async (pool) => (await api.getOrThrow('/tokens/current', { pool }, tokenStatsSchema)).current_price,
      },
      (alert: Alert) => {
        const text = firedText(alert);
        setNotices((before) => [...before.slice(-4), { id: alert.id, text }]);
        notifier.show(`Alert: ${alert.label}`, text, alert.id);
      },
      { onLive: setLive },
    );
    return () => watcher.dispose();
  }, [book, datafeed, api, notifier]);

  const stats = useQuery({
    ...tokenStatsQueryOptions(api, pair?.pool ?? '', pair?.group === AGGREGATE_GROUP),
    enabled: open && pair !== undefined,
  });
  const native = stats.data?.current_price;
  const price = native === undefined || native <= 0 ? undefined : pair?.inverted ? 1 / native : native;

  return (
    <>
      <AlertNotices notices={notices} onDismiss={(id) => setNotices((before) => before.filter((n) => n.id !== id))} />
      {open ? (
        <AlertsPanel
          live={live}
          book={book}
          alerts={alerts}
          pair={pair}
          price={price}
          timeZone={timeZone}
          notifier={notifier}
          onClose={onClose}
          onShow={onShow}
        />
      ) : null}
    </>
  );
}
