import type { Readable } from 'node:stream';

type WebStreamFrom = { from(source: AsyncIterable<Uint8Array>): ReadableStream<Uint8Array> };

/**
 * A Node readable as a web stream, pulled through its async iterator (Node's `ReadableStream.from`):
 * cancelling the web stream ends and destroys the source. (`Readable.toWeb` in Node 20 throws from the
 * source's 'data' events once the web stream has been cancelled.)
 */
export function webStreamOf(source: Readable | NodeJS.ReadableStream): ReadableStream<Uint8Array> {
  return (ReadableStream as unknown as WebStreamFrom).from(source as AsyncIterable<Uint8Array>);
}
