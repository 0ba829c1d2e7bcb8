import { assetFingerprint } from './fingerprint';
import { isTokenUnit, splitTokenUnit } from '../shared/id-rules';

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
  /** Registry names of the pair's tokens (`World Mobile Token`), when the gateway knows them. */
  readonly baseName?: string;
  readonly quoteName?: string;
  /** TVL in base units, when the gateway knows it (embedded market). */
  readonly tvl?: number;
  /** TVL valued in ADA (comparable across pairs): the ranking key. */
  readonly tvlAda?: number;
}

export interface SearchOptions {
  /** Most rows to return. */
  readonly limit: number;
  /** Only symbols of this type ('' or undefined: any). */
  readonly type?: string;
}

/**
 * A search index over a set of symbols, built once, answering a keystroke with lookups rather than a
 * pass over every symbol: exact keys in a map, ticker and name prefixes in a sorted array, "anywhere"
 * as `indexOf` over one string holding every symbol's searchable text.
 *
 * Ranking: exact matches first (a token ticker, the symbol name, pool ID, token unit, policy ID or
 * fingerprint equals the query), then matches at the start of a ticker or the symbol name, then
 * matches anywhere (symbol name, description, token names, pool ID, units, fingerprints): a token
 * name ranks like the description. Within each tier by liquidity
 * (TVL in ADA), then name. A query of several words matches symbols that contain every word (a word
 * may also name the group, e.g. `snek minswap`), ranked by the weakest word's tier.
 */
export class SymbolSearchIndex {
  readonly rows: readonly SearchRow[];
  private readonly exact: Map<string, number[]>;
  /** Prefix keys (tickers, symbol name), distinct and sorted; the rows of key k are `prefixRows[prefixStarts[k]..prefixStarts[k+1])`, in row order. */
  private readonly prefixKeys: readonly string[];
  private readonly prefixStarts: Int32Array;
  private readonly prefixRows: Int32Array;
  /** Every row's searchable text, separated by NUL, in row order; `offsets[i]` is where row i starts. */
  private readonly haystack: string;
  private readonly offsets: Int32Array;
  private readonly texts: readonly string[];
  private readonly groups: readonly string[];
  private readonly byName: Map<string, number>;
  /** Per-row marks of the current query (a counter, so nothing needs clearing). */
  private readonly marks: Int32Array;
  private stamp = 0;

  /** Built at once (a few hundred ms on 24,000 symbols in a browser: see `build` for a page). */
  constructor(rows: readonly SearchRow[], built?: IndexBuilder) {
    const parts = built ?? new IndexBuilder(rows);
    while (!parts.done) parts.step(Number.POSITIVE_INFINITY);
    this.rows = parts.rows;
    this.exact = parts.exact;
    this.byName = parts.byName;
    this.texts = parts.texts;
    this.groups = parts.groups;
    this.offsets = parts.offsets;
    this.marks = new Int32Array(parts.rows.length);
    this.haystack = parts.texts.join('\u0000') + '\u0000';
    const prefix = parts.prefixKeys();
    this.prefixKeys = prefix.keys;
    this.prefixStarts = prefix.starts;
    this.prefixRows = prefix.rows;
  }

  /**
   * Built in slices of about `sliceMs` of work, yielding to the page between them (`scheduler.yield`
   * where the browser has it, else a macrotask), so a page building the index of every symbol never
   * holds its main thread long enough to miss a frame or delay a click.
   */
  static async build(
    rows: readonly SearchRow[],
    options: { readonly sliceMs?: number } = {},
  ): Promise<SymbolSearchIndex> {
    const sliceMs = options.sliceMs ?? 8;
    const builder = new IndexBuilder(rows);
    await yieldToPage();
    while (!builder.done) {
      builder.step(performance.now() + sliceMs);
      await yieldToPage();
    }
    return new SymbolSearchIndex(builder.rows, builder);
  }

  get size(): number {
    return this.rows.length;
  }

  /** A row by symbol name (any case). */
  find(symbol: string): SearchRow | undefined {
    const i = this.byName.get(symbol.toLowerCase());
    return i === undefined ? undefined : this.rows[i];
  }

