import { useState } from 'react';
import { barsToCsv, exportFileName, type ExportBar } from '../lib/csv';

/** What the chart gives the export buttons. */
export interface ExportSource {
  readonly symbolName: string;
  visibleBars(): readonly ExportBar[];
  screenshot(): HTMLCanvasElement;
}

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

/** Export the bars in view as CSV and the chart as PNG. */
export function ExportMenu({ source, resolution }: { source: ExportSource | undefined; resolution: string }) {
  const [message, setMessage] = useState('');
  const exportCsv = () => {
    if (!source) return;
    const bars = source.visibleBars();
    if (bars.length === 0) {
      setMessage('No bars in view to export');
      return;
    }
    download(new Blob([barsToCsv(bars)], { type: 'text/csv' }), exportFileName(source.symbolName, resolution, Date.now(), 'csv'));
    setMessage(`Exported ${bars.length} bars`);
  };
  const exportPng = () => {
    if (!source) return;
    const canvas = source.screenshot();
    canvas.toBlob((blob) => {
      if (!blob) {
        setMessage('The chart image could not be made');
        return;
      }
      download(blob, exportFileName(source.symbolName, resolution, Date.now(), 'png'));
      setMessage('Exported the chart image');
    }, 'image/png');
  };
  return (
    <div className="button-group" role="group" aria-label="Export">
      <button type="button" className="button" onClick={exportCsv} disabled={!source} data-testid="export-csv">
        CSV
      </button>
      <button type="button" className="button" onClick={exportPng} disabled={!source} data-testid="export-png">
        PNG
      </button>
      <span className="visually-hidden" role="status" data-testid="export-status">
        {message}
      </span>
    </div>
  );
}
