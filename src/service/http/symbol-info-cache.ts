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

/** How long a built body is served before pricescales are recomputed from current prices. */
const REFRESH_MS = 15 * 60_000;

/** TradingView pricescale: a power of ten giving the price about five significant digits. */
export function pricescaleFor(price: number): number {
  if (!(price > 0) || !Number.isFinite(price)) return 100;
  const decimals = Math.min(16, Math.max(2, Math.ceil(-Math.log10(price)) + 4));
  return 10 ** decimals;
}

/**
 * symbol_info bodies per group (and for every pool), serialised and gzipped once per market version:
 * the 24,000-symbol answer without a group costs one build, then only the bytes.
 */
export class SymbolInfoCache {
  private version = -1;
  private builtAt = 0;
  private readonly bodies = new Map<string, CachedBody>();

  constructor(
    private readonly market: Market,
    private readonly symbols: SymbolNames,
    private readonly nowMs: () => number = Date.now,
  ) {}

  get(group: GroupName | undefined): CachedBody {
    const now = this.nowMs();
    // Rebuilt when the market's structure changes, and now and then so pricescale follows prices.
    if (this.version !== this.market.version || now - this.builtAt > REFRESH_MS) {
      this.bodies.clear();
      this.version = this.market.version;
      this.builtAt = now;
    }
    const key = group ?? '*';
    let body = this.bodies.get(key);
    if (!body) {
      body = this.build(group);
      this.bodies.set(key, body);
    }
    return body;
  }

  private build(group: GroupName | undefined): CachedBody {
    const pools: Pool[] = [];
    for (const pool of this.market.poolsById.values()) if (group === undefined || pool.group === group) pools.push(pool);
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
      pricescale: pools.map((p) => pricescaleFor(poolPrice(p))),
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
