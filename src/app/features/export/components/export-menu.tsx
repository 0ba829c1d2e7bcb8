import { useState } from 'react';
import { formatDateTime } from '@/app/lib/time-format';
import { PALETTES } from '@/app/lib/palette';
import { usePreferences } from '@/app/providers/app-providers';
import { RESOLUTION_CHOICES } from '@/app/stores/selection-store';
import type { Bar } from '@/shared/bars';
import type { ExportSeries } from '../lib/csv';

/** The CSV and PNG makers, a chunk of their own: the first chart does not need them (asked on hover or focus). */
const loadExporters = () => Promise.all([import('../lib/csv'), import('../lib/png')]).then(([csv, png]) => ({ ...csv, ...png }));
type Exporters = Awaited<ReturnType<typeof loadExporters>>;
/** Warms the exporters' chunk (hover, focus); a failure is told when an export asks for it. */
const preloadExporters = () => void loadExporters().catch(() => undefined);

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

function download(blob: Blob, name: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

/** The CSV of what is in view, with the status line; undefined when nothing is in view. */
function csvOf(source: ExportSource, { barsToCsv, seriesToCsv }: Exporters): { text: string; message: string } | undefined {
  if (source.kind === 'bars') {
    const bars = source.visibleBars();
    return bars.length === 0 ? undefined : { text: barsToCsv(bars, source.currency), message: `Exported ${bars.length} bars${source.currency === 'usd' ? ' in USD' : ''}` };
  }
  const series = source.visibleSeries().filter((s) => s.points.length > 0);
  const rows = new Set(series.flatMap((s) => s.points.map((p) => p.time))).size;
  return rows === 0 ? undefined : { text: seriesToCsv(series), message: `Exported ${rows} rows of ${series.length} pools` };
}

/**
 * Export what the chart shows: CSV of the bars in view (compare mode: each line's points in view, one
 * column per pool), PNG of the chart under a strip naming the pair, group and resolution.
 */
export function ExportMenu({ source, resolution }: { source: ExportSource | undefined; resolution: string }) {
  const [message, setMessage] = useState('');
  const [failure, setFailure] = useState('');
  const theme = usePreferences((s) => s.theme);
  const timeZone = usePreferences((s) => s.timeZone);
  /** The exporters, or undefined when their chunk could not load (said on screen: a browser keeps it failed until a reload). */
  const exporters = async (): Promise<Exporters | undefined> => {
    try {
      const loaded = await loadExporters();
      setFailure('');
      return loaded;
    } catch (error) {
      setMessage('');
      setFailure(`The export could not load (${error instanceof Error ? error.message : String(error)}): reload the page to try again`);
      return undefined;
    }
  };
  const exportCsv = async () => {
    if (!source) return;
    const loaded = await exporters();
    if (!loaded) return;
    const csv = csvOf(source, loaded);
    if (!csv) {
      setMessage(source.kind === 'bars' ? 'No bars in view to export' : 'No compared lines in view to export');
      return;
    }
    download(new Blob([csv.text], { type: 'text/csv' }), loaded.exportFileName(source.fileStem, resolution, Date.now(), 'csv'));
    setMessage(csv.message);
  };
  const exportPng = async () => {
    if (!source) return;
    const loaded = await exporters();
    if (!loaded) return;
    const { withTitleStrip, exportFileName } = loaded;
    const palette = PALETTES[theme];
    const resolutionName = RESOLUTION_CHOICES.find((c) => c.value === resolution)?.name ?? resolution;
    const now = Date.now();
    const canvas = withTitleStrip(
      source.screenshot(),
      {
        title: `${source.title} · ${resolutionName}`,
        note: `Cardano DEX Charts · ${formatDateTime(Math.floor(now / 1000), timeZone, true)}`,
        ...(source.kind === 'series' ? { legend: source.legend() } : {}),
      },
      { background: palette.background, text: palette.text, muted: palette.crosshair },
      window.devicePixelRatio > 0 ? window.devicePixelRatio : 1,
    );
    canvas.toBlob((blob) => {
      if (!blob) {
        setMessage('The chart image could not be made');
        return;
      }
      download(blob, exportFileName(source.fileStem, resolution, now, 'png'));
      setMessage('Exported the chart image');
    }, 'image/png');
  };
  return (
    <div className="button-group" role="group" aria-label="Export" onPointerEnter={preloadExporters} onFocus={preloadExporters}>
      <button type="button" className="button" onClick={() => void exportCsv()} disabled={!source} data-testid="export-csv">
        CSV
      </button>
      <button type="button" className="button" onClick={() => void exportPng()} disabled={!source} data-testid="export-png">
        PNG
      </button>
      <span className="visually-hidden" role="status" data-testid="export-status">
        {message}
      </span>
      {failure ? (
        <span className="export__failure" role="alert" data-testid="export-error">
          {failure}
        </span>
      ) : null}
    </div>
  );
}
