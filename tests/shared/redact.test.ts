import { describe, expect, it } from 'vitest';
import { REDACTED, redactError, redactText, redactUrl, textRedactor } from '../../src/shared/redact';

/** A key in each part of an address that can carry one, as hosted endpoints put it there. */
const KEYED = {
  host: 'wss://dmtrHOSTKEY1234.cardano-mainnet-v6.ogmios-m1.demeter.run',
  path: 'ws://127.0.0.1:1/dmtrPATHKEY5678',
  query: 'wss://ogmios.example.com/v6?dmtr-api-key=QUERYKEY9012',
  user: 'redis://:USERINFOKEY3456@10.0.0.7:6380/2',
  postgres: 'postgres://dbuserSECRET:dbpassSECRET@db.internal:5433/dbnameSECRET',
  upstream: 'https://api.example.com/tenantSECRET',
} as const;
const SECRETS = [
  'HOSTKEY1234',
  'hostkey1234',
  'PATHKEY5678',
  'QUERYKEY9012',
  'USERINFOKEY3456',
  'dbuserSECRET',
  'dbpassSECRET',
  'dbnameSECRET',
  'tenantSECRET',
];

function expectNoSecret(text: string): void {
  for (const secret of SECRETS) expect(text).not.toContain(secret);
}

describe('redactUrl', () => {
  it('keeps the scheme and an explicit port, and nothing of host, path, query or user info', () => {
    expect(redactUrl(KEYED.host)).toBe(`wss://${REDACTED}`);
    expect(redactUrl(KEYED.path)).toBe(`ws://${REDACTED}:1`);
    expect(redactUrl(KEYED.query)).toBe(`wss://${REDACTED}`);
    expect(redactUrl(KEYED.user)).toBe(`redis://${REDACTED}:6380`);
    expect(redactUrl(KEYED.postgres)).toBe(`postgres://${REDACTED}:5433`);
    expect(redactUrl(KEYED.upstream)).toBe(`https://${REDACTED}`);
    for (const address of Object.values(KEYED)) expectNoSecret(redactUrl(address));
  });

  it('shows what is not a URL as the placeholder alone, with its scheme only when it is one of ours', () => {
    expect(redactUrl('ws://[not a host/KEYSECRET')).toBe(`ws://${REDACTED}`);
    expect(redactUrl('KEYSECRET:whatever')).toBe(REDACTED);
    expect(redactUrl('dmtrKEYSECRET')).toBe(REDACTED);
    expect(redactUrl('')).toBe(REDACTED);
  });
});

describe('redactText', () => {
  const all = Object.values(KEYED);

  it('turns a whole address in a text into its shown form', () => {
    expect(redactText(`connecting to ${KEYED.path} now`, all)).toBe(`connecting to ws://${REDACTED}:1 now`);
    expect(redactText(`lost ${KEYED.query}.`, all)).toBe(`lost wss://${REDACTED}.`);
  });

  // The texts the client libraries give, as they gave them on this machine for such addresses.
  it.each([
    [
      'the Ogmios client, refused',
      'request to http://127.0.0.1:1/dmtrPATHKEY5678/health failed, reason: connect ECONNREFUSED 127.0.0.1:1',
    ],
    [
      'the Ogmios client, garbage',
      'invalid json response body at http://127.0.0.1:1/dmtrPATHKEY5678/health reason: Unexpected token',
    ],
    [
      'the Ogmios client, unknown host',
      'request to https://dmtrhostkey1234.cardano-mainnet-v6.ogmios-m1.demeter.run/health failed, reason: getaddrinfo ENOTFOUND dmtrhostkey1234.cardano-mainnet-v6.ogmios-m1.demeter.run',
    ],
    [
      'a WebSocket URL with its query',
      'Unexpected server response: 403 at wss://ogmios.example.com/v6?dmtr-api-key=QUERYKEY9012',
    ],
    ['a query value alone', 'key QUERYKEY9012 refused'],
    ['PostgreSQL, a database', 'database "dbnameSECRET" does not exist'],
    ['PostgreSQL, a role', 'password authentication failed for user "dbuserSECRET"'],
    ['Redis, its password', 'WRONGPASS invalid username-password pair or user is disabled (USERINFOKEY3456)'],
    ['a host in capitals', 'getaddrinfo ENOTFOUND DMTRHOSTKEY1234.CARDANO-MAINNET-V6.OGMIOS-M1.DEMETER.RUN'],
    ['an upstream path', 'GET https://api.example.com/tenantSECRET/api/v1/groups failed'],
  ])('removes every part from %s', (_what, text) => {
    const shown = redactText(text, all);
    expectNoSecret(shown);
    expect(shown).toContain(REDACTED);
  });

  it('keeps the shape of the text: what failed, and where, but for the parts', () => {
    expect(
      redactText(
        'request to http://127.0.0.1:1/dmtrPATHKEY5678/health failed, reason: connect ECONNREFUSED 127.0.0.1:1',
        all,
      ),
    ).toBe(`request to http://${REDACTED}:1/${REDACTED}/health failed, reason: connect ECONNREFUSED ${REDACTED}:1`);
  });

  it('removes percent-encoded and decoded forms alike', () => {
    const address = 'wss://host.example/p?key=a%2Bb%20SECRETKEY';
    expect(redactText('key=a%2Bb%20SECRETKEY', [address])).not.toContain('SECRETKEY');
    expect(redactText('key a+b SECRETKEY', [address])).not.toContain('SECRETKEY');
  });

  it('leaves short parts and the rest of the text alone', () => {
    const text = 'Ogmios did not answer a ping within 30 s (api v1)';
    expect(redactText(text, ['ws://127.0.0.1:1337/api/v1'])).toBe(text);
  });

  it('leaves a redacted text as it is (a text redacted twice, customary names such as the user postgres)', () => {
    const local = 'postgres://postgres:postgres@localhost:5432/postgres';
    for (const address of [...all, local]) {
      expect(redactText(redactUrl(address), [address])).toBe(redactUrl(address));
      const once = redactText(`failed: ${address} (host ${new URL(address).hostname})`, [address]);
      expect(redactText(once, [address])).toBe(once);
    }
    expect(redactText(`error: ${local} is in use`, [local])).toBe(`error: postgres://${REDACTED}:5432 is in use`);
  });

  it('skips undefined and empty addresses, and changes nothing without any', () => {
    expect(redactText('plain text', [undefined, '', '  '])).toBe('plain text');
    expect(textRedactor([])('plain text')).toBe('plain text');
  });

  it('removes the parts of an address that is not a URL (a mistyped setting)', () => {
    expect(redactText('got "wss//KEYSECRET1@host"', ['wss//KEYSECRET1@host'])).not.toContain('KEYSECRET1');
  });
});

describe('redactError', () => {
  it('redacts an error message, a string and any other value', () => {
    expectNoSecret(redactError(new Error(`connect to ${KEYED.postgres} failed`), [KEYED.postgres]));
    expectNoSecret(redactError('dbpassSECRET', [KEYED.postgres]));
    expectNoSecret(redactError({ error: { message: `at ${KEYED.path}` } }, [KEYED.path]));
    expect(redactError(new TypeError(''), [])).toBe('TypeError');
  });
});
