import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { symbolInfoResponseSchema } from '../../src/shared/api/symbol-info';
import { tokenLogoSchema } from '../../src/shared/api/tokens';
import { startServerProcess, type ServerProcess } from '../support/server-process';

/**
 * Programs that follow the spec, run for real against a server process with their default headers:
 * each gets the spec's JSON string from the service and from the gateway (browsers get the PNG:
 * e2e/18-official-client.spec.ts). curl and Python requests come from Debian (`.ci/run` installs them).
 */
const run = promisify(execFile);
const KEY = 'logo-clients-key-0001';
let server: ServerProcess;
let unit: string;
let expected: string;

beforeAll(async () => {
  server = await startServerProcess({
    args: ['--pools', '60', '--days', '0.2'],
    env: { TOKEN_API_KEYS: `${KEY}:pro` },
  });
  const info = symbolInfoResponseSchema.parse(
    await (
      await fetch(`${server.origin}/api/v1/symbol_info?group=Aggregate`, {
        headers: { Authorization: `Bearer ${KEY}` },
      })
    ).json(),
  );
  // A token of the market with a logo (most have one: decisions "Logos").
  for (const candidate of new Set(info.currency.concat(info['base-currency']).filter((u) => /^[0-9a-f]{56}/.test(u)))) {
    const logo = tokenLogoSchema.parse(
      await (
        await fetch(`${server.origin}/api/v1/tokens/logo/${candidate}`, { headers: { Authorization: `Bearer ${KEY}` } })
      ).json(),
    );
    if (logo !== null) {
      unit = candidate;
      expected = logo;
      break;
    }
  }
  if (!expected) throw new Error('no token with a logo');
}, 60_000);
afterAll(async () => server?.stop());

/** What a program got: status, content type, Vary and body. */
interface Got {
  readonly status: number;
  readonly type: string;
  readonly vary: string;
  readonly body: string;
}

const PYTHON = `
import sys, requests
r = requests.get(sys.argv[1], headers={"Authorization": "Bearer " + sys.argv[2]} if sys.argv[2] else {})
sys.stdout.write("%d\\n%s\\n%s\\n%s" % (r.status_code, r.headers.get("content-type", ""), r.headers.get("vary", ""), r.text))
`;

const clients: Record<string, (url: string, key: string | undefined) => Promise<Got>> = {
  'Node’s fetch': async (url, key) => {
    const response = await fetch(url, key ? { headers: { Authorization: `Bearer ${key}` } } : {});
    return {
      status: response.status,
      type: response.headers.get('content-type') ?? '',
      vary: response.headers.get('vary') ?? '',
      body: await response.text(),
    };
  },
  curl: async (url, key) => {
    const { stdout } = await run('curl', [
      '-s',
      '-w',
      '\n%{http_code}\n%{content_type}\n%header{vary}',
      ...(key ? ['-H', `Authorization: Bearer ${key}`] : []),
      url,
    ]).catch((error: unknown) => {
      throw new Error(`curl failed (is it installed? .ci/run installs it): ${String(error)}`);
    });
    const lines = stdout.split('\n');
    const vary = lines.pop() ?? '';
    const type = lines.pop() ?? '';
    const status = Number(lines.pop());
    return { status, type, vary, body: lines.join('\n') };
  },
  'Python requests': async (url, key) => {
    const { stdout } = await run('python3', ['-c', PYTHON, url, key ?? '']).catch((error: unknown) => {
      throw new Error(
        `python3 with requests failed (is python3-requests installed? .ci/run installs it): ${String(error)}`,
      );
    });
    const [status = '', type = '', vary = '', ...body] = stdout.split('\n');
    return { status: Number(status), type, vary, body: body.join('\n') };
  },
};

describe('programs with their default headers get the spec’s JSON logo', () => {
  for (const [name, get] of Object.entries(clients)) {
    it(`${name}, from the service and through the gateway`, async () => {
      const fromService = await get(`${server.origin}/api/v1/tokens/logo/${unit}`, KEY);
      expect(fromService.status).toBe(200);
      expect(fromService.type).toMatch(/^application\/json/);
      expect(tokenLogoSchema.parse(JSON.parse(fromService.body))).toBe(expected);
      expect(fromService.vary).toBe('Accept, Sec-Fetch-Dest, Origin');
      const fromGateway = await get(`${server.origin}/gw/v1/tokens/logo/${unit}`, undefined);
      expect(fromGateway.status).toBe(200);
      expect(fromGateway.type).toMatch(/^application\/json/);
      expect(tokenLogoSchema.parse(JSON.parse(fromGateway.body))).toBe(expected);
    });
  }

  it('curl with an explicit image Accept gets the PNG (an explicit Accept wins)', async () => {
    const { stdout } = await run(
      'curl',
      [
        '-s',
        '-H',
        `Authorization: Bearer ${KEY}`,
        '-H',
        'Accept: image/png',
        '-w',
        '\n%{content_type}',
        `${server.origin}/api/v1/tokens/logo/${unit}`,
      ],
      { encoding: 'buffer' },
    );
    const text = stdout.toString('latin1');
    const type = text.slice(text.lastIndexOf('\n') + 1);
    expect(type).toBe('image/png');
    expect(stdout.subarray(0, text.lastIndexOf('\n')).toString('base64')).toBe(expected);
  });
});
