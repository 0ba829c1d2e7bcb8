import { Hono } from 'hono';
import {
  METADATA_EXTENSION,
  ROLLBACK_EXTENSION,
  STREAM_ERRORS,
  STREAM_EXTENSIONS_HEADER,
  streamRequestSchema,
} from '../../../shared/api/stream';
import { AGGREGATE_GROUP } from '../../../shared/groups';
import { isPoolId } from '../../../shared/id-rules';
import type { Market } from '../../market/model';
import type { SlotWait, StreamHub } from '../../stream/hub';
import { openStream } from '../../../node/response-sink';
import { streamError, streamErrorLine } from '../errors';
import { guard, type GuardOptions, type ServiceEnv } from '../guard';

export interface StreamOptions {
  /** Seconds between `{"s":"ok"}` pings. */
  readonly pingSeconds: number;
  /** Largest accepted request body, in bytes. */
  readonly maxBodyBytes: number;
  /** Unread bytes a connection may hold before it is dropped. */
  readonly maxBufferedBytes: number;
  /**
   * How long a stream waits for its key's slot when every slot is held (docs/decisions.md "Stream"):
   * a client switching pairs reconnects before its old stream's close reaches us. 0: refused at once.
   */
  readonly handoverMs: number;
}

/** A key's stream connections across the cluster (`SharedLimits`); absent on one node. */
export interface StreamLeases {
  /**
   * Resolves with the release, or undefined when the key has no free slot by `wait`'s deadline;
   * `onLost` if the slot is lost later.
   */
  acquireStream(keyId: string, max: number, onLost: () => void, wait?: SlotWait): Promise<(() => void) | undefined>;
}

export interface StreamRoutesOptions extends GuardOptions {
  readonly market: Market;
  readonly leases?: StreamLeases;
  readonly hub: StreamHub;
  readonly stream: StreamOptions;
  /** Whether our extensions are served: then a stream may ask for our rollback lines (`X-Stream-Extensions`). */
  readonly extensions?: boolean;
}

const PING = `${JSON.stringify({ s: 'ok' })}\n`;

const STREAM_HEADERS = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache, no-transform',
  'X-Accel-Buffering': 'no',
};

/**
 * POST /tokens/stream: newline-delimited JSON over text/event-stream (no `data:` framing, as the
 * official client expects). Refusals are one error event, then the connection closes.
 */
