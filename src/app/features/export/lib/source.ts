import type { Bar } from '@/shared/bars';
import type { ExportSeries } from './csv';

interface ExportCommon {
  /** File names start with it: the symbol name, or `ADA.SNEK-compare` in compare mode. */
  readonly fileStem: string;
  /** The image's title: the pair and group (`ADA/SNEK on Aggregate`); the resolution is added. */
  readonly title: string;
  /** The chart as a canvas (lightweight-charts' screenshot). */
  screenshot(): HTMLCanvasElement;
}

/** The candlestick chart: its bars in view. */
export interface BarsExportSource extends ExportCommon {
  readonly kind: 'bars';
  /** The currency the bars are in (the CSV's header says USD): ADA by default. */
  readonly currency?: 'ada' | 'usd';
  visibleBars(): readonly Bar[];
}

/** Compare mode: each line's points in view, and the lines' colours for the image's legend. */
export interface SeriesExportSource extends ExportCommon {
  readonly kind: 'series';
  visibleSeries(): readonly ExportSeries[];
  legend(): readonly { readonly label: string; readonly color: string }[];
}

/** What a chart gives the export buttons. */
export type ExportSource = BarsExportSource | SeriesExportSource;
