import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import {
  createLogger,
  logHookOf,
  parseLogSettings,
  requestIdOf,
  type LogFormat,
  type LoggerLevel,
} from '../../src/node/log';
import { BlockShapeError, fromOgmiosBlock } from '../../src/service/chain/ogmios-block';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** A logger writing into an array of lines. */
function capture(level: LoggerLevel, format: LogFormat): { lines: string[]; logger: ReturnType<typeof createLogger> } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(...chunk.toString().split('\n').filter(Boolean));
      done();
    },
  });
  return { lines, logger: createLogger({ level, format, destination, colorize: false }) };
}

describe('request ids', () => {
  it("takes a safe X-Request-Id as it is: a UUID, a proxy's hex id, a trace token", () => {
    for (const id of [
      '0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9',
      '5d41402abc4b2a76b9719d911017c592',
      'Root=1-67891233-abcdef012345678912345678',
      'svc.a:b/c+d_e-1',
    ]) {
      expect(requestIdOf(id)).toBe(id);
    }
  });

  it('makes a new UUID for a missing, empty, too long or unsafe one (spaces, quotes, line breaks, markup)', () => {
    for (const id of [
      undefined,
      '',
      'a'.repeat(129),
      'two words',
      'say "hi"',
      'line\nbreak',
      '<script>',
      'tab\there',
      'ünicode',
    ]) {
      const made = requestIdOf(id);
      expect(made).toMatch(UUID);
      expect(made).not.toBe(id);
    }
    expect(requestIdOf('a'.repeat(128))).toBe('a'.repeat(128));
  });
});

describe('log settings', () => {
  it('defaults to info, pretty on a terminal and JSON elsewhere', () => {
    expect(parseLogSettings({}, true)).toEqual({ level: 'info', format: 'pretty' });
    expect(parseLogSettings({}, false)).toEqual({ level: 'info', format: 'json' });
    expect(parseLogSettings({ LOG_LEVEL: 'WARN', LOG_FORMAT: 'Pretty' }, false)).toEqual({
      level: 'warn',
      format: 'pretty',
    });
    expect(parseLogSettings({ LOG_LEVEL: '', LOG_FORMAT: '' }, false)).toEqual({ level: 'info', format: 'json' });
  });

  it('names the variable of a bad value', () => {
    expect(() => parseLogSettings({ LOG_LEVEL: 'verbose' }, false)).toThrow(
      'LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent (got "verbose")',
    );
    expect(() => parseLogSettings({ LOG_FORMAT: 'text' }, false)).toThrow(
      'LOG_FORMAT must be json or pretty (got "text")',
    );
  });
});

describe('the logger', () => {
  it("writes one JSON object a line, with the level, time, message and fields, at the hook's level", () => {
    const { lines, logger } = capture('debug', 'json');
    const log = logHookOf(logger);
    log('plain notice');
    log('a chain rollback', { level: 'warn', slot: 120_000_020, block: 'ab'.repeat(32), blocks: 2 });
    log('probe', { level: 'debug', route: '/readyz' });
    log('a failure', { level: 'error' });
    const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(parsed.map((p) => [p.level, p.msg])).toEqual([
      [30, 'plain notice'],
      [40, 'a chain rollback'],
      [20, 'probe'],
      [50, 'a failure'],
    ]);
    expect(parsed[1]).toMatchObject({ slot: 120_000_020, block: 'ab'.repeat(32), blocks: 2, pid: process.pid });
    expect(typeof parsed[0]?.time).toBe('number');
    // The level is the line's level, not a field of it.
    expect(parsed[1]).not.toHaveProperty('fields');
  });

  it('drops what is below LOG_LEVEL', () => {
    const { lines, logger } = capture('warn', 'json');
    const log = logHookOf(logger);
    log('info line');
    log('debug line', { level: 'debug' });
    log('warn line', { level: 'warn' });
    expect(lines.map((line) => (JSON.parse(line) as { msg: string }).msg)).toEqual(['warn line']);
  });

  it('reads well when pretty: the level and message on one line, a request line without its repeated fields', () => {
    const { lines, logger } = capture('info', 'pretty');
    const log = logHookOf(logger);
    log('GET /api/v1/groups 200 1.2ms', {
      reqId: 'req-1',
      method: 'GET',
      route: '/api/v1/groups',
      url: '/api/v1/groups',
      status: 200,
      durationMs: 1.2,
    });
    log('chain: rolled back 1 block(s) to slot 5', { level: 'warn', slot: 5 });
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO: GET \/api\/v1\/groups 200 1\.2ms$/);
    expect(lines[1]).toMatch(
      /^\[\d\d:\d\d:\d\d\.\d{3}\] WARN: chain: rolled back 1 block\(s\) to slot 5 \{"slot":5\}$/,
    );
  });

  /** A message and a field of hostile text: a line break and a forged line, ESC, CR, U+2028, a bidi override. */
  const FORGED = 'skipped\n{"level":60,"msg":"FORGED fatal line"}';
  const HOSTILE = `${FORGED} \u001b[31mred\u001b[0m \rback \u2028sep \u202eevil`;

  for (const format of ['json', 'pretty'] as const) {
    it(`escapes every text from outside in the ${format} format: one line per call, no forged line, no control or bidi character`, () => {
      const { lines, logger } = capture('info', format);
      const log = logHookOf(logger);
      log(HOSTILE, { level: 'warn', path: HOSTILE });
      logger.error(HOSTILE);
      expect(lines).toHaveLength(2);
      for (const line of lines) {
        expect(line).not.toMatch(/^\{"level":60/);
        // eslint-disable-next-line no-control-regex -- what must not be there
        expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e]/);
        expect(line).toContain('FORGED fatal line');
      }
      if (format === 'json') {
        const parsed = JSON.parse(lines[0] ?? '') as { msg: string; path: string; level: number };
        expect(parsed.level).toBe(40);
        // The escapes are in the text itself: a reader sees `\n`, not a break.
        expect(parsed.msg).toBe(parsed.path);
        expect(parsed.msg).toContain('skipped\\n{"level":60');
        expect(parsed.msg).toContain('\\u001b[31m');
        expect(parsed.msg).toContain('\\u202eevil');
      } else {
        expect(lines[0]).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] WARN: skipped\\n\{"level":60/);
      }
    });
  }

  it('logs an Ogmios block whose object keys forge a fatal line as one escaped line (the "skipped" message)', () => {
    const block = {
      id: 'ab'.repeat(32),
      slot: 5,
      height: 1,
      transactions: [
        {
          id: 'cd'.repeat(32),
          outputs: [
            { address: 'addr1', value: { ada: { lovelace: 1 }, [`x\n{"level":60,"msg":"FORGED fatal line"}`]: 7 } },
          ],
        },
      ],
    };
    let reason = '';
    try {
      fromOgmiosBlock(block);
    } catch (error) {
      if (!(error instanceof BlockShapeError)) throw error;
      reason = error.message;
    }
    // The key is shown quoted and escaped in the message itself, before any logger.
    expect(reason).toBe(
      'transactions.0.outputs.0.value.["x\\n{\\"level\\":60,\\"msg\\":\\"FORGED fatal line\\"}"]: not an object',
    );
    for (const format of ['json', 'pretty'] as const) {
      const { lines, logger } = capture('info', format);
      logHookOf(logger)(`chain: block 1 at slot 5 (${'ab'.repeat(32)}) skipped: ${reason}`, { level: 'warn' });
      expect(lines).toHaveLength(1);
    }
  });
});
