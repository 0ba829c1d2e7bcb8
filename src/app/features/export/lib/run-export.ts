import { formatDateTime, type TimeZoneMode } from '@/app/lib/time-format';
import { PALETTES, type Theme } from '@/app/lib/palette';
import { RESOLUTION_CHOICES } from '@/app/stores/selection-store';
import { barsToCsv, exportFileName, seriesToCsv } from './csv';
import { withTitleStrip } from './png';
import type { ExportSource } from './source';

/*
 * The exports themselves, a chunk of their own with the CSV and PNG makers (the export buttons load it
 * on hover, focus or a press): the first chart needs none of it.
 */

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

/** Downloads the CSV of what is in view; what to say (the status line). */
export function exportCsv(source: ExportSource, resolution: string): string {
  let text: string;
  let message: string;
  if (source.kind === 'bars') {
    const bars = source.visibleBars();
    if (bars.length === 0) return 'No bars in view to export';
    text = barsToCsv(bars, source.currency);
    message = `Exported ${bars.length} bars${source.currency === 'usd' ? ' in USD' : ''}`;
  } else {
    const series = source.visibleSeries().filter((s) => s.points.length > 0);
    const rows = new Set(series.flatMap((s) => s.points.map((p) => p.time))).size;
    if (rows === 0) return 'No compared lines in view to export';
    text = seriesToCsv(series);
    message = `Exported ${rows} rows of ${series.length} pools`;
  }
  download(new Blob([text], { type: 'text/csv' }), exportFileName(source.fileStem, resolution, Date.now(), 'csv'));
  return message;
}

/** Downloads the PNG of the chart under a strip naming the pair, group and resolution; what to say. */
export function exportPng(
  source: ExportSource,
  resolution: string,
  theme: Theme,
  timeZone: TimeZoneMode,
): Promise<string> {
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
  return new Promise((resolve) =>
    canvas.toBlob((blob) => {
      if (!blob) {
        resolve('The chart image could not be made');
        return;
      }
      download(blob, exportFileName(source.fileStem, resolution, now, 'png'));
      resolve('Exported the chart image');
    }, 'image/png'),
  );
}
