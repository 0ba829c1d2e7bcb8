import { etagMatches } from '../../../node/http';
import { LOGO_VARY, logoHeadersOf, logoImageEtag, logoRepresentation } from '../../../node/logo-negotiation';
import { Hono } from 'hono';
import { TOKEN_ERROR_TYPES } from '../../../shared/api/errors';
import type { TokenLogo } from '../../../shared/api/tokens';
import { isPoolId, isTokenUnit } from '../../../shared/id-rules';
import type { LogoService } from '../../logos/logo-service';
import type { Market } from '../../market/model';
import { poolStats } from '../../market/stats';
import type { TradeStore } from '../../store/ports';
import { tokenError } from '../errors';
import { guard, type GuardOptions, type ServiceEnv } from '../guard';

export interface TokenRoutesOptions extends GuardOptions {
  readonly market: Market;
  readonly trades: TradeStore;
  readonly logos: LogoService;
  readonly nowMs: () => number;
}

const TOKEN_FORMAT =
  'must be a policy ID (56 hex characters) followed by an asset name (0 to 64 hex characters, even length)';
const POOL_FORMAT = 'must be a non-empty, even-length hex string of at most 128 characters';

/** GET /tokens/current and /tokens/logo/{token}: FastAPI-style errors. */
export function tokenRoutes(options: TokenRoutesOptions): Hono<ServiceEnv> {
  const { market, trades, logos, nowMs } = options;
  const app = new Hono<ServiceEnv>({ strict: false });
  const auth = guard(options, 'tokens');

  app.get('/current', auth, async (c) => {
    const policy = c.req.query('policy');
    const poolParam = c.req.query('pool');
    if (policy !== undefined && poolParam !== undefined) {
      return tokenError(c, 422, {
        loc: ['query'],
        msg: 'Give exactly one of policy and pool, not both',
        type: TOKEN_ERROR_TYPES.value,
      });
    }
    if (policy === undefined && poolParam === undefined) {
      return tokenError(c, 422, {
        loc: ['query'],
        msg: 'Give exactly one of policy and pool',
        type: TOKEN_ERROR_TYPES.missing,
      });
    }
    if (policy !== undefined) {
      if (!isTokenUnit(policy))
        return tokenError(c, 422, {
          loc: ['query', 'policy'],
          msg: `policy ${TOKEN_FORMAT}`,
          type: TOKEN_ERROR_TYPES.value,
        });
      const unit = policy.toLowerCase();
      if (!market.tokens.has(unit))
        return tokenError(c, 404, {
          loc: ['query', 'policy'],
          msg: 'Token not found',
          type: TOKEN_ERROR_TYPES.notFound,
        });
      const pair = market.adaPairOf(unit);
      if (!pair)
        return tokenError(c, 404, {
          loc: ['query', 'policy'],
          msg: 'Token has no ADA pool',
          type: TOKEN_ERROR_TYPES.notFound,
        });
      return c.json(await poolStats(pair.aggregate, trades, nowMs() / 1000));
    }
    const poolId = poolParam as string;
    if (!isPoolId(poolId))
      return tokenError(c, 422, { loc: ['query', 'pool'], msg: `pool ${POOL_FORMAT}`, type: TOKEN_ERROR_TYPES.value });
    const pool = market.pools.get(poolId.toLowerCase());
    if (!pool)
      return tokenError(c, 404, { loc: ['query', 'pool'], msg: 'Pool not found', type: TOKEN_ERROR_TYPES.notFound });
    return c.json(await poolStats(pool, trades, nowMs() / 1000));
  });

  app.get('/logo/:token', auth, async (c) => {
    const token = c.req.param('token');
    if (!isTokenUnit(token))
      return tokenError(c, 422, {
        loc: ['path', 'token'],
        msg: `token ${TOKEN_FORMAT}`,
        type: TOKEN_ERROR_TYPES.value,
      });
    const found = market.tokens.get(token.toLowerCase());
    if (!found)
      return tokenError(c, 404, { loc: ['path', 'token'], msg: 'Token not found', type: TOKEN_ERROR_TYPES.notFound });
    const body: TokenLogo = await logos.base64(found);
    // One URL, two representations (decisions "Logos for browsers and for programs"): caches key on what the choice reads.
    c.header('Vary', LOGO_VARY);
    c.header('Cache-Control', 'private, max-age=300');
    if (logoRepresentation(logoHeadersOf((name) => c.req.header(name))) === 'json') return c.json(body);
    if (body === null)
      return tokenError(c, 404, { loc: ['path', 'token'], msg: 'Token has no logo', type: TOKEN_ERROR_TYPES.notFound });
    const png = Buffer.from(body, 'base64');
    const etag = logoImageEtag(png);
    c.header('ETag', etag);
    if (etagMatches(c.req.header('If-None-Match'), etag)) return c.body(null, 304);
    c.header('Content-Type', 'image/png');
    return c.body(new Uint8Array(png));
  });

  return app;
}
