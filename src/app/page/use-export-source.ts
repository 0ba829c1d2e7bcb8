import { useMemo } from 'react';
import type { SearchRow } from '@/datafeed';
import type { ChartHandle } from '@/app/features/chart';
import type { CompareHandle } from '@/app/features/compare';
import type { ExportSource } from '@/app/features/export';
import { pairLabel } from '@/app/lib/orientation';
import type { Currency } from '@/app/lib/usd';

/** What the export buttons export: the chart's bars in view, or compare mode's lines, with a title and file name. */
export function useExportSource(options: {
  readonly compare: boolean;
  readonly compareHandle: CompareHandle | undefined;
  readonly chartHandle: ChartHandle | undefined;
  readonly pair: SearchRow | undefined;
  readonly title: string | undefined;
  readonly currency: Currency;
}): ExportSource | undefined {
  const { compare, compareHandle, chartHandle, pair, title, currency } = options;
  return useMemo((): ExportSource | undefined => {
    if (compare) {
      if (!compareHandle || !pair) return undefined;
      return {
        kind: 'series',
        fileStem: `${pair.base}.${pair.quote}-compare`,
        title: `${pairLabel(pair)}: Aggregate and DEX pools, % change`,
        visibleSeries: () =>
          compareHandle.visibleLines().map((line) => ({ header: `${line.symbol} (%)`, points: line.points })),
        legend: () => compareHandle.visibleLines().map((line) => ({ label: line.group, color: line.color })),
        screenshot: () => compareHandle.screenshot(),
      };
    }
    if (!chartHandle) return undefined;
    return {
      kind: 'bars',
      fileStem: currency === 'usd' ? `${chartHandle.symbolName}-usd` : chartHandle.symbolName,
      title: title ?? chartHandle.symbolName,
      currency,
      visibleBars: () => chartHandle.visibleBars(),
      screenshot: () => chartHandle.screenshot(),
    };
  }, [compare, compareHandle, chartHandle, pair, title, currency]);
}
