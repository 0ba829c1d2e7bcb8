import * as z from 'zod/mini';
import { conditionProblem, fire, rearm, type Alert, type AlertCondition, type Fired } from './alert';

import { ALERTS_KEY } from './alerts-key';

export { ALERTS_KEY };
/** At most this many alerts (each pool an alert follows is one of the live connection's 50). */
export const MAX_ALERTS = 20;

/** What storage the book needs (localStorage, or a stand-in in tests). */
export interface AlertStorage {
  getItem(name: string): string | null;
  setItem(name: string, value: string): void;
}

const conditionSchema = z.union([
  z.object({ kind: z.literal('above'), price: z.number() }),
  z.object({ kind: z.literal('below'), price: z.number() }),
  z.object({ kind: z.literal('move'), percent: z.number(), minutes: z.number() }),
]);

const alertSchema = z.object({
  id: z.string(),
  symbol: z.string(),
  group: z.string(),
  pool: z.string(),
  label: z.string(),
  inverted: z.boolean(),
  condition: conditionSchema,
  createdAt: z.number(),
  status: z.enum(['armed', 'fired']),
  firedAt: z.optional(z.number()),
  firedPrice: z.optional(z.number()),
  firedMove: z.optional(z.number()),
});

/** The alerts in `text` (what storage holds): those that read as alerts with a valid condition; others are dropped. */
export function readAlerts(text: string | null): Alert[] {
  if (!text) return [];
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return [];
  }
  if (!Array.isArray(value)) return [];
  const alerts: Alert[] = [];
  for (const item of value) {
    const parsed = z.safeParse(alertSchema, item);
    if (parsed.success && conditionProblem(parsed.data.condition) === undefined) alerts.push(parsed.data as Alert);
  }
  return alerts.slice(0, MAX_ALERTS);
}

/** Whether storage holds any alert (what the page checks on load before loading the alerts' code). */
export function hasStoredAlerts(storage: AlertStorage): boolean {
  const text = storage.getItem(ALERTS_KEY);
  return text !== null && text !== '[]';
}

/** A new alert's fields (the rest are the book's). */
export type NewAlert = Omit<Alert, 'id' | 'createdAt' | 'status' | 'firedAt' | 'firedPrice' | 'firedMove'>;

/**
 * The alerts, kept in storage: read when made (those armed are armed again: re-armed on the next
 * visit), written at each change. React reads it with `subscribe` / `getSnapshot`.
 */
export class AlertBook {
  private alerts: readonly Alert[];
  private readonly listeners = new Set<() => void>();
  private counter = 0;

  constructor(
    private readonly storage: AlertStorage,
    private readonly now: () => number = Date.now,
  ) {
    this.alerts = readAlerts(storage.getItem(ALERTS_KEY));
  }

  readonly subscribe = (listener: () => void) => {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  };

  readonly getSnapshot = (): readonly Alert[] => this.alerts;

  /** Adds an alert, armed. Throws with the reason when its condition cannot be armed or the book is full. */
  add(alert: NewAlert): Alert {
    const problem = conditionProblem(alert.condition);
    if (problem) throw new Error(problem);
    if (this.alerts.length >= MAX_ALERTS) throw new Error(`At most ${MAX_ALERTS} alerts: remove one first`);
    const made: Alert = {
      ...alert,
      id: `${this.now().toString(36)}-${(this.counter++).toString(36)}`,
      createdAt: this.now(),
      status: 'armed',
    };
    this.write([...this.alerts, made]);
    return made;
  }

  /** A new condition for alert `id`, armed again. */
  edit(id: string, condition: AlertCondition): void {
    const problem = conditionProblem(condition);
    if (problem) throw new Error(problem);
    this.write(this.alerts.map((a) => (a.id === id ? rearm(a, condition) : a)));
  }

  /** Alert `id` armed again after it fired. */
  rearm(id: string): void {
    this.write(this.alerts.map((a) => (a.id === id ? rearm(a) : a)));
  }

  remove(id: string): void {
    this.write(this.alerts.filter((a) => a.id !== id));
  }

  /** Alert `id` fired (if it was still armed): the alert as it now is. */
  fire(id: string, fired: Fired): Alert | undefined {
    const alert = this.alerts.find((a) => a.id === id);
    if (!alert || alert.status !== 'armed') return undefined;
    const done = fire(alert, fired);
    this.write(this.alerts.map((a) => (a.id === id ? done : a)));
    return done;
  }

  private write(next: readonly Alert[]): void {
    this.alerts = next;
    try {
      this.storage.setItem(ALERTS_KEY, JSON.stringify(next));
    } catch {
      // Storage full or refused (private mode): the alerts hold for this visit.
    }
    for (const listener of [...this.listeners]) listener();
  }
}
