import { createParser } from 'eventsource-parser';

type FetchLike = (input: string, init?: RequestInit) => Promise<Response>;
type Listener = (event: MessageEvent) => void;

/**
 * A WHATWG-style EventSource for Node tests and benchmarks, over any fetch (the in-process platform's
 * `app.fetch`, or the network). Follows the browser's rules that matter here: named events, `id:`
 * remembered and sent back as Last-Event-ID on reconnect, `retry:` honoured, automatic reconnect
 * after the stream ends, `close()` stops everything.
 */
export class TestEventSource {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSED = 2;

  readyState = TestEventSource.CONNECTING;
  onopen: ((event: Event) => void) | null = null;
  onmessage: Listener | null = null;
  onerror: ((event: Event) => void) | null = null;

  private readonly listeners = new Map<string, Set<Listener>>();
  private abort: AbortController | undefined;
  private lastEventId: string | undefined;
  private retryMs = 3000;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    readonly url: string,
    private readonly fetchImpl: FetchLike,
  ) {
    void this.connect();
  }

  addEventListener(type: string, listener: Listener): void {
    let set = this.listeners.get(type);
    if (!set) this.listeners.set(type, (set = new Set()));
    set.add(listener);
  }

  removeEventListener(type: string, listener: Listener): void {
    this.listeners.get(type)?.delete(listener);
  }

  close(): void {
    this.readyState = TestEventSource.CLOSED;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.abort?.abort();
  }

  private dispatch(type: string, event: MessageEvent): void {
    if (type === 'message') this.onmessage?.(event);
    for (const listener of [...(this.listeners.get(type) ?? [])]) listener(event);
  }

  private async connect(): Promise<void> {
    if (this.readyState === TestEventSource.CLOSED) return;
    this.readyState = TestEventSource.CONNECTING;
    const abort = new AbortController();
    this.abort = abort;
    const headers: Record<string, string> = { Accept: 'text/event-stream' };
    if (this.lastEventId !== undefined) headers['Last-Event-ID'] = this.lastEventId;
    try {
      const response = await this.fetchImpl(this.url, { headers, signal: abort.signal });
      if (
        !response.ok ||
        !response.body ||
        !(response.headers.get('content-type') ?? '').startsWith('text/event-stream')
      ) {
        // As in browsers: a non-SSE answer fails the connection for good.
        this.readyState = TestEventSource.CLOSED;
        this.onerror?.(new Event('error'));
        return;
      }
      this.readyState = TestEventSource.OPEN;
      this.onopen?.(new Event('open'));
      const parser = createParser({
        onEvent: (message) => {
          if (message.id !== undefined) this.lastEventId = message.id;
          this.dispatch(
            message.event ?? 'message',
            new MessageEvent(message.event ?? 'message', { data: message.data, lastEventId: this.lastEventId ?? '' }),
          );
        },
        onRetry: (ms) => {
          this.retryMs = ms;
        },
      });
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      abort.signal.addEventListener('abort', () => void reader.cancel().catch(() => {}), { once: true });
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        parser.feed(value);
      }
    } catch {
      // Network errors and aborts end up below.
    }
    if (this.readyState === TestEventSource.CLOSED) return;
    this.readyState = TestEventSource.CONNECTING;
    this.onerror?.(new Event('error'));
    this.timer = setTimeout(() => void this.connect(), this.retryMs);
  }
}

/**
 * An EventSource whose events the test emits by hand (the gateway's frames, connection failures), for
 * exact sequences under fake timers. `ScriptedEventSource.opened` lists every one constructed.
 */
export class ScriptedEventSource {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSED = 2;
  static readonly opened: ScriptedEventSource[] = [];
  readyState: number = ScriptedEventSource.CONNECTING;
  onerror: ((event: Event) => void) | null = null;
  private readonly listeners = new Map<string, ((event: MessageEvent) => void)[]>();

  constructor(readonly url: string) {
    ScriptedEventSource.opened.push(this);
  }

  /** The newest one constructed. */
  static last(): ScriptedEventSource {
    const source = ScriptedEventSource.opened.at(-1);
    if (!source) throw new Error('no EventSource was opened');
    return source;
  }

  addEventListener(type: string, listener: (event: MessageEvent) => void): void {
    this.listeners.set(type, [...(this.listeners.get(type) ?? []), listener]);
  }

  close(): void {
    this.readyState = ScriptedEventSource.CLOSED;
  }

  get closed(): boolean {
    return this.readyState === ScriptedEventSource.CLOSED;
  }

  /** A frame of the gateway: `event` with JSON `data` (and an `id:` when given). */
  emit(type: string, data: unknown, id?: string): void {
    this.readyState = ScriptedEventSource.OPEN;
    for (const listener of this.listeners.get(type) ?? [])
      listener(new MessageEvent(type, { data: JSON.stringify(data), lastEventId: id ?? '' }));
  }

  /** The connection fails: `CONNECTING` (the browser retries by itself) or `CLOSED` (it gave up, e.g. an HTTP 503). */
  fail(readyState: typeof ScriptedEventSource.CONNECTING | typeof ScriptedEventSource.CLOSED): void {
    this.readyState = readyState;
    this.onerror?.(new Event('error'));
  }
}
