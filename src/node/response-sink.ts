import type { ServerResponse } from 'node:http';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { Context } from 'hono';
import { CoalescingWriter } from './coalescing-writer';
import { API_POLICY, COMMON_SECURITY_HEADERS } from './security-headers';

/**
 * A long-lived streaming response (the service's stream, the gateway's SSE) with one rule for slow
 * clients: text is coalesced per synchronous run (one chunk per commit per connection), and once the
 * bytes the client has not taken reach `maxUnreadBytes`, the stream sends its last words and ends.
 *
 * Served by @hono/node-server, it writes to the Node response directly (no web-stream piping per
 * socket: with a thousand connections that is most of a commit's fan-out time); in-process (tests,
 * the embedded gateway's upstream) it is a web ReadableStream.
 */
export interface StreamSink {
  /**
   * Queues text; false when the stream has ended (closed, dropped, or the client went away). `bytes`
   * is the text's UTF-8 length when the caller knows it (one line fanned out to many streams).
   */
  write(text: string, bytes?: number): boolean;
  /**
   * Writes text now, after what is queued, under the same rule for slow clients: for a caller that
   * has already gathered a run's text for this stream (the gateway's trades, per set of pools), so
   * that the stream is written in the same pass rather than queued for a second one. It may be called
   * detached from the sink (it uses no `this`).
   */
  writeNow(text: string, bytes?: number): boolean;
  /** Sends what is queued, then ends the stream. */
  end(): void;
  readonly open: boolean;
}

export interface OpenStreamOptions {
  readonly headers: Readonly<Record<string, string>>;
  /** Unread bytes past which the client is dropped. */
  readonly maxUnreadBytes: number;
  /** Sent (when it can be) before a slow client is dropped. */
  readonly slowConsumerLine: string;
  /** Called once when the stream ends, whatever the cause (client gone, dropped, ended). */
  readonly onClose: () => void;
  /** Called when the client is dropped for not reading (before `onClose`). */
  readonly onSlowConsumer?: () => void;
}

const encoder = new TextEncoder();
const resolved = Promise.resolve();

/**
 * Node streams with queued text, in the order they were first written to since their last flush: all
 * flushed by one microtask, after the synchronous run that queued the text (a commit's fan-out, an
 * upstream chunk's frames). One job for a thousand connections, not a promise each.
 */
let dirty: (() => void)[] = [];
let flushQueued = false;
/**
 * The last text written as one HTTP chunk, and that chunk: streams given the same text in a run (the
 * gateway's browsers following the same pools) are written one after another, and all but the first
 * write the chunk already made. Forgotten after the run.
 */
let lastText: string | undefined;
let lastChunk = '';
let forgetQueued = false;

function forgetChunk(): void {
  forgetQueued = false;
  lastText = undefined;
  lastChunk = '';
}

function queueFlush(flush: () => void): void {
  dirty.push(flush);
  if (flushQueued) return;
  flushQueued = true;
  void resolved.then(flushDirty);
}

function flushDirty(): void {
  flushQueued = false;
  const batch = dirty;
  dirty = [];
  // A flush catches its own socket's failure; should anything else throw (a close listener), every
  // other connection is still flushed before the error goes on.
  let failure: { error: unknown } | undefined;
  for (const flush of batch) {
    try {
      flush();
    } catch (error) {
      failure ??= { error };
    }
  }
  if (failure) throw failure.error;
}

/** `text` framed as one HTTP/1.1 chunk of `bytes` bytes. */
function chunkOf(text: string, bytes: number): string {
  if (text === lastText) return lastChunk;
  lastText = text;
  lastChunk = `${bytes.toString(16)}\r\n${text}\r\n`;
  if (!forgetQueued) {
    forgetQueued = true;
    void resolved.then(forgetChunk);
  }
  return lastChunk;
}

/**
 * Options for @hono/node-server (`serve`, `getRequestListener`) under which streams write to the Node
 * response directly. With node-server's global Response override, the already-sent marker a handler
 * returns does not survive middleware that touches the response (CORS does), so it stays off.
 */
export const NODE_SERVER_OPTIONS = { overrideGlobalObjects: false } as const;

/**
 * Whether the global Response is node-server's override: a subclass of the native one (the native
 * class extends nothing). Its instances cannot tell from own symbols: Node 20's native Response has some.
 */
function responseOverridden(): boolean {
  return Object.getPrototypeOf(globalThis.Response) !== Function.prototype;
}

/** Opens a streaming response on `c`; return `response` from the handler, then write through `sink`. */
export function openStream(c: Context, options: OpenStreamOptions): { response: Response; sink: StreamSink } {
  const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
  if (outgoing && !outgoing.headersSent && !responseOverridden()) return nodeStream(c, outgoing, options);
  return webStream(c, options);
}

/**
 * The security headers of every answer (security-headers.ts): a stream's head is written here, before
 * any middleware could add them on the way out.
 */
const STREAM_SECURITY_HEADERS: Readonly<Record<string, string>> = {
  ...COMMON_SECURITY_HEADERS,
  'Content-Security-Policy': API_POLICY,
};

/** Headers already set on the context (CORS, rate limits) plus the stream's own. */
function headersOf(c: Context, own: Readonly<Record<string, string>>): Record<string, string> {
  // One spelling per name (Headers gives them in lower case): Node would send both of two spellings.
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(STREAM_SECURITY_HEADERS)) headers[name.toLowerCase()] = value;
  c.res.headers.forEach((value, name) => {
    if (name !== 'content-type' && name !== 'content-length') headers[name] = value;
  });
  for (const [name, value] of Object.entries(own)) headers[name.toLowerCase()] = value;
  return headers;
}

