import { formatDescription, formatSymbolName } from '../../shared/symbols';
import type { Market, Pool, Token } from './model';

/**
 * Symbol names of the market's pools. Tickers are made safe for the `<BASE>.<QUOTE>_<Group>_Pool<n>`
 * shape ('.', '_' and spaces become '-'), and when two tokens share a ticker the later one gets a
 * short policy suffix, so every symbol name is unique. Recomputed when the market changes.
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
    for (const token of [...this.market.tokens.values()].sort((a, b) => a.id - b.id)) {
      let ticker = token.ticker.trim().replace(/[._\s]+/g, '-') || token.unit.slice(0, 8);
      if (taken.has(ticker.toUpperCase())) ticker = `${ticker}-${token.unit.slice(0, 6)}`;
      taken.add(ticker.toUpperCase());
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
    return formatSymbolName(this.display.get(base.id) ?? base.ticker, this.display.get(quote.id) ?? quote.ticker, pool.group, pool.n);
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
