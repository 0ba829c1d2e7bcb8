import { useState } from 'react';
import { usePreferences } from '@/app/providers/app-providers';
import type { ExportSource } from '../lib/source';

export type { ExportSource } from '../lib/source';

/** The exports (the CSV and PNG makers), a chunk of their own: the first chart does not need them (asked on hover or focus). */
const loadExporters = () => import('../lib/run-export');
type Exporters = Awaited<ReturnType<typeof loadExporters>>;
/** Warms the exporters' chunk (hover, focus); a failure is told when an export asks for it. */
const preloadExporters = () => void loadExporters().catch(() => undefined);

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
      setFailure(
        `The export could not load (${error instanceof Error ? error.message : String(error)}): reload the page to try again`,
      );
      return undefined;
    }
  };
  const exportCsv = async () => {
    if (!source) return;
    const loaded = await exporters();
    if (loaded) setMessage(loaded.exportCsv(source, resolution));
  };
  const exportPng = async () => {
    if (!source) return;
    const loaded = await exporters();
    if (loaded) setMessage(await loaded.exportPng(source, resolution, theme, timeZone));
  };
  return (
    <div
      className="button-group"
      role="group"
      aria-label="Export"
      onPointerEnter={preloadExporters}
      onFocus={preloadExporters}
    >
      <button
        type="button"
        className="button"
        onClick={() => void exportCsv()}
        disabled={!source}
        data-testid="export-csv"
      >
        CSV
      </button>
      <button
        type="button"
        className="button"
        onClick={() => void exportPng()}
        disabled={!source}
        data-testid="export-png"
      >
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