  /** At most `limit` rows for `query`, best first (every symbol is `spot`: another type matches none). */
  search(query: string, options: SearchOptions): SearchRow[] {
    const max = Math.max(0, Math.floor(options.limit));
    if (max === 0) return [];
    const type = options.type ?? '';
    if (type !== '' && !this.rows.every((row) => row.type === type)) {
      return new SymbolSearchIndex(this.rows.filter((row) => row.type === type)).search(query, { limit: max });
    }
    const q = normalizeQuery(query);
    if (q === '') return this.rows.slice(0, max);
    const terms = q.split(' ');
    return terms.length === 1 ? this.searchOne(q, max) : this.searchMany(terms, max);
  }

  private searchOne(q: string, limit: number): SearchRow[] {
    const stamp = this.nextStamp();
    const exact = this.exact.get(q) ?? [];
    for (const i of exact) this.marks[i] = stamp;
    const result: SearchRow[] = exact.map((i) => this.row(i));
    if (result.length >= limit) return result.slice(0, limit);

    // Prefix tier: rows with a ticker or name starting with q, in row (liquidity) order.
    const prefixStamp = this.nextStamp();
    let prefixCount = 0;
    for (
      let k = lowerBound(this.prefixKeys, q);
      k < this.prefixKeys.length && (this.prefixKeys[k] ?? '').startsWith(q);
      k++
    ) {
      const end = this.prefixStarts[k + 1] ?? 0;
      for (let r = this.prefixStarts[k] ?? 0; r < end; r++) {
        const i = this.prefixRows[r] ?? 0;
        if (this.marks[i] !== stamp && this.marks[i] !== prefixStamp) {
          this.marks[i] = prefixStamp;
          prefixCount++;
        }
      }
    }
    if (prefixCount > 0) {
      let taken = 0;
      for (let i = 0; i < this.rows.length && taken < limit && taken < prefixCount; i++) {
        if (this.marks[i] === prefixStamp) {
          result.push(this.row(i));
          taken++;
        }
      }
    }
    if (result.length >= limit) return result.slice(0, limit);

    // Anywhere tier: one indexOf pass over the haystack, skipping to the next row after each hit.
    const wanted = limit - result.length;
    let found = 0;
    let from = 0;
    while (found < wanted) {
      const at = this.haystack.indexOf(q, from);
      if (at < 0) break;
      const i = this.rowAt(at);
      if (this.marks[i] !== stamp && this.marks[i] !== prefixStamp) {
        result.push(this.row(i));
        found++;
      }
      from = this.offsets[i + 1] ?? this.haystack.length;
    }
    return result;
  }

  private searchMany(terms: readonly string[], limit: number): SearchRow[] {
    const exact: SearchRow[] = [];
    const prefix: SearchRow[] = [];
    const anywhere: SearchRow[] = [];
    // Candidates: rows containing the longest word (one indexOf pass), then the other words checked.
    const longest = terms.reduce((a, b) => (b.length > a.length ? b : a));
    let from = 0;
    for (;;) {
      const at = this.haystack.indexOf(longest, from);
      if (at < 0) break;
      const i = this.rowAt(at);
      from = this.offsets[i + 1] ?? this.haystack.length;
      const text = this.texts[i] ?? '';
      if (!terms.every((term) => text.includes(term))) continue;
      const row = this.row(i);
      const group = this.groups[i] ?? '';
      const keys = keysOf(row);
      if (terms.every((term) => term === group || keys.exact.includes(term))) exact.push(row);
      else if (terms.every((term) => group.startsWith(term) || keys.prefix.some((key) => key.startsWith(term)))) {
        if (prefix.length < limit) prefix.push(row);
      } else if (anywhere.length < limit) anywhere.push(row);
    }
    const ranked = exact.length >= limit ? exact : [...exact, ...prefix, ...anywhere];
    return ranked.slice(0, limit);
  }

  private row(i: number): SearchRow {
    const row = this.rows[i];
    if (!row) throw new RangeError(`no row ${i}`);
    return row;
  }

  /** The row whose text contains haystack position `at` (binary search over the offsets). */
  private rowAt(at: number): number {
    let lo = 0;
    let hi = this.rows.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.offsets[mid] ?? 0) <= at) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  private nextStamp(): number {
    this.stamp++;
    if (this.stamp >= 0x7fffffff) {
      this.marks.fill(0);
      this.stamp = 1;
    }
    return this.stamp;
  }
}

/** Prefix keys sorted per slice: runs of this many, merged two at a time afterwards. */
const SORT_RUN = 4096;

