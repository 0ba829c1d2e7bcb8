import type { Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { RAW_SECURITY_HEADER_LINES } from './security-headers';

/**
 * Requests Node refuses before any route sees them (request line and headers over `maxHeaderSize`,
 * bytes that are not HTTP) get Node's bare `431`/`400` with no body by default. Answer them instead in
 * the error shape of the family the path belongs to, like every other refusal (docs/decisions.md).
 */

/** Node's limit on the request line plus headers (`--max-http-header-size`, 16 KiB by default). */
const HEADER_LIMIT_KIB = 16;

function familyBody(path: string | undefined, message: string): string {
  // The token endpoints answer FastAPI-style; everything else price-style.
  if (path !== undefined && /^\/(api|gw)\/v1\/tokens(\/|\?|$)/.test(path)) {
    return JSON.stringify({ detail: [{ loc: ['request'], msg: message, type: 'value_error' }] });
  }
  return JSON.stringify({ s: 'error', errmsg: message });
}

/** The path of the request line in what Node had read, when it got that far. */
function pathOf(raw: unknown): string | undefined {
  if (!Buffer.isBuffer(raw)) return undefined;
  const line = raw.subarray(0, Math.min(raw.length, 4096)).toString('latin1');
  const match = /^[A-Z]+ (\/\S*)/.exec(line);
  return match?.[1];
}

/** Answers refused requests in the documented error shapes; connections that just went away are closed. */
export function answerClientErrors(server: Server): void {
  server.on('clientError', (error: NodeJS.ErrnoException & { rawPacket?: unknown }, socket: Duplex) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
    const status = tooLarge ? 431 : 400;
    const reason = tooLarge ? 'Request Header Fields Too Large' : 'Bad Request';
    const message = tooLarge
      ? `Request line and headers are too large (at most ${HEADER_LIMIT_KIB} KiB together): send fewer or shorter parameters`
      : 'Malformed HTTP request';
    const body = familyBody(pathOf(error.rawPacket), message);
    socket.end(
      `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${RAW_SECURITY_HEADER_LINES}Connection: close\r\n\r\n${body}`,
    );
  });
}
