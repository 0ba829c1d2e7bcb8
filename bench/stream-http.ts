/**
 * A minimal incremental HTTP/1.1 response decoder for the stream benchmark's clients: the status line
 * and headers, then the body (chunked, Content-Length or until close). The clients read raw sockets
 * with it so that what runs per received chunk is as little as possible (no http parser, no streams).
 */
export class HttpResponseDecoder {
  /** The response's status code, once the head is in. */
  status: number | undefined;
  readonly headers = new Map<string, string>();
  private head: Buffer = Buffer.alloc(0);
  private state: 'head' | 'size' | 'data' | 'crlf' | 'length' | 'raw' | 'done' = 'head';
  private sizeLine = '';
  private remaining = 0;

  /** Feeds received bytes; returns the body bytes they complete (views of `chunk`). */
  feed(chunk: Buffer): Buffer[] {
    const body: Buffer[] = [];
    let at = 0;
    if (this.state === 'head') {
      const joined = this.head.length === 0 ? chunk : Buffer.concat([this.head, chunk]);
      const end = joined.indexOf('\r\n\r\n');
      if (end === -1) {
        this.head = joined;
        return body;
      }
      this.parseHead(joined.subarray(0, end).toString('latin1'));
      this.head = Buffer.alloc(0);
      chunk = joined;
      at = end + 4;
    }
    while (at < chunk.length) {
      switch (this.state) {
        case 'size': {
          const newline = chunk.indexOf('\n', at);
          if (newline === -1) {
            this.sizeLine += chunk.subarray(at).toString('latin1');
            return body;
          }
          const line = (this.sizeLine + chunk.subarray(at, newline).toString('latin1')).trim();
          this.sizeLine = '';
          at = newline + 1;
          const size = Number.parseInt(line.split(';')[0] ?? '', 16);
          if (!Number.isFinite(size)) throw new Error(`bad chunk size line: ${line.slice(0, 40)}`);
          this.remaining = size;
          this.state = size === 0 ? 'done' : 'data';
          break;
        }
        case 'data':
        case 'length': {
          const n = Math.min(this.remaining, chunk.length - at);
          body.push(chunk.subarray(at, at + n));
          at += n;
          this.remaining -= n;
          if (this.remaining === 0) {
            if (this.state === 'data') {
              this.state = 'crlf';
              this.remaining = 2;
            } else this.state = 'done';
          }
          break;
        }
        case 'crlf': {
          const n = Math.min(this.remaining, chunk.length - at);
          at += n;
          this.remaining -= n;
          if (this.remaining === 0) this.state = 'size';
          break;
        }
        case 'raw':
          body.push(chunk.subarray(at));
          at = chunk.length;
          break;
        default:
          // 'done' (or 'head', impossible here): nothing more belongs to the body.
          return body;
      }
    }
    return body;
  }

  private parseHead(text: string): void {
    const [statusLine = '', ...lines] = text.split('\r\n');
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1]);
    if (!Number.isInteger(status)) throw new Error(`bad status line: ${statusLine.slice(0, 80)}`);
    this.status = status;
    for (const line of lines) {
      const colon = line.indexOf(':');
      if (colon > 0) this.headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
    }
    const length = this.headers.get('content-length');
    if ((this.headers.get('transfer-encoding') ?? '').toLowerCase().includes('chunked')) this.state = 'size';
    else if (length !== undefined) {
      this.remaining = Number(length);
      this.state = this.remaining > 0 ? 'length' : 'done';
    } else this.state = 'raw';
  }
}