/**
 * The work of an index, done in steps: `step(deadline)` works until `performance.now()` passes the
 * deadline, a piece at a time: 64 rows (keys, texts, fingerprints), then the distinct prefix keys
 * sorted (a run of SORT_RUN keys per piece, then two runs merged per piece) and laid out flat (SORT_RUN
 * keys per piece). Sorted and laid out at once, the prefix keys of 24,000 symbols were one task of
 * 40-50 ms in Node and 50-75 ms in a loaded browser: a long task in the page, while a chart followed a
 * busy pool, whenever the top bar's index was being built.
 */
class IndexBuilder {
  readonly rows: readonly SearchRow[];
  readonly exact = new Map<string, number[]>();
  readonly byName = new Map<string, number>();
  readonly texts: string[];
  readonly groups: string[];
  readonly offsets: Int32Array;
  /** Each prefix key's rows, in row order (rows are taken in order). */
  private readonly prefix = new Map<string, number[]>();
  private next = 0;
  private length = 0;
  private phase: 'rows' | 'sort' | 'merge' | 'layout' | 'done' = 'rows';
  /** The distinct prefix keys (phase sort), then the sorted runs waiting to be merged (oldest first). */
  private keys: string[] = [];
  private runs: string[][] = [];
  private layout: { keys: string[]; starts: Int32Array; rows: Int32Array } | undefined;
  /** The rows of every prefix key, counted as they are taken (the layout's size). */
  private prefixRows = 0;
  /** Where the next key's rows go in the layout. */
  private cursor = 0;

  constructor(rows: readonly SearchRow[]) {
    // Liquidity first, then name: the order every tier keeps. Keys are read once, not per comparison.
    const keyed = rows.map((row, i) => ({ row, liquidity: liquidityOf(row), i }));
    keyed.sort(
      (a, b) =>
        b.liquidity - a.liquidity || (a.row.symbol < b.row.symbol ? -1 : a.row.symbol > b.row.symbol ? 1 : a.i - b.i),
    );
    this.rows = keyed.map((k) => k.row);
    const n = this.rows.length;
    this.texts = new Array<string>(n);
    this.groups = new Array<string>(n);
    this.offsets = new Int32Array(n + 1);
  }

  get done(): boolean {
    return this.phase === 'done';
  }

  step(deadline: number): void {
    while (this.phase !== 'done') {
      this.work();
      if (performance.now() >= deadline) break;
    }
  }

  /** One piece of the current phase: 64 rows, a run sorted, two runs merged, or the layout. */
  private work(): void {
    switch (this.phase) {
      case 'rows': {
        const n = this.rows.length;
        const stop = Math.min(n, this.next + 64);
        for (; this.next < stop; this.next++) this.take(this.next);
        if (this.next >= n) {
          this.offsets[n] = this.length;
          this.keys = [...this.prefix.keys()];
          this.next = 0;
          this.phase = 'sort';
        }
        return;
      }
      case 'sort':
        if (this.next < this.keys.length) this.runs.push(this.keys.slice(this.next, this.next + SORT_RUN).sort());
        this.next += SORT_RUN;
        if (this.next >= this.keys.length) {
          this.keys = [];
          this.phase = 'merge';
        }
        return;
      case 'merge': {
        const [a, b] = this.runs;
        if (a && b) {
          this.runs.splice(0, 2);
          this.runs.push(mergeSorted(a, b));
        }
        if (this.runs.length <= 1) {
          const keys = this.runs[0] ?? [];
          this.runs = [];
          this.layout = { keys, starts: new Int32Array(keys.length + 1), rows: new Int32Array(this.prefixRows) };
          this.next = 0;
          this.cursor = 0;
          this.phase = 'layout';
        }
        return;
      }
      case 'layout': {
        // Each key's rows after the previous key's, SORT_RUN keys per piece.
        const { keys, starts, rows } = this.layout as NonNullable<IndexBuilder['layout']>;
        const stop = Math.min(keys.length, this.next + SORT_RUN);
        for (; this.next < stop; this.next++) {
          starts[this.next] = this.cursor;
          for (const i of this.prefix.get(keys[this.next] as string) ?? []) rows[this.cursor++] = i;
        }
        if (this.next >= keys.length) {
          starts[keys.length] = this.cursor;
          this.phase = 'done';
        }
        return;
      }
      case 'done':
        return;
    }
  }