export function streamRoutes(options: StreamRoutesOptions): Hono<ServiceEnv> {
  const { market, hub, stream, keys } = options;
  const app = new Hono<ServiceEnv>({ strict: false });

  app.post('/stream', guard(options, 'stream'), async (c) => {
    const principal = c.get('principal');
    const refuse = (errmsg: string) => streamError(c, 200, errmsg);

    const declared = Number(c.req.header('Content-Length') ?? '0');
    if (declared > stream.maxBodyBytes)
      return refuse(`${STREAM_ERRORS.bodyTooLarge} (at most ${stream.maxBodyBytes} bytes)`);
    let text: string;
    try {
      text = await readLimited(c.req.raw, stream.maxBodyBytes);
    } catch {
      return refuse(`${STREAM_ERRORS.bodyTooLarge} (at most ${stream.maxBodyBytes} bytes)`);
    }
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      return refuse(STREAM_ERRORS.notArray);
    }
    const parsed = streamRequestSchema.safeParse(json);
    if (!parsed.success) return refuse(STREAM_ERRORS.notArray);
    if (parsed.data.length === 0) return refuse(STREAM_ERRORS.empty);
    const ids = new Set<string>();
    for (const id of parsed.data) {
      if (!isPoolId(id)) return refuse(STREAM_ERRORS.invalidPoolId);
      ids.add(id.toLowerCase());
    }
    for (const id of ids) {
      const pool = market.pools.get(id);
      if (!pool || pool.group !== AGGREGATE_GROUP) {
        return refuse(
          `${STREAM_ERRORS.notAggregate}: ${id} (only Aggregate pools stream; take IDs from symbol_info?group=Aggregate)`,
        );
      }
    }
    const plan = keys.plan(principal.plan);
    if (ids.size > plan.poolsPerStream) {
      return refuse(
        `${STREAM_ERRORS.tooManyPools}: ${ids.size} requested, the ${principal.plan} plan allows ${plan.poolsPerStream} per connection`,
      );
    }
    const limit = plan.streamsPerKey ?? 1;
    // A lease lost to another connection (Redis lost it, another node took the slot) ends this one.
    let lost = false;
    let endLost: () => void = () => (lost = true);
    // Every slot held: wait a moment for one to be released (a handover from the client's previous
    // stream) before refusing; a client that leaves meanwhile stops the wait, and one that asks for
    // a shorter wait (`Prefer: wait=0`: a second stream on purpose) gets it.
    const waitMs = Math.min(stream.handoverMs, preferredWaitMs(c.req.header('Prefer')) ?? Number.POSITIVE_INFINITY);
    const wait: SlotWait = { deadline: Date.now() + waitMs, signal: c.req.raw.signal };
    const lease = options.leases
      ? await options.leases.acquireStream(principal.id, limit, () => endLost(), wait)
      : () => undefined;
    if (!lease) return refuse(STREAM_ERRORS.connectionLimit);
    if (!(await hub.acquire(principal.id, limit, wait))) {
      lease();
      // Shutting down: ended without a line, as open streams are (decisions "Stream"); clients reconnect.
      if (hub.closing) return c.body('', 200, STREAM_HEADERS);
      return refuse(STREAM_ERRORS.connectionLimit);
    }

    let released = false;
    // onClose runs later (the stream's end, never during openStream), when everything below exists.
    const cleanup = () => {
      if (released) return;
      released = true;
      clearInterval(ping);
      unsubscribe();
      untrack();
      hub.release(principal.id);
      lease();
    };
    const { response, sink } = openStream(c, {
      headers: STREAM_HEADERS,
      maxUnreadBytes: stream.maxBufferedBytes,
      slowConsumerLine: streamErrorLine(STREAM_ERRORS.slowConsumer),
      onSlowConsumer: () => hub.slowConsumers++,
      onClose: () => cleanup(),
    });
    const unsubscribeTrades = hub.subscribe(ids, (line, _event, bytes) => sink.write(line, bytes));
    // Our rollback lines, for a client that asked (the gateway): never for the spec's clients.
    const extensions = (options.extensions ?? true) ? c.req.header(STREAM_EXTENSIONS_HEADER) : undefined;
    const unsubscribeRollbacks = wants(extensions, ROLLBACK_EXTENSION)
      ? hub.subscribeRollbacks((line, bytes) => sink.write(line, bytes))
      : () => undefined;
    // Token metadata lines likewise (docs/chain.md "Token identity").
    const unsubscribeMetadata = wants(extensions, METADATA_EXTENSION)
      ? hub.subscribeMetadata((line, bytes) => sink.write(line, bytes))
      : () => undefined;
    const unsubscribe = () => {
      unsubscribeTrades();
      unsubscribeRollbacks();
      unsubscribeMetadata();
    };
    const ping = setInterval(() => sink.write(PING), stream.pingSeconds * 1000);
    const untrack = hub.track(() => sink.end());
    endLost = () => {
      sink.write(streamErrorLine(STREAM_ERRORS.connectionLimit));
      sink.end();
    };
    sink.write(PING);
    if (lost) endLost();
    // The client may already be gone (closed while we subscribed).
    if (!sink.open) cleanup();
    return response;
  });

  return app;
}

/** Whether an `X-Stream-Extensions` header (a comma-separated list) asks for `extension`'s lines. */
function wants(header: string | undefined, extension: string): boolean {
  return (header ?? '').split(',').some((token) => token.trim().toLowerCase() === extension);
}

/**
 * The `wait` preference of a `Prefer` header (RFC 7240 4.3: how many seconds the client will wait for
 * the answer), in ms; undefined when absent or malformed.
 */
export function preferredWaitMs(prefer: string | undefined): number | undefined {
  for (const preference of (prefer ?? '').split(',')) {
    const [token = '', value = ''] = (preference.split(';')[0] ?? '')
      .split('=')
      .map((part) => part.trim().toLowerCase());
    if (token === 'wait' && /^\d{1,9}$/.test(value)) return Number(value) * 1000;
  }
  return undefined;
}

/** Reads a request body as text, failing past `limit` bytes. */
async function readLimited(request: Request, limit: number): Promise<string> {
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw new Error('body too large');
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}
