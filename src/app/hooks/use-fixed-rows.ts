import { useCallback, useEffect, useState, type RefObject } from 'react';

/** A row to render: its index and where it lies in the list's content (px). */
export interface FixedRow {
  readonly index: number;
  readonly start: number;
  readonly end: number;
}

export interface FixedRowsLayout {
  /** Rows in view and `overscan` more on each side, in order. */
  readonly items: readonly FixedRow[];
  /** Rows in view, without the overscan (undefined: none). */
  readonly range: { readonly startIndex: number; readonly endIndex: number } | undefined;
  /** Height of every row together (without `margin`). */
  readonly total: number;
}

export interface FixedRowsOptions {
  readonly count: number;
  readonly rowHeight: number;
  /** Rows rendered beyond each edge of the view. */
  readonly overscan: number;
  /** What comes before the first row in the scrolling element (a sticky header), px. */
  readonly margin?: number;
}

/**
 * Which rows of a list of `count` rows of one height to render for a view of `height` px scrolled by
 * `offset` px (the arithmetic of @tanstack/virtual-core for rows of a known size, which this replaces:
 * rows start at `margin + index × rowHeight`).
 */
export function fixedRowsAt(options: FixedRowsOptions, offset: number, height: number): FixedRowsLayout {
  const { count, rowHeight, overscan, margin = 0 } = options;
  const total = count * rowHeight;
  if (count === 0 || height <= 0) return { items: [], range: undefined, total };
  const startIndex = Math.min(count - 1, Math.max(0, Math.floor((offset - margin) / rowHeight)));
  const endIndex = Math.min(count - 1, Math.max(startIndex, Math.ceil((offset + height - margin) / rowHeight) - 1));
  const items: FixedRow[] = [];
  for (let index = Math.max(0, startIndex - overscan); index <= Math.min(count - 1, endIndex + overscan); index++) {
    const start = margin + index * rowHeight;
    items.push({ index, start, end: start + rowHeight });
  }
  return { items, range: { startIndex, endIndex }, total };
}

/**
 * The rows of a virtualised list of rows of one height, in `scrollRef`'s scrolling element: those in
 * view (and `overscan` more), followed as it scrolls and resizes; `scrollToIndex` brings a row into view
 * (nothing when it is in view already; under a sticky header of `paddingStart` px otherwise).
 * `fallbackHeight`: the view's height when layout reports none (jsdom). `initialOffset`: the scroll
 * offset to lay out the first render at.
 */
export function useFixedRows(
  scrollRef: RefObject<HTMLElement | null>,
  options: FixedRowsOptions & {
    readonly fallbackHeight: number;
    readonly paddingStart?: number;
    readonly initialOffset?: number;
  },
): FixedRowsLayout & { scrollToIndex(index: number): void } {
  const { fallbackHeight, paddingStart = 0, initialOffset = 0 } = options;
  const [view, setView] = useState({ offset: initialOffset, height: fallbackHeight });
  // A passive effect: the scrolling element may be a parent's, whose ref is set only after this
  // component's layout effects have run. It stays the same element while the list is shown.
  useEffect(() => {
    const element = scrollRef.current;
    if (!element) return undefined;
    const read = () =>
      setView((current) => {
        const height = element.clientHeight > 0 ? element.clientHeight : fallbackHeight;
        const offset = element.scrollTop;
        return current.offset === offset && current.height === height ? current : { offset, height };
      });
    read();
    element.addEventListener('scroll', read, { passive: true });
    const resize = typeof ResizeObserver === 'function' ? new ResizeObserver(read) : undefined;
    resize?.observe(element);
    return () => {
      element.removeEventListener('scroll', read);
      resize?.disconnect();
    };
  }, [scrollRef, fallbackHeight]);
  const layout = fixedRowsAt(options, view.offset, view.height);
  const { count, rowHeight, margin = 0 } = options;
  const scrollToIndex = useCallback(
    (index: number) => {
      const element = scrollRef.current;
      if (!element || index < 0 || index >= count) return;
      const start = margin + index * rowHeight;
      const height = element.clientHeight > 0 ? element.clientHeight : fallbackHeight;
      if (start - paddingStart < element.scrollTop) element.scrollTop = start - paddingStart;
      else if (start + rowHeight > element.scrollTop + height) element.scrollTop = start + rowHeight - height;
    },
    [scrollRef, count, rowHeight, margin, paddingStart, fallbackHeight],
  );
  return { ...layout, scrollToIndex };
}
