import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { SymbolInfoResponse } from '../../shared/api/symbol-info';
import type { GroupName } from '../../shared/groups';
import { poolPrice, type Market, type Pool } from '../market/model';
import type { SymbolNames } from '../market/symbols';

export interface CachedBody {
  readonly json: string;
  readonly gzip: Buffer;
  readonly etag: string;
}

/** TradingView pricescale: a power of ten giving the price about five significant digits. */
export function pricescaleFor(price: number): number {
  if (!(price > 0) || !Number.isFinite(price)) return 100;
  const decimals = Math.min(16, Math.max(2, Math.ceil(-Math.log10(price)) + 4));
  return 10 ** decimals;
}

/**
 * symbol_info bodies per group (and for every pool), serialised and gzipped once: the 24,000-symbol
 * answer without a group costs one build, then only the bytes. Rebuilt when the market's structure
 * changes (its version), and when a pool's pricescale does: after prices moved (`Market.prices`),
 * the next request compares every pool's pricescale with the one the bodies hold (about a millisecond
 * for the default market) — a price crossing a power of ten, or a rollback undoing one, is seen at once.
 */
export class SymbolInfoCache {
  private version = -1;
  private prices = -1;
  /** The pricescale of every pool (by row id) as the bodies hold it. */
  private readonly scales = new Map<number, number>();
  private readonly bodies = new Map<string, CachedBody>();

  constructor(
    private readonly market: Market,
    private readonly symbols: SymbolNames,
  ) {}

  get(group: GroupName | undefined): CachedBody {
    if (this.version !== this.market.version || (this.prices !== this.market.prices && this.scalesMoved())) {
      this.bodies.clear();
      this.scales.clear();
      for (const pool of this.market.poolsById.values()) this.scales.set(pool.id, pricescaleFor(poolPrice(pool)));
      this.version = this.market.version;
    }
    this.prices = this.market.prices;
    const key = group ?? '*';
    let body = this.bodies.get(key);
    if (!body) {
      body = this.build(group);
      this.bodies.set(key, body);
    }
    return body;
  }

  /** Whether any pool's pricescale differs from the one the bodies hold. */
  private scalesMoved(): boolean {
    for (const pool of this.market.poolsById.values())
      if (this.scales.get(pool.id) !== pricescaleFor(poolPrice(pool))) return true;
    return false;
  }

  private build(group: GroupName | undefined): CachedBody {
    const pools: Pool[] = [];
    for (const pool of this.market.poolsById.values())
      if (group === undefined || pool.group === group) pools.push(pool);
    pools.sort((a, b) => a.id - b.id);
    const n = pools.length;
    const fill = <T>(value: T) => new Array<T>(n).fill(value);
    const body: SymbolInfoResponse = {
      s: 'ok',
      symbol: pools.map((p) => this.symbols.name(p)),
      description: pools.map((p) => this.symbols.description(p)),
      currency: pools.map((p) => p.pair.quote.unit),
      'base-currency': pools.map((p) => p.pair.base.unit),
      'exchange-listed': pools.map((p) => p.group),
      'exchange-traded': pools.map((p) => p.group),
      ticker: pools.map((p) => p.poolId),
      type: fill('spot'),
      timezone: fill('Etc/UTC'),
      'session-regular': fill('24x7'),
      pricescale: pools.map((p) => this.scales.get(p.id) ?? pricescaleFor(poolPrice(p))),
      minmovement: fill(1),
      'has-intraday': fill(true),
    };
    const json = JSON.stringify(body);
    return {
      json,
      gzip: gzipSync(json, { level: 6 }),
      etag: `"${createHash('sha1').update(json).digest('base64url')}"`,
    };
  }
}
