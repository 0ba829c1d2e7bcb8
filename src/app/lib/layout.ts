import type { ResolutionString } from '@/datafeed';
import { normaliseResolution } from '@/app/lib/first-chart';

/** The chart page's layouts: one chart, two side by side (`2h`) or stacked (`2v`), four in a grid. */
export type LayoutKind = '1' | '2h' | '2v' | '4';

/** A chart of a layout beyond the first: its own group, pair (undefined: the group's deepest) and resolution. */
export interface LayoutCell {
  readonly group: string;
  readonly symbol: string | undefined;
  readonly resolution: ResolutionString;
}

/**
 * The charts on screen beside the first (whose group, symbol and resolution are the selection's own):
 * URL `layout=2h|2v|4`, each further chart `c2=<res>,<group>,<symbol>` … `c4` (the symbol last, as it is
 * free text; empty: the group's deepest pair), `sync=1` when crosshair and time range move together.
 */
export interface Layout {
  readonly kind: LayoutKind;
  /** Charts 2 … n (n = the layout's count), in order. */
  readonly cells: readonly LayoutCell[];
  readonly sync: boolean;
}

export const SINGLE_LAYOUT: Layout = { kind: '1', cells: [], sync: false };

/** The URL parameters the layout owns. */
export const LAYOUT_PARAMS = ['layout', 'c2', 'c3', 'c4', 'sync'] as const;

/** How many charts a layout shows. */
export function chartCount(kind: LayoutKind): number {
  return kind === '1' ? 1 : kind === '4' ? 4 : 2;
}

/** Resolutions a new chart takes (chart 2, 3, 4): the first chart's pair over other spans. */
const DEFAULT_CELL_RESOLUTIONS: readonly ResolutionString[] = [
  '1D' as ResolutionString,
  '15' as ResolutionString,
  '5' as ResolutionString,
];

/** The chart `index` (2 … 4) of a new layout: the first chart's pair and group, another resolution. */
export function defaultCell(
  index: number,
  first: { readonly group: string; readonly symbol: string | undefined },
): LayoutCell {
  return {
    group: first.group,
    symbol: first.symbol,
    resolution: DEFAULT_CELL_RESOLUTIONS[index - 2] ?? ('60' as ResolutionString),
  };
}

function parseKind(value: string | null): LayoutKind {
  const v = value?.trim().toLowerCase();
  return v === '2h' || v === '2v' || v === '4' ? v : v === '2' ? '2h' : '1';
}

/** A cell of the URL (`<res>,<group>,<symbol>`), or undefined when it does not read as one. */
export function parseCell(value: string | null): LayoutCell | undefined {
  if (!value) return undefined;
  const first = value.indexOf(',');
  const second = first < 0 ? -1 : value.indexOf(',', first + 1);
  if (second < 0) return undefined;
  const resolution = normaliseResolution(value.slice(0, first));
  const group = value.slice(first + 1, second).trim();
  const symbol = value.slice(second + 1).trim();
  if (!resolution || group === '') return undefined;
  return { group, symbol: symbol === '' ? undefined : symbol, resolution: resolution as ResolutionString };
}

export function formatCell(cell: LayoutCell): string {
  return `${cell.resolution},${cell.group},${cell.symbol ?? ''}`;
}

/** The layout of a query string; charts it does not describe (or describes badly) take the defaults. */
export function parseLayout(
  params: URLSearchParams,
  first: { readonly group: string; readonly symbol: string | undefined },
): Layout {
  const kind = parseKind(params.get('layout'));
  if (kind === '1') return SINGLE_LAYOUT;
  const cells: LayoutCell[] = [];
  for (let i = 2; i <= chartCount(kind); i++) cells.push(parseCell(params.get(`c${i}`)) ?? defaultCell(i, first));
  return { kind, cells, sync: params.get('sync') === '1' };
}

/** Writes a layout's parameters (none for one chart). */
export function formatLayout(layout: Layout, params: URLSearchParams): void {
  if (layout.kind === '1') return;
  params.set('layout', layout.kind);
  layout.cells.forEach((cell, i) => params.set(`c${i + 2}`, formatCell(cell)));
  if (layout.sync) params.set('sync', '1');
}

export function sameLayout(a: Layout, b: Layout): boolean {
  if (a.kind !== b.kind || a.sync !== b.sync || a.cells.length !== b.cells.length) return false;
  return a.cells.every((cell, i) => formatCell(cell) === formatCell(b.cells[i] ?? cell) && b.cells[i] !== undefined);
}
