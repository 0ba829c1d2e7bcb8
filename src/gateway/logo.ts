import type { Context } from 'hono';
import { TOKEN_ERROR_TYPES } from '../shared/api/errors';
import { tokenLogoSchema } from '../shared/api/tokens';
import { etagMatches } from '../node/http';
import { LOGO_VARY, logoHeadersOf, logoImageEtag, logoRepresentation } from '../node/logo-negotiation';
import { gatewayError, type BufferedAnswer, type CacheRule, type Forwarder } from './forward';

/** A held upstream logo as an image: its PNG bytes and tag, null when the token has none, or why it is unusable. */
type LogoImage = { readonly png: Uint8Array; readonly etag: string } | null | { readonly invalid: string };

/** Decoded once per held upstream answer, shared by every browser it serves. */
const images = new WeakMap<BufferedAnswer, LogoImage>();

function imageOf(answer: BufferedAnswer): LogoImage {
  let image = images.get(answer);
  if (image !== undefined) return image;
  let json: unknown;
  try {
    json = JSON.parse(new TextDecoder().decode(answer.body));
  } catch {
    json = undefined;
  }
  const parsed = tokenLogoSchema.safeParse(json);
  if (!parsed.success) image = { invalid: 'Upstream answered a logo that is neither a base64 string nor null' };
  else if (parsed.data === null) image = null;
  else {
    const png = new Uint8Array(Buffer.from(parsed.data, 'base64'));
    image = { png, etag: logoImageEtag(png) };
  }
  images.set(answer, image);
  return image;
}

/**
 * GET /gw/v1/tokens/logo/<token>, by the service's rule (src/node/logo-negotiation.ts): the upstream's
 * JSON for programs and the app (which asks for `application/json`), the PNG for a browser's plain
 * fetch or `<img>`. Either way the upstream is asked for its JSON, held once for both (the cache of
 * `rule`); the PNG is decoded from it, with the service's own ETag for it.
 */
export async function forwardLogo(
  c: Context,
  forwarder: Forwarder,
  target: string,
  rule: CacheRule,
): Promise<Response> {
  c.header('Vary', LOGO_VARY);
  if (logoRepresentation(logoHeadersOf((name) => c.req.header(name))) === 'json')
    return forwarder.forward(c, target, 'tokens', rule);
  let held: Awaited<ReturnType<Forwarder['buffered']>>;
  try {
    held = await forwarder.buffered(target, rule.ttlMs);
  } catch (error) {
    return forwarder.failure(c, 'tokens', error);
  }
  // Errors (404 unknown token, 422, 429, 5xx) pass through in the token family's JSON, as for programs.
  if (held.answer.status !== 200) return forwarder.sendBuffered(c, held.answer, held.fromCache, rule);
  const image = imageOf(held.answer);
  if (image === null)
    return gatewayError(c, 'tokens', 404, 'Token has no logo', {
      loc: ['path', 'token'],
      type: TOKEN_ERROR_TYPES.notFound,
    });
  if ('invalid' in image)
    return gatewayError(c, 'tokens', 502, image.invalid, { loc: [], type: 'upstream_unavailable' });
  c.header('Cache-Control', `private, max-age=${rule.browserMaxAge}`);
  c.header('ETag', image.etag);
  if (etagMatches(c.req.header('If-None-Match'), image.etag)) return c.body(null, 304);
  c.header('Content-Type', 'image/png');
  // Shared by every browser served from this held answer: sent as it is, never written to.
  return c.body(image.png as Uint8Array<ArrayBuffer>, 200);
}
