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
});
