/**
 * Chart indicators as the URL and preferences keep them: `sma20,ema50,bb20-2,vwap,rsi14`. Computed by
 * the chart (features/chart/lib/indicator-series.ts) with trading-signals.
 */
export type IndicatorSpec =
  | { readonly kind: 'sma' | 'ema' | 'rsi'; readonly period: number }
  | { readonly kind: 'bb'; readonly period: number; readonly mult: number }
  | { readonly kind: 'vwap' };

export const INDICATOR_DEFAULTS = {
  sma: { kind: 'sma', period: 20 },
  ema: { kind: 'ema', period: 50 },
  bb: { kind: 'bb', period: 20, mult: 2 },
  vwap: { kind: 'vwap' },
  rsi: { kind: 'rsi', period: 14 },
} as const satisfies Record<IndicatorSpec['kind'], IndicatorSpec>;

export const INDICATOR_NAMES: Record<IndicatorSpec['kind'], string> = {
  sma: 'SMA',
  ema: 'EMA',
  bb: 'Bollinger bands',
  vwap: 'VWAP',
  rsi: 'RSI',
};

const ORDER: readonly IndicatorSpec['kind'][] = ['sma', 'ema', 'bb', 'vwap', 'rsi'];
const clampPeriod = (n: number) => Math.min(500, Math.max(2, Math.round(n)));

/** Reads `sma20,ema50,bb20-2,vwap,rsi14` (unknown or malformed parts are ignored; one of each kind). */
export function parseIndicators(text: string | null | undefined): IndicatorSpec[] {
  const found = new Map<IndicatorSpec['kind'], IndicatorSpec>();
  for (const part of (text ?? '').toLowerCase().split(',')) {
    const m = /^(sma|ema|rsi|bb|vwap)(\d{1,3})?(?:-(\d(?:\.\d)?))?$/.exec(part.trim());
    if (!m) continue;
    const kind = m[1] as IndicatorSpec['kind'];
    if (found.has(kind)) continue;
    if (kind === 'vwap') found.set(kind, { kind });
    else if (kind === 'bb')
      found.set(kind, {
        kind,
        period: clampPeriod(Number(m[2] ?? 20)),
        mult: Math.min(5, Math.max(0.5, Number(m[3] ?? 2))),
      });
    else found.set(kind, { kind, period: clampPeriod(Number(m[2] ?? INDICATOR_DEFAULTS[kind].period)) });
  }
  return ORDER.flatMap((kind) => found.get(kind) ?? []);
}

export function formatIndicators(specs: readonly IndicatorSpec[]): string {
  return specs
    .map((s) => (s.kind === 'vwap' ? 'vwap' : s.kind === 'bb' ? `bb${s.period}-${s.mult}` : `${s.kind}${s.period}`))
    .join(',');
}

/** A short label: `SMA 20`, `BB 20 2`, `VWAP`, `RSI 14`. */
export function indicatorLabel(spec: IndicatorSpec): string {
  if (spec.kind === 'vwap') return 'VWAP';
  if (spec.kind === 'bb') return `BB ${spec.period} ${spec.mult}`;
  return `${spec.kind.toUpperCase()} ${spec.period}`;
}
