/**
 * The system's notifications (the Notifications API), where the browser has them and the user allows
 * them: permission is asked the first time an alert is made (a click's consequence, never on load).
 */
export interface SystemNotifier {
  /** Asks for permission when the user has not answered yet; resolves with the answer. */
  ask(): Promise<NotificationPermission | 'unsupported'>;
  /** Shows a notification when allowed (nothing otherwise). */
  show(title: string, body: string, tag: string): void;
}

/** The browser's Notification (or none: an older browser, a WebView, jsdom). */
export function browserNotifier(host: { Notification?: typeof Notification } = globalThis): SystemNotifier {
  const api = host.Notification;
  return {
    ask: async () => {
      if (!api) return 'unsupported';
      if (api.permission !== 'default') return api.permission;
      try {
        return await api.requestPermission();
      } catch {
        return api.permission;
      }
    },
    show: (title, body, tag) => {
      if (!api || api.permission !== 'granted') return;
      try {
        new api(title, { body, tag });
      } catch {
        // Some browsers allow notifications only from a service worker (Chrome on Android): the page's notice is there.
      }
    },
  };
}
