import { chartCount, defaultCell, SINGLE_LAYOUT, type Layout, type LayoutCell, type LayoutKind } from './layout';

/*
 * Changes to a layout (the toolbar's picker, a chart's own bar), apart from the URL's codec
 * (layout.ts), which the page's first script carries: these are the app's.
 */

/** The layout buttons, in order. */
export const LAYOUT_CHOICES: readonly { readonly kind: LayoutKind; readonly label: string; readonly name: string }[] = [
  { kind: '1', label: '1', name: 'One chart' },
  { kind: '2h', label: '2 cols', name: 'Two charts side by side' },
  { kind: '2v', label: '2 rows', name: 'Two charts stacked' },
  { kind: '4', label: '4', name: 'Four charts' },
];

/** The layout `kind`, keeping the charts it had and adding new ones after them. */
export function withKind(
  layout: Layout,
  kind: LayoutKind,
  first: { readonly group: string; readonly symbol: string | undefined },
): Layout {
  if (kind === '1') return SINGLE_LAYOUT;
  const cells: LayoutCell[] = [];
  for (let i = 2; i <= chartCount(kind); i++) cells.push(layout.cells[i - 2] ?? defaultCell(i, first));
  return { kind, cells, sync: layout.sync };
}

/** The layout with chart `index` (2 … n) changed. */
export function withCell(layout: Layout, index: number, next: Partial<LayoutCell>): Layout {
  return { ...layout, cells: layout.cells.map((cell, i) => (i === index - 2 ? { ...cell, ...next } : cell)) };
}
