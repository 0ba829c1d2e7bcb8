import { LOGO_GENERATED, LOGO_STORED, type Token } from '../market/model';
import type { MarketStore } from '../store/ports';
import { identiconPng } from './identicon';

/**
 * Base64 PNG logos: stored ones (the registry's, or fetched from where a token's metadata says) read from the store
 * each time, so that a logo stored while serving (by this node's writer, or another node's in a cluster) is served at
 * once; generated identicons, which never change, memoised.
 */
export class LogoService {
  /** By unit: a row id is handed out again after a chain rollback, to another token. */
  private readonly generated = new Map<string, string>();
  private static readonly MAX_CACHED = 4096;

  constructor(private readonly store: MarketStore) {}

  /** The token's logo as base64 PNG, or null when it has none. */
  async base64(token: Token): Promise<string | null> {
    if (token.logoKind === LOGO_STORED) {
      const png = await this.store.logo(token.id);
      return png ? png.toString('base64') : null;
    }
    if (token.logoKind !== LOGO_GENERATED) return null;
    const cached = this.generated.get(token.unit);
    if (cached !== undefined) return cached;
    const encoded = identiconPng(token.unit).toString('base64');
    if (this.generated.size >= LogoService.MAX_CACHED)
      this.generated.delete(this.generated.keys().next().value as string);
    this.generated.set(token.unit, encoded);
    return encoded;
  }
}
