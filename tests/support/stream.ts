import {
  extendedStreamLineSchema as streamLineSchema,
  type ExtendedStreamLine as StreamLine,
} from '../../src/shared/api/stream';
import { streamInit, STREAM_PATH } from './builders';
import { streamLineUndescribed } from './openapi';
import type { TestService } from './service';

/**
 * Reads a stream response in-process, line by line: every line is one bare JSON object + '\n'
 * (decisions "Stream"): one of the spec's three kinds, or our rollback line for a stream that asked. Reads are never lost: a read that outlives a timeout is kept for the next call.
 */
export interface StreamReader {
  readonly response: Response;
  /** The next raw line (without '\n'); undefined once the body has ended. Rejects after `timeoutMs`. */
  nextLine(timeoutMs?: number): Promise<string | undefined>;
  /** The next line parsed and checked against the stream's line schema. */
  next(timeoutMs?: number): Promise<StreamLine>;
  /** Every line until the body ends (for refused connections, which close after their error event). */
  readToEnd(timeoutMs?: number): Promise<string[]>;
  /** Lines already complete in the buffer, without waiting (parsed). */
  drainBuffered(): StreamLine[];
  /** Whether the body has ended. */
  readonly ended: boolean;
  /** Cancels the body: the service should free the key's stream slot at once. */
  cancel(): Promise<void>;
}

export function readStream(response: Response): StreamReader {
  const body = response.body;
  if (!body) throw new Error('the response has no body');
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let ended = false;
  let inFlight: Promise<ReadableStreamReadResult<Uint8Array>> | undefined;

  const takeLine = (): string | undefined => {
    const newline = buffer.indexOf('\n');
    if (newline === -1) return undefined;
    const line = buffer.slice(0, newline);
    buffer = buffer.slice(newline + 1);
    return line;
  };

  const readChunk = async (timeoutMs: number): Promise<void> => {
    inFlight ??= reader.read();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    const result = await Promise.race([inFlight, timeout]);
    clearTimeout(timer);
    if (result === 'timeout') throw new Error(`no stream data within ${timeoutMs} ms`);
    inFlight = undefined;
    if (result.done) {
      ended = true;
      buffer += decoder.decode();
    } else {
      buffer += decoder.decode(result.value, { stream: true });
    }
  };

  const nextLine = async (timeoutMs = 2000): Promise<string | undefined> => {
    for (;;) {
      const line = takeLine();
      if (line !== undefined) return line;
      if (ended) {
        if (buffer.length === 0) return undefined;
        throw new Error(`the stream ended inside a line: ${JSON.stringify(buffer)}`);
      }
      await readChunk(timeoutMs);
    }
  };

  const parse = (line: string): StreamLine => {
    // Every line read must be one the OpenAPI document describes, besides the wire contract's schema.
    const problem = streamLineUndescribed(line);
    if (problem !== undefined) throw new Error(`Not described by /openapi.json: ${problem}`);
    return streamLineSchema.parse(JSON.parse(line));
  };

  return {
    response,
    nextLine,
    next: async (timeoutMs) => {
      const line = await nextLine(timeoutMs);
      if (line === undefined) throw new Error('the stream ended');
      return parse(line);
    },
    readToEnd: async (timeoutMs) => {
      const lines: string[] = [];
      for (;;) {
        const line = await nextLine(timeoutMs);
        if (line === undefined) return lines;
        lines.push(line);
      }
    },
    drainBuffered: () => {
      const lines: StreamLine[] = [];
      for (let line = takeLine(); line !== undefined; line = takeLine()) lines.push(parse(line));
      return lines;
    },
    get ended() {
      return ended;
    },
    cancel: async () => {
      ended = true;
      await reader.cancel();
    },
  };
}

/** Opens POST /tokens/stream with a JSON body (or a raw string body) and a key (default: the service's). */
export async function openStream(
  service: TestService,
  body: unknown,
  options: { readonly key?: string | null; readonly headers?: Readonly<Record<string, string>> } = {},
): Promise<StreamReader> {
  const response = await service.request(STREAM_PATH, {
    ...streamInit(body, options.headers),
    ...(options.key !== undefined ? { key: options.key } : {}),
  });
  return readStream(response);
}