function nodeStream(
  c: Context,
  outgoing: ServerResponse,
  options: OpenStreamOptions,
): { response: Response; sink: StreamSink } {
  let open = true;
  let pending: string[] = [];
  let pendingBytes = 0;
  let scheduled = false;
  /**
   * What the client had not taken when this run's first text was queued. It cannot change before the
   * flush (only the flush writes to the socket), so it is read once per flush, not once per line.
   */
  let unread = 0;
  const socket = outgoing.socket;
  // The client's side is gone the moment its socket ends or closes: free the stream (and its key's
  // slot) then, not when Node gets round to closing the response a moment later — a client switching
  // pairs reconnects within a millisecond and must not find its own old stream holding the slot.
  const gone = () => {
    if (!open) return;
    outgoing.destroy();
    close();
  };
  const close = () => {
    if (!open) return;
    open = false;
    pending = [];
    pendingBytes = 0;
    socket?.off('end', gone);
    socket?.off('close', gone);
    options.onClose();
  };
  // Set once the headers are out: whether the body goes in HTTP/1.1 chunks (an HTTP/1.0 client gets a
  // body delimited by the connection's close instead).
  let chunked = false;
  const flush = () => {
    scheduled = false;
    if (!open || pending.length === 0) return;
    const parts = pending;
    const bytes = pendingBytes;
    pending = [];
    pendingBytes = 0;
    try {
      // One socket write per flush, the chunk's framing around the text: outgoing.write would make four
      // writes into a corked socket and uncork it on the next tick — with a thousand connections per
      // commit, that is most of the fan-out's time. outgoing.end() still writes the last chunk. The
      // framing is joined with the text in one go: one flat string per connection, nothing to flatten
      // again when it is written (less garbage per commit, so fewer collector pauses in the fan-out).
      if (chunked && socket && !socket.destroyed) {
        if (parts.length === 1) socket.write(chunkOf(parts[0] ?? '', bytes));
        else {
          parts.unshift(`${bytes.toString(16)}\r\n`);
          parts.push('\r\n');
          socket.write(parts.join(''));
        }
      } else outgoing.write(parts.length === 1 ? (parts[0] ?? '') : parts.join(''));
    } catch {
      // The connection is unusable: end it here rather than let the error reach the other streams' flush.
      outgoing.destroy();
      close();
    }
  };
  /** Queues text unless the client stopped reading (then it is dropped): false when the stream is over. */
  const admit = (text: string, bytes: number): boolean => {
    if (!open) return false;
    if (!scheduled) unread = outgoing.writableLength;
    if (unread + pendingBytes >= options.maxUnreadBytes) {
      // The client stopped reading: drop it rather than buffer without bound.
      flush();
      outgoing.end(options.slowConsumerLine);
      options.onSlowConsumer?.();
      close();
      return false;
    }
    pending.push(text);
    pendingBytes += bytes;
    return true;
  };
  const sink: StreamSink = {
    get open() {
      return open;
    },
    write(text, bytes = Buffer.byteLength(text)) {
      if (!admit(text, bytes)) return false;
      if (!scheduled) {
        scheduled = true;
        queueFlush(flush);
      }
      return true;
    },
    writeNow(text, bytes = Buffer.byteLength(text)) {
      if (!admit(text, bytes)) return false;
      // A flush already queued for this stream then finds nothing left to write.
      flush();
      return open;
    },
    end() {
      if (!open) return;
      flush();
      outgoing.end();
      close();
    },
  };
  outgoing.writeHead(200, headersOf(c, options.headers));
  outgoing.flushHeaders();
  chunked = (outgoing as ServerResponse & { chunkedEncoding?: boolean }).chunkedEncoding === true;
  outgoing.once('close', close);
  if (socket) {
    // Already gone: ended on the next tick (never during openStream, whose caller is still setting up).
    if (socket.readableEnded || socket.destroyed) process.nextTick(gone);
    else {
      socket.once('end', gone);
      socket.once('close', gone);
    }
  }
  return { response: RESPONSE_ALREADY_SENT, sink };
}

function webStream(c: Context, options: OpenStreamOptions): { response: Response; sink: StreamSink } {
  let open = true;
  let out: CoalescingWriter | undefined;
  let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  const close = () => {
    if (!open) return;
    open = false;
    out?.discard();
    options.onClose();
  };
  const body = new ReadableStream<Uint8Array>(
    {
      start(streamController) {
        controller = streamController;
        out = new CoalescingWriter(streamController);
      },
      cancel() {
        close();
      },
    },
    new ByteLengthQueuingStrategy({ highWaterMark: options.maxUnreadBytes }),
  );
  c.req.raw.signal.addEventListener('abort', close, { once: true });
  const sink: StreamSink = {
    get open() {
      return open;
    },
    write(text, bytes) {
      if (!open || !out || !controller) return false;
      // What the client has not read yet (queued or pending); past the bound, drop the client.
      if (out.room <= 0) {
        out.flush();
        controller.enqueue(encoder.encode(options.slowConsumerLine));
        controller.close();
        options.onSlowConsumer?.();
        close();
        return false;
      }
      out.write(text, bytes);
      return true;
    },
    writeNow(text, bytes) {
      if (!sink.write(text, bytes)) return false;
      out?.flush();
      return true;
    },
    end() {
      if (!open || !out || !controller) return;
      out.flush();
      controller.close();
      close();
    },
  };
  return { response: c.body(body, 200, { ...STREAM_SECURITY_HEADERS, ...options.headers }), sink };
}
