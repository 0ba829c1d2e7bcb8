import { useId } from 'react';
import {
  formatIndicators,
  INDICATOR_DEFAULTS,
  INDICATOR_NAMES,
  parseIndicators,
  type IndicatorSpec,
} from '@/app/lib/indicators';
import { INDICATOR_ADD_MARK } from '../lib/marks';

const KINDS = Object.keys(INDICATOR_DEFAULTS) as IndicatorSpec['kind'][];

/**
 * The chart's indicators: each on or off, with its parameters (period; Bollinger's deviations). The
 * value is the canonical string the URL keeps (`sma20,rsi14`, lib/indicators).
 */
export function IndicatorMenu({
  value,
  onChange,
}: {
  readonly value: string;
  readonly onChange: (next: string) => void;
}) {
  const id = useId();
  const specs = parseIndicators(value);
  const byKind = new Map(specs.map((s) => [s.kind, s]));
  const set = (kind: IndicatorSpec['kind'], next: IndicatorSpec | undefined) => {
    const others = specs.filter((s) => s.kind !== kind);
    onChange(formatIndicators(parseIndicators(formatIndicators(next ? [...others, next] : others))));
  };
  return (
    <details className="indicators" data-testid="indicator-menu">
      <summary className="button">Indicators{specs.length > 0 ? ` (${specs.length})` : ''}</summary>
      <div className="indicators__panel" role="group" aria-label="Indicators">
        {KINDS.map((kind) => {
          const spec = byKind.get(kind);
          const shown = spec ?? INDICATOR_DEFAULTS[kind];
          return (
            <div className="indicators__row" key={kind}>
              <label>
                <input
                  type="checkbox"
                  checked={spec !== undefined}
                  onChange={(e) => {
                    // Performance mark: the pick (its lines drawn: the chart controller's measure).
                    if (e.target.checked) performance.mark(INDICATOR_ADD_MARK, { detail: { kind } });
                    set(kind, e.target.checked ? shown : undefined);
                  }}
                  data-testid={`indicator-${kind}`}
                />{' '}
                {INDICATOR_NAMES[kind]}
              </label>
              {'period' in shown ? (
                <label className="indicators__param">
                  <span className="visually-hidden">{INDICATOR_NAMES[kind]} period</span>
                  <input
                    id={`${id}-${kind}-period`}
                    type="number"
                    min={2}
                    max={500}
                    value={shown.period}
                    data-testid={`indicator-${kind}-period`}
                    onChange={(e) => {
                      const period = Number(e.target.value);
                      if (Number.isFinite(period) && period >= 2) set(kind, { ...shown, period } as IndicatorSpec);
                    }}
                  />
                </label>
              ) : null}
              {'mult' in shown ? (
                <label className="indicators__param">
                  <span className="visually-hidden">Bollinger deviations</span>
                  <input
                    type="number"
                    min={0.5}
                    max={5}
                    step={0.5}
                    value={shown.mult}
                    onChange={(e) => {
                      const mult = Number(e.target.value);
                      if (Number.isFinite(mult) && mult > 0) set(kind, { ...shown, mult } as IndicatorSpec);
                    }}
                  />
                </label>
              ) : null}
            </div>
          );
        })}
      </div>
    </details>
  );
}
