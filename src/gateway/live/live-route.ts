import { Hono, type Context } from 'hono';
import { LIVE_EVENTS } from '../../shared/api/gateway';
import { isPoolId } from '../../shared/id-rules';
import { openStream } from '../../node/response-sink';
import { errorFrame, sseFrame, type LiveClient, type LiveHub } from './live-hub';

export interface LiveRouteOptions {
  readonly hub: LiveHub;
  readonly maxPoolsPerConnection: number;
  readonly maxConnectionsPerAddress: number;
  readonly heartbeatSeconds: number;
  /** Unread bytes a browser connection may hold before it is dropped. */
  readonly maxBufferedBytes: number;
  /** Resolves the Aggregate pool IDs the upstream knows (cached symbol_info), to refuse others early. */
  readonly aggregatePools: () => Promise<ReadonlySet<string>>;
  readonly clientAddress: (c: Context) => string;
  /** Reconnect delay hint for EventSource, ms. */
  readonly retryMs?: number;
}

const SSE_HEADERS = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache, no-transform',
  Connection: 'keep-alive',
  'X-Accel-Buffering': 'no',
};

/**
 * GET /gw/v1/live?pools=<id>,<id>: a standard SSE endpoint for EventSource. Frames: `retry:` first,
 * `status` (connected / reconnecting, with resync), `trade` (with `id:`), `rollback` (with `id:`, to
 * every connection: a chain-fed upstream rolled back), `heartbeat`, and `error` (then the connection
 * closes; `retry: false` means do not reconnect).
 */
export function liveRoutes(options: LiveRouteOptions): Hono {
  const { hub } = options;
  const app = new Hono({ strict: false });

  app.get('/live', async (c) => {
    const refuse = (errmsg: string, retry: boolean) =>
      c.body(`retry: ${options.retryMs ?? 3000}\n\n${errorFrame({ errmsg, retry })}`, 200, SSE_HEADERS);

    const raw = (c.req.query('pools') ?? '')
      .split(',')
      .map((p) => p.trim())
      .filter((p) => p.length > 0);
    if (raw.length === 0) return refuse('Give the pools to follow: /gw/v1/live?pools=<id>,<id>', false);
    const invalid = raw.find((p) => !isPoolId(p));
    if (invalid !== undefined) return refuse(`Invalid pool ID format: ${invalid.slice(0, 140)}`, false);
    const pools = new Set(raw.map((p) => p.toLowerCase()));
    if (pools.size > options.maxPoolsPerConnection) {
      return refuse(
        `Too many pools: ${pools.size} requested, at most ${options.maxPoolsPerConnection} per connection`,
        false,
      );
    }
    let known: ReadonlySet<string>;
    try {
      known = await options.aggregatePools();
    } catch {
      return refuse('The data service is unavailable; retrying', true);
    }
    const unknown = [...pools].find((p) => !known.has(p));
    if (unknown !== undefined)
      return refuse(`Not an Aggregate pool ID: ${unknown} (live updates exist for Aggregate pools only)`, false);
    const address = options.clientAddress(c);
    if (hub.connectionsOf(address) >= options.maxConnectionsPerAddress) {
      return refuse(`Too many live connections from ${address} (at most ${options.maxConnectionsPerAddress})`, false);
    }
    const overLimit = hub.refusal(pools, address);
    if (overLimit) return refuse(overLimit.errmsg, overLimit.retry);

    const lastEventId = c.req.header('Last-Event-ID') ?? c.req.query('lastEventId');
    let ended = false;
    // onClose runs later (the stream's end, never during openStream), when everything below exists.
    const cleanup = () => {
      if (ended) return;
      ended = true;
      clearInterval(heartbeat);
      hub.remove(client);
    };
    const { response, sink } = openStream(c, {
      headers: SSE_HEADERS,
      maxUnreadBytes: options.maxBufferedBytes,
      slowConsumerLine: errorFrame({ errmsg: 'Dropped: the connection is not reading fast enough', retry: true }),
      onSlowConsumer: () => hub.slowConsumers++,
      onClose: () => cleanup(),
    });
    const client: LiveClient = {
      pools,
      address,
      connected: false,
      missedEvents: false,
      write: (frame, bytes) => sink.write(frame, bytes),
      // The sink's own function (it uses no `this`): no closure more per connection.
      writeNow: sink.writeNow,
      close: () => sink.end(),
    };
    sink.write(`retry: ${options.retryMs ?? 3000}\n\n`);
    const heartbeat = setInterval(
      () => sink.write(sseFrame(LIVE_EVENTS.heartbeat, { time: Math.floor(Date.now() / 1000) }, hub.lastEventId)),
      options.heartbeatSeconds * 1000,
    );
    hub.add(client, lastEventId);
    // The browser may already be gone (closed while we set up).
    if (!sink.open) cleanup();
    return response;
  });

  return app;
}
