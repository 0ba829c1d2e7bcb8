import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_GATEWAY_CONFIG } from '../../src/gateway/config';
import { createGateway, type Gateway } from '../../src/gateway/gateway';
import { embeddedUpstream } from '../../src/gateway/upstream';
import { parseServiceConfig } from '../../src/service/config';
import { createServiceRuntime } from '../../src/service/runtime';
import type { ServiceRuntime } from '../../src/service/service-runtime';
import { tokenErrorSchema } from '../../src/shared/api/errors';
import { tokenLogoSchema } from '../../src/shared/api/tokens';
import { ensureDefined } from '../support/ensure';
import { tokensWithLogo, tokenWithoutLogo } from '../support/market';

/**
 * /gw/v1/tokens/logo/<token> answers as the service does (src/node/logo-negotiation.ts): the PNG to a
 * browser's plain fetch or `<img>`, the JSON to the app (which asks for it) and to programs; the
 * upstream is asked once, for its JSON, whichever representations the browsers want.
 */
let dir: string;
let runtime: ServiceRuntime;
let gateway: Gateway;
const upstreamCalls: { path: string; accept: string | null }[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'gw-logo-'));
  runtime = await createServiceRuntime(
    parseServiceConfig({ 'data-dir': dir, pools: '200', days: '0.2', seed: '3' }, {}),
  );
  const upstream = embeddedUpstream((request) => {
    upstreamCalls.push({ path: new URL(request.url).pathname, accept: request.headers.get('Accept') });
    return runtime.app.fetch(request);
  }, runtime.internalKey);
  gateway = createGateway({ config: DEFAULT_GATEWAY_CONFIG, upstream });
});

afterAll(async () => {
  gateway.close();
  await runtime.close();
  rmSync(dir, { recursive: true, force: true });
});

const BROWSER_FETCH = {
  Accept: '*/*',
  'Sec-Fetch-Dest': 'empty',
  'Sec-Fetch-Mode': 'same-origin',
  'Accept-Encoding': 'gzip, deflate, br, zstd',
};
const BROWSER_IMG = {
  Accept: 'image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8',
  'Sec-Fetch-Dest': 'image',
  'Sec-Fetch-Mode': 'no-cors',
};
const NODE_FETCH = { Accept: '*/*', 'Sec-Fetch-Mode': 'cors', 'User-Agent': 'node' };
const APP = { Accept: 'application/json', 'Sec-Fetch-Dest': 'empty', 'Sec-Fetch-Mode': 'same-origin' };

const get = (unit: string, headers: Record<string, string>) =>
  gateway.app.request(`/gw/v1/tokens/logo/${unit}`, { headers });

/** The service's own JSON for the token (what the app and programs must get through the gateway). */
async function serviceJson(unit: string): Promise<string | null> {
  const response = await runtime.app.request(`/api/v1/tokens/logo/${unit}`, {
    headers: { Authorization: `Bearer ${runtime.internalKey}` },
  });
  return tokenLogoSchema.parse(await response.json());
}

describe('gateway logos', () => {
  it('answers a browser’s plain fetch and <img> with the PNG, with the service’s own ETag, and 304 to it', async () => {
    const unit = ensureDefined(tokensWithLogo(runtime, 1)[0]).unit;
    const json = ensureDefined(await serviceJson(unit));
    const direct = await runtime.app.request(`/api/v1/tokens/logo/${unit}`, {
      headers: { Authorization: `Bearer ${runtime.internalKey}`, Accept: 'image/png' },
    });
    for (const headers of [BROWSER_FETCH, BROWSER_IMG]) {
      const response = await get(unit, headers);
      expect(response.status).toBe(200);
      expect(response.headers.get('Content-Type')).toBe('image/png');
      expect(response.headers.get('Content-Encoding')).toBeNull();
      expect(response.headers.get('Cache-Control')).toBe('private, max-age=3600');
      expect(response.headers.get('Vary')).toBe('Accept, Sec-Fetch-Dest, Origin');
      expect(response.headers.get('ETag')).toBe(direct.headers.get('ETag'));
      expect(Buffer.from(await response.arrayBuffer()).toString('base64')).toBe(json);
    }
    const etag = ensureDefined(direct.headers.get('ETag'));
    expect((await get(unit, { ...BROWSER_FETCH, 'If-None-Match': etag })).status).toBe(304);
  });

  it('keeps the JSON for the app (Accept: application/json) and for programs, with Vary naming what the choice reads', async () => {
    const unit = ensureDefined(tokensWithLogo(runtime, 2)[1]).unit;
    for (const headers of [APP, NODE_FETCH, {}]) {
      const response = await get(unit, headers);
      expect(response.status).toBe(200);
      expect(response.headers.get('Content-Type')).toMatch(/^application\/json/);
      expect(response.headers.get('Vary')).toBe('Accept, Sec-Fetch-Dest, Origin, Accept-Encoding');
      expect(tokenLogoSchema.parse(await response.json())).toBe(await serviceJson(unit));
    }
  });

  it('asks the upstream once, for its JSON, whichever representations browsers want', async () => {
    const unit = ensureDefined(tokensWithLogo(runtime, 3)[2]).unit;
    upstreamCalls.length = 0;
    await Promise.all([get(unit, BROWSER_FETCH), get(unit, APP), get(unit, BROWSER_IMG), get(unit, NODE_FETCH)]);
    const calls = upstreamCalls.filter((call) => call.path === `/api/v1/tokens/logo/${unit}`);
    expect(calls).toEqual([{ path: `/api/v1/tokens/logo/${unit}`, accept: 'application/json' }]);
  });

  it('answers an image request for a token without a logo with a 404 in the token family’s body; programs get null', async () => {
    const unit = tokenWithoutLogo(runtime).unit;
    const image = await get(unit, BROWSER_FETCH);
    expect(image.status).toBe(404);
    expect(image.headers.get('Vary')).toContain('Sec-Fetch-Dest');
    expect(tokenErrorSchema.parse(await image.json()).detail[0]?.msg).toBe('Token has no logo');
    const program = await get(unit, NODE_FETCH);
    expect(program.status).toBe(200);
    expect(await program.text()).toBe('null');
  });

  it('passes the upstream’s errors through in the token family’s JSON for image requests too', async () => {
    const unknown = await get(`${'ab'.repeat(28)}00`, BROWSER_IMG);
    expect(unknown.status).toBe(404);
    expect(tokenErrorSchema.parse(await unknown.json()).detail[0]?.msg).toBe('Token not found');
    const malformed = await get('SNEK', BROWSER_FETCH);
    expect(malformed.status).toBe(422);
    expect(tokenErrorSchema.parse(await malformed.json()).detail[0]?.loc).toEqual(['path', 'token']);
  });
});
