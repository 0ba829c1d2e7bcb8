import { useEffect, useEffectEvent, useLayoutEffect, useRef, useState, type RefObject } from 'react';
import { DEFAULT_SORT, parsePlace, type OverviewPlace, type SortOrder } from '../lib/rows';

/** The place is written to the history entry at most this often while scrolling. */
const PLACE_WRITE_MS = 300;

/**
 * Where the overview is: its sort, its filter and (in `scrollRef`'s element) its scroll offset, as its
 * history entry kept them (`place`, read once) or as the reader leaves them.
 */
export function useOverviewPlace(place: unknown) {
  const [initial] = useState(() => parsePlace(place));
  const [sort, setSort] = useState<SortOrder>(initial?.sort ?? DEFAULT_SORT);
  const [query, setQuery] = useState(initial?.query ?? '');
  const scrollRef = useRef<HTMLDivElement>(null);
  return { initial, sort, setSort, query, setQuery, scrollRef };
}

/**
 * Keeps the place in the history entry (`onPlace`: right after a sort or filter, at most every 300 ms
 * while scrolling), and puts the saved scroll offset back once `rowCount` rows are there. Returns the
 * place's writer, for a row about to be opened.
 */
export function useKeptPlace(options: {
  readonly initial: OverviewPlace | undefined;
  readonly sort: SortOrder;
  readonly query: string;
  readonly scrollRef: RefObject<HTMLDivElement | null>;
  readonly rowCount: number;
  /** The list is in (its scrolling element exists). */
  readonly ready: boolean;
  readonly onPlace: (place: OverviewPlace) => void;
}): () => void {
  const { initial, sort, query, scrollRef, rowCount, ready, onPlace } = options;
  const restored = useRef(initial === undefined || initial.offset === 0);

  // Back from a chart: the scroll offset once the rows are there.
  useLayoutEffect(() => {
    if (restored.current || rowCount === 0 || !scrollRef.current) return;
    restored.current = true;
    scrollRef.current.scrollTop = initial?.offset ?? 0;
  }, [rowCount, initial, scrollRef]);

  const save = () => {
    // Not before the saved offset is back: the list would forget it.
    if (!restored.current) return;
    onPlace({ sort, query, offset: Math.round(scrollRef.current?.scrollTop ?? 0) });
  };
  const keep = useEffectEvent(save);
  // A sort or a keystroke is written in a task of its own: the history write (a few milliseconds in
  // Chromium) does not hold up the rows it changed. A row opened meanwhile writes its place itself.
  useEffect(() => {
    const timer = setTimeout(keep, 0);
    return () => clearTimeout(timer);
  }, [sort, query]);
  useEffect(() => {
    const element = scrollRef.current;
    if (!element) return undefined;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const onScroll = () => {
      timer ??= setTimeout(() => {
        timer = undefined;
        keep();
      }, PLACE_WRITE_MS);
    };
    element.addEventListener('scroll', onScroll, { passive: true });
    return () => {
      element.removeEventListener('scroll', onScroll);
      clearTimeout(timer);
    };
  }, [ready, scrollRef]);
  return save;
}
