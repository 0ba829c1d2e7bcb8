import type { SortKey, SortOrder } from '../lib/rows';

const COLUMNS: readonly { readonly key: SortKey; readonly label: string }[] = [
  { key: 'price', label: 'Price' },
  { key: 'change', label: '24 h change' },
  { key: 'volume', label: '24 h volume' },
  { key: 'tvl', label: 'TVL' },
  { key: 'spread', label: 'Spread' },
];

/** The overview's columns (fixed widths: they stay put while rows come and go with the scroll) and their headers, each a sort button. */
export function OverviewColumns({
  sort,
  onSort,
  spreadNote,
}: {
  readonly sort: SortOrder;
  readonly onSort: (key: SortKey) => void;
  readonly spreadNote?: string;
}) {
  return (
    <>
      <colgroup>
        <col className="overview__col-pair" />
        {COLUMNS.map((column) => (
          <col key={column.key} className="overview__col-num" />
        ))}
      </colgroup>
      <thead>
        <tr aria-rowindex={1}>
          <th scope="col" className="overview__pair-head">
            Pair
          </th>
          {COLUMNS.map((column) => {
            const active = sort.key === column.key;
            return (
              <th
                key={column.key}
                scope="col"
                className="overview__num"
                aria-sort={active ? (sort.direction === 'asc' ? 'ascending' : 'descending') : 'none'}
              >
                <button
                  type="button"
                  className="overview__sort"
                  onClick={() => onSort(column.key)}
                  data-testid={`sort-${column.key}`}
                  title={column.key === 'spread' ? spreadNote : undefined}
                >
                  {column.label}
                  <span className="overview__arrow" aria-hidden="true">
                    {active ? (sort.direction === 'asc' ? '▲' : '▼') : ''}
                  </span>
                </button>
              </th>
            );
          })}
        </tr>
      </thead>
    </>
  );
}