  private take(i: number): void {
    const row = this.rows[i];
    if (!row) return;
    const { symbol, ids, exact, prefix } = keysOf(row);
    for (const key of new Set(exact)) push(this.exact, key, i);
    for (const key of new Set(prefix)) {
      push(this.prefix, key, i);
      this.prefixRows++;
    }
    const text = [symbol, row.description.toLowerCase(), ...namesOf(row), ...ids].join('\n');
    this.texts[i] = text;
    this.groups[i] = row.exchange.toLowerCase();
    this.offsets[i] = this.length;
    this.length += text.length + 1;
    if (!this.byName.has(symbol)) this.byName.set(symbol, i);
  }

  /** The distinct prefix keys sorted, with their rows laid out flat (once the steps are done). */
  prefixKeys(): { keys: string[]; starts: Int32Array; rows: Int32Array } {
    while (!this.done) this.work();
    return this.layout ?? { keys: [], starts: new Int32Array(1), rows: new Int32Array(0) };
  }
}

/** Two sorted lists of distinct strings as one, in the order of `Array.prototype.sort` (UTF-16 code units). */
function mergeSorted(a: readonly string[], b: readonly string[]): string[] {
  const out = new Array<string>(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length && j < b.length) {
    const x = a[i] as string;
    const y = b[j] as string;
    if (x < y) {
      out[k++] = x;
      i++;
    } else {
      out[k++] = y;
      j++;
    }
  }
  while (i < a.length) out[k++] = a[i++] as string;
  while (j < b.length) out[k++] = b[j++] as string;
  return out;
}

function push(map: Map<string, number[]>, key: string, i: number): void {
  const list = map.get(key);
  if (list) list.push(i);
  else map.set(key, [i]);
}

/** Lets the page run (input, frames) before the next slice of work. */
function yieldToPage(): Promise<void> {
  const scheduler = (globalThis as { scheduler?: { yield?: () => Promise<void> } }).scheduler;
  if (typeof scheduler?.yield === 'function') return scheduler.yield();
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** Lowercase, trimmed, `/` read as the pair separator `.`, whitespace collapsed (as the datafeed reads queries). */
export function normalizeQuery(query: string): string {
  return query.trim().toLowerCase().replace(/\//g, '.').replace(/\s+/g, ' ');
}

/**
 * A row's keys: `ids` (pool ID, token units, policy IDs, fingerprints), `exact` (what equals a query
 * for an exact match: tickers, symbol name, `base.quote`, the ids) and `prefix` (tickers, symbol name).
 */
function keysOf(row: SearchRow): { symbol: string; ids: string[]; exact: string[]; prefix: string[] } {
  const base = row.base.toLowerCase();
  const quote = row.quote.toLowerCase();
  const symbol = row.symbol.toLowerCase();
  const ids: string[] = [row.ticker.toLowerCase()];
  for (const unit of [row.quoteUnit, row.baseUnit]) {
    if (unit === '') continue;
    const lowerUnit = unit.toLowerCase();
    ids.push(lowerUnit, splitTokenUnit(lowerUnit).policyId);
    const fingerprint = fingerprintOf(lowerUnit);
    if (fingerprint !== '') ids.push(fingerprint);
  }
  return { symbol, ids, exact: [quote, base, symbol, `${base}.${quote}`, ...ids], prefix: [quote, base, symbol] };
}

/** The tokens' names, lowercase (quote first, as the ids). */
function namesOf(row: SearchRow): string[] {
  const names: string[] = [];
  if (row.quoteName) names.push(row.quoteName.toLowerCase());
  if (row.baseName) names.push(row.baseName.toLowerCase());
  return names;
}

function liquidityOf(row: SearchRow): number {
  return row.tvlAda ?? row.tvl ?? -1;
}

const fingerprints = new Map<string, string>();

function fingerprintOf(unit: string): string {
  if (unit === '' || !isTokenUnit(unit)) return '';
  let value = fingerprints.get(unit);
  if (value === undefined) {
    const { policyId, assetName } = splitTokenUnit(unit);
    value = assetFingerprint(policyId, assetName);
    fingerprints.set(unit, value);
  }
  return value;
}

/** First index whose key is >= `key` in a sorted array. */
function lowerBound(keys: readonly string[], key: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((keys[mid] ?? '') < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
