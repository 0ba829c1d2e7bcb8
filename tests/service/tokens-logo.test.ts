import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tokenErrorSchema } from '../../src/shared/api/errors';
import { tokenLogoSchema } from '../../src/shared/api/tokens';
import { LOGO_STORED } from '../../src/service/market/model';
import { fakeHex, logoPath, UNKNOWN_TOKEN } from '../support/builders';
import { ensureDefined } from '../support/ensure';
import { tokensWithLogo, tokenWithoutLogo } from '../support/market';
import { createTestService, type TestService } from '../support/service';
import { runtimeInternals } from '../../src/service/runtime-internals';

let service: TestService;
beforeAll(async () => {
  service = await createTestService();
});
afterAll(async () => service.close());

async function logo(token: string): Promise<string | null> {
  const response = await service.request(logoPath(token));
  expect(response.status).toBe(200);
  expect(response.headers.get('Content-Type')).toMatch(/^application\/json/);
  return tokenLogoSchema.parse(await response.json());
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

describe('GET /tokens/logo/{token}', () => {
  it('answers a base64 string that decodes to a PNG image', async () => {
    const [token] = tokensWithLogo(service.runtime, 1);
    const encoded = ensureDefined(await logo(ensureDefined(token).unit));
    expect(encoded).toMatch(/^[A-Za-z0-9+/]+={0,2}$/);
    const bytes = Buffer.from(encoded, 'base64');
    expect([...bytes.subarray(0, 8)]).toEqual(PNG_SIGNATURE);
    const image = PNG.sync.read(bytes);
    expect(image.width).toBeGreaterThan(0);
    expect(image.height).toBeGreaterThan(0);
  });

  it('gives two tokens different logos, and one token the same logo each time', async () => {
    const [a, b] = tokensWithLogo(service.runtime, 2).map((t) => t.unit);
    const first = await logo(ensureDefined(a));
    expect(await logo(ensureDefined(b))).not.toBe(first);
    expect(await logo(ensureDefined(a))).toBe(first);
  });

  it('serves a stored logo as soon as it is committed, though the generated one was served before', async () => {
    const [token] = tokensWithLogo(service.runtime, 3).slice(2);
    const stored = ensureDefined(token);
    const generated = await logo(stored.unit);
    const png = new PNG({ width: 2, height: 2 });
    png.data.fill(200);
    const bytes = PNG.sync.write(png);
    runtimeInternals(service.runtime).ingestor.setLogo(stored, LOGO_STORED, bytes);
    await runtimeInternals(service.runtime).ingestor.commit();
    expect(await logo(stored.unit)).toBe(bytes.toString('base64'));
    expect(generated).not.toBe(bytes.toString('base64'));
  });

  it('answers 200 null for a token that exists but has no logo', async () => {
    const response = await service.request(logoPath(tokenWithoutLogo(service.runtime).unit));
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('null');
  });

  it('accepts the token in upper case', async () => {
    const [token] = tokensWithLogo(service.runtime, 1);
    const unit = ensureDefined(token).unit;
    expect(await logo(unit.toUpperCase())).toBe(await logo(unit));
  });

  it('answers 404 for an unknown token', async () => {
    const response = await service.request(logoPath(UNKNOWN_TOKEN));
    expect(response.status).toBe(404);
    const body = tokenErrorSchema.parse(await response.json());
    expect(body.detail[0]?.loc).toEqual(['path', 'token']);
  });

  it.each([
    ['too short', fakeHex(27)],
    ['odd length', `${fakeHex(28)}a`],
    ['not hex', `${fakeHex(28)}zz`],
    ['too long', fakeHex(61)],
    ['a ticker', 'SNEK'],
  ])('answers 422 for a malformed token (%s)', async (_case, token) => {
    const response = await service.request(logoPath(token));
    expect(response.status).toBe(422);
    const body = tokenErrorSchema.parse(await response.json());
    expect(body.detail[0]).toMatchObject({ loc: ['path', 'token'], type: 'value_error' });
  });
});

/** What GeroWallet's client of the real service sends when it fetches a logo as a blob. */
const IMAGE_ACCEPT = 'image/png, image/jpeg, image/gif, image/webp, */*';

/** What Chromium sends with a page's plain `fetch(url, { headers: { Authorization } })` to another origin. */
const BROWSER_FETCH = {
  Accept: '*/*',
  'Sec-Fetch-Dest': 'empty',
  'Sec-Fetch-Mode': 'cors',
  'Sec-Fetch-Site': 'same-site',
  Origin: 'http://127.0.0.1:5173',
};

/** What Chromium sends for an `<img>`. */
const BROWSER_IMG = {
  Accept: 'image/avif,image/webp,image/apng,image/svg+xml,image/*,*/*;q=0.8',
  'Sec-Fetch-Dest': 'image',
  'Sec-Fetch-Mode': 'no-cors',
};

/** What Node's fetch sends by default (undici sets Sec-Fetch-Mode itself, never Sec-Fetch-Dest). */
const NODE_FETCH = { Accept: '*/*', 'Accept-Language': '*', 'Sec-Fetch-Mode': 'cors', 'User-Agent': 'node' };

const LOGO_VARY = 'Accept, Sec-Fetch-Dest, Origin';

async function expectImage(unit: string, headers: Record<string, string>): Promise<Response> {
  const response = await service.request(logoPath(unit), { headers });
  expect(response.status, JSON.stringify(headers)).toBe(200);
  expect(response.headers.get('Content-Type'), JSON.stringify(headers)).toBe('image/png');
  expect(response.headers.get('Vary')).toBe(LOGO_VARY);
  const bytes = Buffer.from(await response.arrayBuffer());
  expect([...bytes.subarray(0, 8)]).toEqual(PNG_SIGNATURE);
  expect(bytes.toString('base64')).toBe(await logo(unit));
  return response;
}

async function expectJson(unit: string, headers: Record<string, string>): Promise<void> {
  const response = await service.request(logoPath(unit), { headers });
  expect(response.status, JSON.stringify(headers)).toBe(200);
  expect(response.headers.get('Content-Type'), JSON.stringify(headers)).toMatch(/^application\/json/);
  expect(response.headers.get('Vary')).toBe(LOGO_VARY);
  expect(tokenLogoSchema.parse(await response.json())).toBe(await logo(unit));
}

describe('GET /tokens/logo/{token}: the PNG for browsers, the spec’s JSON for programs', () => {
  it('answers a browser’s plain fetch and <img> with the PNG bytes, image/png, an ETag and cache headers, equal to the JSON’s base64', async () => {
    const unit = ensureDefined(tokensWithLogo(service.runtime, 1)[0]).unit;
    const response = await expectImage(unit, BROWSER_FETCH);
    expect(response.headers.get('Cache-Control')).toBe('private, max-age=300');
    await expectImage(unit, BROWSER_IMG);
    const etag = ensureDefined(response.headers.get('ETag'));
    const again = await service.request(logoPath(unit), { headers: { ...BROWSER_FETCH, 'If-None-Match': etag } });
    expect(again.status).toBe(304);
  });

  it('tells a browser by Sec-Fetch-Dest (a same-origin fetch has no Origin) or by Origin (plain http to another host has no Fetch Metadata)', async () => {
    const unit = ensureDefined(tokensWithLogo(service.runtime, 1)[0]).unit;
    await expectImage(unit, { Accept: '*/*', 'Sec-Fetch-Dest': 'empty', 'Sec-Fetch-Mode': 'same-origin' });
    await expectImage(unit, { Accept: '*/*', Origin: 'http://192.168.1.20:5173' });
    await expectImage(unit, { 'Sec-Fetch-Dest': 'empty' });
  });

  it('keeps the spec’s JSON for programs: no Accept, */* (curl, Python requests), Node’s fetch with its Sec-Fetch-Mode', async () => {
    const unit = ensureDefined(tokensWithLogo(service.runtime, 1)[0]).unit;
    for (const headers of [{}, { Accept: '*/*' }, { Accept: '*/*;q=0.8' }, NODE_FETCH] as Record<string, string>[])
      await expectJson(unit, headers);
  });

  it('lets an explicit Accept win, for browsers and programs alike (quality first, then order)', async () => {
    const unit = ensureDefined(tokensWithLogo(service.runtime, 1)[0]).unit;
    for (const accept of [
      'application/json',
      'application/json, image/png',
      'image/png;q=0, application/json',
      'text/html',
      'image/png;q=0.5, application/json',
      'application/*, image/png',
    ]) {
      await expectJson(unit, { ...BROWSER_FETCH, Accept: accept });
    }
    for (const accept of [
      IMAGE_ACCEPT,
      'image/*',
      'image/png',
      'application/json;q=0.5, image/png',
      'image/png, application/json',
    ]) {
      await expectImage(unit, { ...NODE_FETCH, Accept: accept });
    }
  });

  it('answers an image request for a token without a logo with a 404 in the token family’s body, and an unknown token likewise', async () => {
    for (const headers of [BROWSER_FETCH, { Accept: IMAGE_ACCEPT }]) {
      const none = await service.request(logoPath(tokenWithoutLogo(service.runtime).unit), { headers });
      expect(none.status).toBe(404);
      expect(none.headers.get('Vary')).toBe(LOGO_VARY);
      expect(tokenErrorSchema.parse(await none.json()).detail[0]?.msg).toBe('Token has no logo');
      const unknown = await service.request(logoPath(UNKNOWN_TOKEN), { headers });
      expect(unknown.status).toBe(404);
      expect(tokenErrorSchema.parse(await unknown.json()).detail[0]?.msg).toBe('Token not found');
    }
    // A program still gets the spec's null.
    const program = await service.request(logoPath(tokenWithoutLogo(service.runtime).unit), { headers: NODE_FETCH });
    expect(await program.text()).toBe('null');
  });
});
