import { useId, useState, type FormEvent } from 'react';
import { conditionProblem, type AlertCondition } from '../lib/alert';

type Kind = AlertCondition['kind'];

/** The form's fields as typed (text: a number being typed is not one yet). */
interface Fields {
  kind: Kind;
  price: string;
  percent: string;
  minutes: string;
}

function fieldsOf(condition: AlertCondition | undefined, price: number | undefined): Fields {
  const typed = (n: number | undefined) =>
    n === undefined || !Number.isFinite(n) ? '' : String(Number(n.toPrecision(8)));
  if (!condition) return { kind: 'above', price: typed(price), percent: '5', minutes: '15' };
  if (condition.kind === 'move')
    return {
      kind: 'move',
      price: typed(price),
      percent: String(condition.percent),
      minutes: String(condition.minutes),
    };
  return { kind: condition.kind, price: typed(condition.price), percent: '5', minutes: '15' };
}

function conditionOf(fields: Fields): AlertCondition {
  if (fields.kind === 'move') return { kind: 'move', percent: Number(fields.percent), minutes: Number(fields.minutes) };
  return { kind: fields.kind, price: fields.price.trim() === '' ? Number.NaN : Number(fields.price) };
}

/**
 * A new alert's condition (or an alert's, edited): crosses above / below a price, or moves more than
 * N % within T minutes. `price`: the pair's price now, the threshold's first value.
 */
export function AlertForm({
  pairLabel,
  price,
  editing,
  onSubmit,
  onCancel,
}: {
  pairLabel: string;
  price: number | undefined;
  editing?: AlertCondition | undefined;
  onSubmit: (condition: AlertCondition) => string | undefined;
  onCancel?: () => void;
}) {
  const id = useId();
  const [fields, setFields] = useState<Fields>(() => fieldsOf(editing, price));
  const [problem, setProblem] = useState<string | undefined>(undefined);
  const set = (patch: Partial<Fields>) => setFields((f) => ({ ...f, ...patch }));
  const submit = (event: FormEvent) => {
    event.preventDefault();
    const condition = conditionOf(fields);
    const why = conditionProblem(condition) ?? onSubmit(condition);
    setProblem(why);
  };
  return (
    <form
      className="alert-form"
      onSubmit={submit}
      aria-label={editing ? `Edit the alert on ${pairLabel}` : `New alert on ${pairLabel}`}
      data-testid="alert-form"
      noValidate
    >
      <p className="alert-form__pair">{editing ? `Edit: ${pairLabel}` : pairLabel}</p>
      <label className="field">
        <span className="field__label">When the price</span>
        <select
          className="select"
          value={fields.kind}
          onChange={(e) => set({ kind: e.target.value as Kind })}
          data-testid="alert-kind"
        >
          <option value="above">crosses above</option>
          <option value="below">crosses below</option>
          <option value="move">moves more than</option>
        </select>
      </label>
      {fields.kind === 'move' ? (
        <>
          <label className="field">
            <span className="field__label">Percent</span>
            <input
              className="alert-form__input"
              type="number"
              inputMode="decimal"
              min="0.01"
              step="any"
              value={fields.percent}
              onChange={(e) => set({ percent: e.target.value })}
              data-testid="alert-percent"
            />
          </label>
          <label className="field">
            <span className="field__label">Within minutes</span>
            <input
              className="alert-form__input"
              type="number"
              inputMode="numeric"
              min="1"
              step="1"
              value={fields.minutes}
              onChange={(e) => set({ minutes: e.target.value })}
              data-testid="alert-minutes"
            />
          </label>
        </>
      ) : (
        <label className="field">
          <span className="field__label">Price</span>
          <input
            className="alert-form__input"
            type="number"
            inputMode="decimal"
            min="0"
            step="any"
            value={fields.price}
            onChange={(e) => set({ price: e.target.value })}
            aria-describedby={problem ? `${id}-problem` : undefined}
            data-testid="alert-price"
          />
        </label>
      )}
      <div className="alert-form__actions">
        <button type="submit" className="button" data-testid="alert-submit">
          {editing ? 'Save alert' : 'Add alert'}
        </button>
        {onCancel ? (
          <button type="button" className="button" onClick={onCancel}>
            Cancel
          </button>
        ) : null}
      </div>
      {problem ? (
        <p id={`${id}-problem`} className="alert-form__problem" role="alert" data-testid="alert-problem">
          {problem}
        </p>
      ) : null}
    </form>
  );
}
