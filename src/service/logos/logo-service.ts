import { LOGO_GENERATED, LOGO_STORED, type Token } from '../market/model';
import type { MarketStore } from '../store/ports';
import { identiconPng } from './identicon';

/** Base64 PNG logos: stored ones (from the registry) or generated identicons, memoised. */
export class LogoService {
  private readonly cache = new Map<number, string>();
  private static readonly MAX_CACHED = 4096;

  constructor(private readonly store: MarketStore) {}

  /** The token's logo as base64 PNG, or null when it has none. */
  async base64(token: Token): Promise<string | null> {
    const cached = this.cache.get(token.id);
    if (cached !== undefined) return cached;
    let png: Buffer | null = null;
    if (token.logoKind === LOGO_STORED) png = await this.store.logo(token.id);
    else if (token.logoKind === LOGO_GENERATED) png = identiconPng(token.unit);
    if (!png) return null;
    const encoded = png.toString('base64');
    if (this.cache.size >= LogoService.MAX_CACHED) this.cache.delete(this.cache.keys().next().value as number);
    this.cache.set(token.id, encoded);
    return encoded;
  }

  /** Forgets a token's memoised logo (after an import changed it). */
  invalidate(token: Token): void {
    this.cache.delete(token.id);
  }
}
