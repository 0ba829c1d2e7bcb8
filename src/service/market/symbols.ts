import { formatDescription, formatSymbolName } from '../../shared/symbols';
import { lookAlikeKey, visibleText } from '../../shared/visible-text';
import type { Market, Pool, Token } from './model';

/** Hex digits of the token's unit a suffix starts with (its policy ID's first 3 bytes), before it grows. */
const SUFFIX_START = 6;

/**
 * A token's suffixes, shortest first: its unit's first 6 hex digits, 2 more at a time up to the whole
 * unit (unique among tokens), then the unit and the token's id (unique too) with a counter, should
 * someone have named a token as another's suffixed ticker: one of them is free.
 */
function* suffixes(token: Token): Generator<string> {
  for (let digits = SUFFIX_START; digits < token.unit.length; digits += 2) yield token.unit.slice(0, digits);
  if (token.unit !== '') yield token.unit;
  for (let n = 0; ; n++) yield `${token.unit}${token.unit === '' ? '' : '-'}${token.id}${n === 0 ? '' : `-${n}`}`;
}

/**
 * Symbol names of the market's pools (`<BASE>.<QUOTE>_<Group>_Pool<n>`), unambiguous whatever names
 * tokens are given:
 * - a ticker is made safe for the shape ('.', '_' and white space become '-'; an empty one is the
 *   unit's first 8 hex digits), and its invisible and bidi-control characters are written out
 *   (`SNEK\u200B`, `\u202EKENS`: `visibleText`);
 * - tokens are taken in the order they came (their id), those a source vouches for (a registry or CIP-68 record)
 *   first, and a ticker that may look like one taken before it (the same `lookAlikeKey`, NFKC with invisibles removed, in capitals, of the ticker or its
 *   shown form) gets a suffix of its unit's hex digits, 6 and then 2 more at a time until no ticker
 *   taken looks like it (two policies sharing their first 6 hex digits are about 2^24 tries to grind);
 * so no two tokens show one ticker, no two pools have one name (the shape parses back unambiguously:
 * tickers hold no '.' or '_'), and a name finds the pool `symbol_info` lists under it. Recomputed when
 * the market changes; a token's name changes only when its ticker does, or when a token that looked like it is
 * vouched for (the look-alike then gives up the plain ticker).
 */
export class SymbolNames {
  private version = -1;
  private readonly display = new Map<number, string>();
  private readonly byName = new Map<string, Pool>();

  constructor(private readonly market: Market) {}

  private refresh(): void {
    if (this.version === this.market.version) return;
    this.display.clear();
    this.byName.clear();
    const taken = new Set<string>();
    const free = (...names: string[]) => names.every((name) => !taken.has(lookAlikeKey(name)));
    // A token some source vouches for (the registry, its own CIP-68 metadata) before one known only by its asset name:
    // the real MIN keeps the plain ticker whichever of it and a look-alike came first.
    const unverified = (token: Token) => (this.market.identities.has(token.unit) ? 0 : 1);
    const order = [...this.market.tokens.values()].sort((a, b) => unverified(a) - unverified(b) || a.id - b.id);
    for (const token of order) {
      const safe = token.ticker.trim().replace(/[._\s]+/g, '-') || token.unit.slice(0, 8);
      const shown = visibleText(safe);
      let [given, ticker] = [safe, shown];
      if (!free(safe, shown)) {
        for (const suffix of suffixes(token)) {
          if (free(`${safe}-${suffix}`, `${shown}-${suffix}`)) {
            [given, ticker] = [`${safe}-${suffix}`, `${shown}-${suffix}`];
            break;
          }
        }
      }
      // The plain ticker is taken too when suffixed: a later token named like it is then suffixed as well.
      for (const name of [safe, shown, given, ticker]) taken.add(lookAlikeKey(name));
      this.display.set(token.id, ticker);
    }
    for (const pool of this.market.pools.values()) this.byName.set(this.nameUnchecked(pool), pool);
    this.version = this.market.version;
  }

  ticker(token: Token): string {
    this.refresh();
    return this.display.get(token.id) ?? token.ticker;
  }

  private nameUnchecked(pool: Pool): string {
    const { base, quote } = pool.pair;
    return formatSymbolName(
      this.display.get(base.id) ?? base.ticker,
      this.display.get(quote.id) ?? quote.ticker,
      pool.group,
      pool.n,
    );
  }

  name(pool: Pool): string {
    this.refresh();
    return this.nameUnchecked(pool);
  }

  description(pool: Pool): string {
    this.refresh();
    return formatDescription(this.ticker(pool.pair.base), this.ticker(pool.pair.quote), pool.group);
  }

  /** The pool with this symbol name. */
  find(name: string): Pool | undefined {
    this.refresh();
    return this.byName.get(name);
  }
}
