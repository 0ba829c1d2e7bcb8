import { describe, expect, it } from 'vitest';
import { CoalescingWriter } from '../../src/node/coalescing-writer';

/** A byte stream with a high-water mark, its writer, and a way to read what was enqueued, chunk by chunk. */
function setup(highWaterMark: number) {
  let writer: CoalescingWriter | undefined;
  let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  const stream = new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c;
        writer = new CoalescingWriter(c);
      },
    },
    new ByteLengthQueuingStrategy({ highWaterMark }),
  );
  if (!writer || !controller) throw new Error('not started');
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  /** Closes the stream and reads every chunk it holds. */
  const chunks = async () => {
    controller?.close();
    const out: string[] = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return out;
      out.push(decoder.decode(value));
    }
  };
  return { writer, controller, chunks };
}

describe('CoalescingWriter', () => {
  it('enqueues everything written in one synchronous run as one chunk, in order', async () => {
    const { writer, chunks } = setup(1024);
    writer.write('a\n');
    writer.write('b\n');
    writer.write('c\n');
    await Promise.resolve();
    writer.write('d\n');
    await Promise.resolve();
    expect(await chunks()).toEqual(['a\nb\nc\n', 'd\n']);
  });

  it('counts written bytes not yet enqueued against the high-water mark', async () => {
    const { writer, controller } = setup(10);
    writer.write('12345');
    expect(writer.room).toBe(5);
    writer.write('é'); // two bytes in UTF-8
    expect(writer.room).toBe(3);
    await Promise.resolve();
    expect(controller.desiredSize).toBe(3);
    expect(writer.room).toBe(3);
  });

  it('flushes at once on demand, and forgets pending text on discard', async () => {
    const { writer, chunks } = setup(1024);
    writer.write('kept\n');
    writer.flush();
    writer.write('dropped\n');
    writer.discard();
    expect(writer.room).toBe(1024 - 'kept\n'.length);
    await Promise.resolve();
    expect(await chunks()).toEqual(['kept\n']);
  });
});
