import { assetFingerprint } from '../shared/fingerprint';
import { isTokenUnit, splitTokenUnit } from '../shared/ids';

/** One symbol as search returns it (our UI's list shows these; `searchSymbols` maps them for the library). */
export interface SearchRow {
  /** Symbol name, e.g. `ADA.SNEK_Aggregate_Pool1`. */
  readonly symbol: string;
  /** Pool ID (hex): the unique identifier for data requests. */
  readonly ticker: string;
  readonly description: string;
  /** The group (DEX or Aggregate). */
  readonly exchange: string;
  readonly type: string;
  /** Display tickers of the pair's tokens (ADA for the native currency). */
  readonly base: string;
  readonly quote: string;
  /** Token units (policy ID + asset name hex; '' for ADA). */
  readonly baseUnit: string;
  readonly quoteUnit: string;
  /** TVL in base units, when the gateway knows it (embedded market). */
  readonly tvl?: number;
  /** TVL valued in ADA (comparable across pairs): the ranking key. */
  readonly tvlAda?: number;
}

interface IndexEntry {
  readonly row: SearchRow;
  /** Keys that make an exact match: tickers, symbol name, pool ID, units, policy IDs, fingerprints. */
  readonly exact: readonly string[];
  /** Keys a query may be the start of: tickers and symbol name. */
  readonly prefix: readonly string[];
  /** Everything searchable, lowercase, one string: one `includes` per symbol and keystroke. */
  readonly text: string;
  /** The group, lowercase: a word of a several-word query may name it. */
  readonly group: string;
}

const fingerprints = new Map<string, string>();

/** CIP-14 fingerprint of a token unit, memoised across groups ('' for ADA or a malformed unit). */
function fingerprintOf(unit: string): string {
  if (unit === '' || !isTokenUnit(unit)) return '';
  let value = fingerprints.get(unit);
  if (value === undefined) {
    const { policyId, assetName } = splitTokenUnit(unit.toLowerCase());
    value = assetFingerprint(policyId, assetName);
    fingerprints.set(unit, value);
  }
  return value;
}

function entryOf(row: SearchRow): IndexEntry {
  const lower = (value: string) => value.toLowerCase();
  const base = lower(row.base);
  const quote = lower(row.quote);
  const symbol = lower(row.symbol);
  const ids: string[] = [lower(row.ticker)];
  for (const unit of [row.quoteUnit, row.baseUnit]) {
    if (unit === '') continue;
    ids.push(lower(unit), lower(splitTokenUnit(unit).policyId));
    const fingerprint = fingerprintOf(unit);
    if (fingerprint !== '') ids.push(fingerprint);
  }
  return {
    row,
    exact: [quote, base, symbol, `${base}.${quote}`, ...ids],
    prefix: [quote, base, symbol],
    text: [symbol, lower(row.description), ...ids].join('\n'),
    group: lower(row.exchange),
  };
}

/** Lowercase, trimmed, `/` read as the pair separator `.`, whitespace collapsed. */
export function normalizeQuery(query: string): string {
  return query.trim().toLowerCase().replace(/\//g, '.').replace(/\s+/g, ' ');
}

/** Ranking key: higher first; symbols without known liquidity last. */
function liquidityOf(row: SearchRow): number {
  return row.tvlAda ?? row.tvl ?? -1;
}

export interface SearchOptions {
  /** Most rows to return. */
  readonly limit: number;
  /** Only symbols of this type ('' or undefined: any). */
  readonly type?: string;
}

/**
 * A search index over a set of symbols, built once: every key lowercased, fingerprints computed, and
 * the symbols kept in liquidity order, so a query is one linear pass with no sort. Ranking: exact
 * matches first (a token ticker, the symbol name, pool ID, token unit, policy ID or fingerprint equals
 * the query), then matches at the start of a ticker or the symbol name, then matches anywhere (name,
 * description, pool ID, units, fingerprints); within each tier by liquidity (TVL in ADA), then name.
 * A query of several words matches symbols that contain every word (a word may also name the group,
 * e.g. `snek minswap`), ranked by the weakest word's tier.
 */
export class SymbolSearchIndex {
  private readonly entries: readonly IndexEntry[];

  constructor(rows: readonly SearchRow[]) {
    this.entries = rows
      .map(entryOf)
      .sort((a, b) => liquidityOf(b.row) - liquidityOf(a.row) || (a.row.symbol < b.row.symbol ? -1 : a.row.symbol > b.row.symbol ? 1 : 0));
  }

  get size(): number {
    return this.entries.length;
  }

  search(query: string, options: SearchOptions): SearchRow[] {
    const limit = Math.max(0, Math.floor(options.limit));
    const type = options.type ?? '';
    const q = normalizeQuery(query);
    if (limit === 0) return [];
    const exact: SearchRow[] = [];
    const prefix: SearchRow[] = [];
    const anywhere: SearchRow[] = [];
    const terms = q === '' ? [] : q.split(' ');
    for (const entry of this.entries) {
      if (type !== '' && entry.row.type !== type) continue;
      if (terms.length === 0) {
        // No query: the most liquid symbols.
        anywhere.push(entry.row);
        if (anywhere.length >= limit) break;
      } else if (terms.length === 1) {
        if (entry.exact.includes(q)) exact.push(entry.row);
        else if (prefix.length < limit && entry.prefix.some((key) => key.startsWith(q))) prefix.push(entry.row);
        else if (anywhere.length < limit && entry.text.includes(q)) anywhere.push(entry.row);
      } else if (terms.every((term) => entry.text.includes(term))) {
        if (terms.every((term) => term === entry.group || entry.exact.includes(term))) exact.push(entry.row);
        else if (terms.every((term) => entry.group.startsWith(term) || entry.prefix.some((key) => key.startsWith(term)))) {
          if (prefix.length < limit) prefix.push(entry.row);
        } else if (anywhere.length < limit) anywhere.push(entry.row);
      }
    }
    const ranked = exact.length >= limit ? exact : [...exact, ...prefix, ...anywhere];
    return ranked.slice(0, limit);
  }
}
