import type { IncomingMessage, ServerResponse } from 'node:http';
import { API_POLICY, COMMON_SECURITY_HEADERS } from './security-headers';

/**
 * Paths are judged as the client sent them, before the URL parser sees them: WHATWG URL parsing (what
 * the Node adapter does to build a Request) resolves `.`/`..` segments, `%2e` spelled ones included,
 * and turns `\` into `/`, so `/gw/v1/%2e%2e/healthz` would reach another route than it names and a raw
 * `\` failed in the adapter with an empty 400. Such a path is refused here with a 400 `Invalid path`
 * in the error shape of the family the path belongs to (docs/gateway.md, docs/decisions.md).
 */

/** A `.` or `..` segment, plain or percent-encoded (any case). */
const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;

/** Why a raw request path is refused, or undefined when it is acceptable. */
export function rawPathProblem(rawUrl: string): string | undefined {
  const query = rawUrl.indexOf('?');
  const path = query === -1 ? rawUrl : rawUrl.slice(0, query);
  if (path.includes('\\')) return "'\\' is not accepted in a path";
  if (path.split('/').some((segment) => DOT_SEGMENT.test(segment))) return 'dot segments (. and ..) are not accepted';
  return undefined;
}

/** Wraps a Node request listener: refuses raw paths with `\` or dot segments before it runs. */
export function guardRawPaths(
  listener: (req: IncomingMessage, res: ServerResponse) => unknown,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const raw = req.url ?? '/';
    const problem = rawPathProblem(raw);
    if (problem === undefined) {
      void listener(req, res);
      return;
    }
    const shown = raw.length > 200 ? `${raw.slice(0, 200)}…` : raw;
    const message = `Invalid path ${JSON.stringify(shown)}: ${problem}`;
    const tokens = /^\/(api|gw)\/v1\/tokens(\/|\?|$)/.test(raw);
    const body = JSON.stringify(
      tokens ? { detail: [{ loc: ['path'], msg: message, type: 'value_error' }] } : { s: 'error', errmsg: message },
    );
    // The connection closes after the refusal: an unread request body must not be taken for the next request.
    res.writeHead(400, {
      'Content-Type': 'application/json',
      'Content-Length': Buffer.byteLength(body),
      Connection: 'close',
      ...COMMON_SECURITY_HEADERS,
      'Content-Security-Policy': API_POLICY,
    });
    res.end(body);
  };
}
