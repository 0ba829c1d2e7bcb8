import { act, render } from '@testing-library/react';
import { useRef, type RefObject } from 'react';
import { describe, expect, it } from 'vitest';
import { fixedRowsAt, useFixedRows } from '../../src/app/hooks/use-fixed-rows';

/** The rows of a virtualised list of rows of one height (src/app/hooks/use-fixed-rows.ts). */
describe('fixed rows', () => {
  const list = { count: 1000, rowHeight: 44, overscan: 2 };

  it('renders the rows in view and the overscan on each side, at their places', () => {
    const layout = fixedRowsAt(list, 44 * 10 + 5, 44 * 5);
    expect(layout.range).toEqual({ startIndex: 10, endIndex: 15 });
    expect(layout.items.map((r) => r.index)).toEqual([8, 9, 10, 11, 12, 13, 14, 15, 16, 17]);
    expect(layout.items[0]).toEqual({ index: 8, start: 8 * 44, end: 9 * 44 });
    expect(layout.total).toBe(44_000);
  });

  it('keeps to the list at both ends', () => {
    expect(fixedRowsAt(list, 0, 100).items.map((r) => r.index)).toEqual([0, 1, 2, 3, 4]);
    const end = fixedRowsAt(list, 44_000 - 100, 100);
    expect(end.range).toEqual({ startIndex: 997, endIndex: 999 });
    expect(end.items.at(-1)?.index).toBe(999);
    expect(fixedRowsAt({ ...list, count: 0 }, 0, 100)).toEqual({ items: [], range: undefined, total: 0 });
  });

  it('places rows after a header (margin) and counts what is in view past it', () => {
    const layout = fixedRowsAt({ ...list, margin: 36, overscan: 0 }, 0, 36 + 44 * 3);
    expect(layout.range).toEqual({ startIndex: 0, endIndex: 2 });
    expect(layout.items[0]).toEqual({ index: 0, start: 36, end: 80 });
    // The header's height is not in the rows' total.
    expect(layout.total).toBe(44_000);
  });
});

/** Rows of a list whose scrolling element is its parent's (as the tape's and the overview's are). */
function Rows({ scroller }: { scroller: RefObject<HTMLDivElement | null> }) {
  const { items } = useFixedRows(scroller, { count: 1000, rowHeight: 44, overscan: 0, fallbackHeight: 440 });
  return (
    <>
      {items.map((row) => (
        <p key={row.index} data-index={row.index} />
      ))}
    </>
  );
}

function List() {
  const scroller = useRef<HTMLDivElement>(null);
  return (
    <div ref={scroller} data-testid="scroller">
      <Rows scroller={scroller} />
    </div>
  );
}

describe('a list of fixed rows', () => {
  it("follows its parent's scrolling element as it scrolls", () => {
    const view = render(<List />);
    const shown = () => [...view.container.querySelectorAll('p')].map((p) => Number(p.dataset.index));
    expect(shown()).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const scroller = view.getByTestId('scroller');
    act(() => {
      scroller.scrollTop = 44 * 100;
      scroller.dispatchEvent(new Event('scroll'));
    });
    expect(shown()).toEqual([100, 101, 102, 103, 104, 105, 106, 107, 108, 109]);
  });
});
