import { STREAM_ERRORS, streamLineSchema, type TradeEvent } from '../../shared/api/stream';
import type { Upstream } from '../upstream';

export interface UpstreamStreamOptions {
  readonly upstream: Upstream;
  readonly silenceMs: number;
  readonly debounceMs: number;
  readonly backoffInitialMs: number;
  readonly backoffMaxMs: number;
  /** Uniform [0, 1) for jitter (injectable for tests). */
  readonly random?: () => number;
  readonly log?: (line: string) => void;
}

export interface UpstreamListener {
  /** A subscription covering `pools` is live; `afterFailure` when it follows a drop or refusal. */
  onLive(pools: ReadonlySet<string>, afterFailure: boolean): void;
  /** The connection dropped or was refused; reconnecting with backoff. */
  onDown(reason: string): void;
  onEvent(event: TradeEvent): void;
}

type State = 'idle' | 'connecting' | 'live' | 'waiting';

/**
 * The gateway's ONE upstream stream connection for its key, carrying the union of every browser's
 * pools. A change of the union re-subscribes (debounced; the key allows one connection, so the old
 * one is closed first). A drop, a refusal or 90 s of silence reconnects with exponential backoff and
 * jitter, forever, and the listener hears `onDown` then `onLive(afterFailure = true)`.
 */
export class UpstreamStream {
  private wanted = new Set<string>();
  private active = new Set<string>();
  private state: State = 'idle';
  private abort: AbortController | undefined;
  private debounce: ReturnType<typeof setTimeout> | undefined;
  private retry: ReturnType<typeof setTimeout> | undefined;
  private silence: ReturnType<typeof setTimeout> | undefined;
  private attempt = 0;
  private failed = false;
  private generation = 0;
  private closed = false;

  constructor(
    private readonly options: UpstreamStreamOptions,
    private readonly listener: UpstreamListener,
  ) {}

  /** Whether a subscription is live, and which pools it covers. */
  get livePools(): ReadonlySet<string> | undefined {
    return this.state === 'live' ? this.active : undefined;
  }

  get isDown(): boolean {
    return this.failed && this.state !== 'live';
  }

  /** Sets the union of pools to carry; the connection follows after the debounce. */
  setPools(pools: Iterable<string>): void {
    const next = new Set(pools);
    if (sameSet(next, this.wanted)) return;
    this.wanted = next;
    if (this.debounce !== undefined) clearTimeout(this.debounce);
    this.debounce = setTimeout(() => {
      this.debounce = undefined;
      this.apply();
    }, this.options.debounceMs);
  }

  private apply(): void {
    if (this.closed) return;
    if (this.state === 'waiting') return; // the pending retry will use the new set
    if (this.wanted.size === 0) {
      this.disconnect();
      this.state = 'idle';
      this.failed = false;
      this.active = new Set();
      return;
    }
    if ((this.state === 'live' || this.state === 'connecting') && sameSet(this.wanted, this.active)) return;
    this.connect();
  }

  private disconnect(): void {
    this.generation++;
    this.abort?.abort();
    this.abort = undefined;
    if (this.silence !== undefined) clearTimeout(this.silence);
    this.silence = undefined;
  }

  private connect(): void {
    this.disconnect();
    const generation = this.generation;
    const pools = new Set(this.wanted);
    this.active = pools;
    this.state = 'connecting';
    const abort = new AbortController();
    this.abort = abort;
    void this.run(generation, pools, abort.signal).catch((error: unknown) => {
      if (generation !== this.generation) return;
      this.fail(error instanceof Error ? error.message : String(error));
    });
  }

  private async run(generation: number, pools: Set<string>, signal: AbortSignal): Promise<void> {
    this.armSilence(generation);
    const response = await this.options.upstream.fetch('/api/v1/tokens/stream', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream' },
      body: JSON.stringify([...pools].sort()),
      signal,
    });
    if (generation !== this.generation) {
      await response.body?.cancel().catch(() => {});
      return;
    }
    if (!response.ok || !response.body) {
      const text = await response.text().catch(() => '');
      throw new Error(`upstream answered ${response.status}: ${text.trim().slice(0, 200)}`);
    }
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    signal.addEventListener('abort', () => void reader.cancel().catch(() => {}), { once: true });
    let buffer = '';
    let announced = false;
    for (;;) {
      const { done, value } = await reader.read();
      if (generation !== this.generation) return;
      if (done) throw new Error('upstream closed the stream');
      buffer += value;
      let newline = buffer.indexOf('\n');
      while (newline !== -1) {
        const line = buffer.slice(0, newline).trim();
        buffer = buffer.slice(newline + 1);
        newline = buffer.indexOf('\n');
        if (line === '') continue;
        this.armSilence(generation);
        const parsed = streamLineSchema.safeParse(safeJson(line));
        if (!parsed.success) {
          this.options.log?.(`gateway: ignoring an unparseable upstream line: ${line.slice(0, 120)}`);
          continue;
        }
        const message = parsed.data;
        if ('errmsg' in message) throw new Error(`upstream refused: ${message.errmsg}`);
        if (!announced) {
          // The first line (a ping or an event) shows the subscription was accepted.
          announced = true;
          this.state = 'live';
          this.attempt = 0;
          const afterFailure = this.failed;
          this.failed = false;
          this.listener.onLive(pools, afterFailure);
          if (!sameSet(this.wanted, pools)) this.apply();
        }
        if ('pool_id' in message) this.listener.onEvent(message);
      }
    }
  }

  private armSilence(generation: number): void {
    if (this.silence !== undefined) clearTimeout(this.silence);
    this.silence = setTimeout(() => {
      if (generation === this.generation) this.fail(`no data from upstream for ${this.options.silenceMs / 1000} s`);
    }, this.options.silenceMs);
  }

  private fail(reason: string): void {
    if (this.closed) return;
    this.disconnect();
    const wasDown = this.failed;
    this.failed = true;
    this.state = 'waiting';
    if (!wasDown) this.listener.onDown(reason);
    const random = this.options.random ?? Math.random;
    const base = Math.min(this.options.backoffMaxMs, this.options.backoffInitialMs * 2 ** this.attempt);
    const delay = Math.round(base * (0.5 + random() * 0.5));
    this.attempt++;
    this.options.log?.(`gateway: upstream stream down (${reason}); retry ${this.attempt} in ${delay} ms`);
    if (reason.includes(STREAM_ERRORS.invalidAuth)) this.options.log?.('gateway: the upstream rejects the gateway key: check UPSTREAM_API_KEY');
    this.retry = setTimeout(() => {
      this.retry = undefined;
      this.state = 'idle';
      if (this.wanted.size === 0) return;
      this.connect();
    }, delay);
  }

  close(): void {
    this.closed = true;
    if (this.debounce !== undefined) clearTimeout(this.debounce);
    if (this.retry !== undefined) clearTimeout(this.retry);
    this.disconnect();
    this.state = 'idle';
  }
}

function sameSet(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  if (a.size !== b.size) return false;
  for (const x of a) if (!b.has(x)) return false;
  return true;
}

function safeJson(line: string): unknown {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}
