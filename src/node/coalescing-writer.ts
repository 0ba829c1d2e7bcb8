const encoder = new TextEncoder();
const resolved = Promise.resolve();

/**
 * Writes text to a byte stream, coalescing everything written during one synchronous run (one commit's
 * events, one upstream chunk's frames) into a single chunk, enqueued as a microtask: with a thousand
 * connections, one chunk (one read, one socket write) per connection per commit instead of one per
 * event. `room` counts what is not enqueued yet, so a bound on unread bytes holds as if every write had
 * been enqueued at once.
 */
export class CoalescingWriter {
  private pending: string[] = [];
  private pendingBytes = 0;
  private scheduled = false;

  constructor(private readonly controller: ReadableStreamDefaultController<Uint8Array>) {}

  /** Bytes that may still be written before the stream's high-water mark (<= 0: at or past it). */
  get room(): number {
    return (this.controller.desiredSize ?? 0) - this.pendingBytes;
  }

  /** `bytes`: the text's UTF-8 length, when the caller knows it. */
  write(text: string, bytes = Buffer.byteLength(text)): void {
    this.pending.push(text);
    this.pendingBytes += bytes;
    if (!this.scheduled) {
      this.scheduled = true;
      // A bare promise job: queueMicrotask would create an AsyncResource per call.
      void resolved.then(this.flush);
    }
  }

  /** Enqueues what is pending now (call it before closing the stream). */
  readonly flush = (): void => {
    this.scheduled = false;
    if (this.pending.length === 0) return;
    const text = this.pending.length === 1 ? (this.pending[0] ?? '') : this.pending.join('');
    this.discard();
    this.controller.enqueue(encoder.encode(text));
  };

  /** Forgets what is pending (the reader is gone). */
  discard(): void {
    this.pending = [];
    this.pendingBytes = 0;
  }
}
