import { formatCount } from '@/app/lib/format';

/** The overview's title, its count of pairs (matching the filter), and the filter. */
export function OverviewHead(props: {
  readonly titleId: string;
  readonly groupLabel: string;
  /** Pairs listed (undefined while the list loads). */
  readonly count: number | undefined;
  readonly query: string;
  readonly onQuery: (query: string) => void;
  /** The filter is about to be used (its focus): the search index is loaded then. */
  readonly onFiltering: () => void;
}) {
  const { titleId, groupLabel, count, query, onQuery, onFiltering } = props;
  const text = query.trim();
  return (
    <div className="overview__head">
      <h1 id={titleId} className="overview__title">
        Markets on {groupLabel}
      </h1>
      <p className="overview__count" role="status" data-testid="overview-count">
        {count === undefined
          ? ''
          : `${formatCount(count)} ${count === 1 ? 'pair' : 'pairs'}${text === '' ? '' : ` matching “${text}”`}`}
      </p>
      <label className="overview__filter">
        <span className="visually-hidden">Filter pairs</span>
        <input
          type="search"
          className="search__input"
          placeholder="Filter by ticker, name, policy ID…"
          autoComplete="off"
          spellCheck={false}
          value={query}
          data-testid="overview-filter"
          onFocus={onFiltering}
          onChange={(event) => {
            onFiltering();
            onQuery(event.target.value);
          }}
        />
      </label>
    </div>
  );
}
