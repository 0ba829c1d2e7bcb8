import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogoLoader, type LogoOutcome } from '../../../src/service/identity/logos/logo-loader';
import { selfSignedCertificate, startWebServer, type TestCertificate, type WebServer } from '../../support/web-servers';

const CID = 'QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG';
const AR_ID = 'bNbA3TEQVL60xlgCcqdz4ZPHFZ711cZ3hmkpGttDt_U';
const SAMPLE_DIR = '/work/shared/data/cip26-sample';
const VOL_FILE = '8d94085182fb206c28850f194defe748e455a104d5ff7466d90f537c566f6c756d65.json';

let png: Buffer;
let gateway: WebServer;
let site: WebServer;
let cert: TestCertificate;

function ok(outcome: LogoOutcome): Extract<LogoOutcome, { ok: true }> {
  if (!outcome.ok) throw new Error(`expected a logo, got: ${outcome.reason}`);
  return outcome;
}

beforeAll(async () => {
  png = await sharp({ create: { width: 512, height: 512, channels: 4, background: '#2040ff' } })
    .png()
    .toBuffer();
  cert = selfSignedCertificate(['logos.test']);
  // An IPFS/Arweave gateway as a local node runs one: plain http on 127.0.0.1 (reached as a trusted origin).
  gateway = await startWebServer((request, response) => {
    const path = request.url ?? '';
    if (path.startsWith(`/ipfs/${CID}`) || path.startsWith(`/${AR_ID}`)) {
      response.writeHead(200, { 'content-type': 'application/octet-stream' }).end(png);
    } else response.writeHead(404).end('not found');
  });
  site = await startWebServer(
    (request, response) => {
      switch (request.url) {
        case '/logo.txt':
          // A PNG said to be text: the bytes decide.
          response.writeHead(200, { 'content-type': 'text/html' }).end(png);
          return;
        case '/lying.png':
          response.writeHead(200, { 'content-type': 'image/png' }).end('<html><body>not an image</body></html>');
          return;
        case '/busy':
          response.writeHead(503, { 'retry-after': '120' }).end();
          return;
        case '/to-gateway':
          response.writeHead(302, { location: `${gateway.origin}/ipfs/${CID}` }).end();
          return;
        default:
          response.writeHead(404).end();
      }
    },
    { tls: cert },
  );
});

afterAll(async () => {
  await Promise.all([gateway.close(), site.close()]);
});

/** A loader whose fetcher reaches the test's https site (logos.test → 127.0.0.1, allowed, its CA trusted). */
const loaderFor = (gateways = { ipfs: `${gateway.origin}/`, arweave: gateway.origin }) =>
  createLogoLoader({
    gateways,
    fetch: {
      allowCidrs: ['127.0.0.1/32'],
      ca: cert.cert,
      resolve: (name) => Promise.resolve(name === 'logos.test' ? ['127.0.0.1'] : []),
      timeoutMs: 5_000,
    },
  });
const siteUrl = (path: string) => `https://logos.test:${site.port}${path}`;

describe('logo loader', () => {
  it('fetches ipfs:// and ar:// logos through the operator gateways and makes them 256×256 PNGs', async () => {
    const loader = loaderFor();
    try {
      for (const logo of [
        `ipfs://${CID}`,
        `ipfs://ipfs/${CID}`,
        CID,
        new TextEncoder().encode(`ipfs://${CID}`),
        `ar://${AR_ID}`,
      ]) {
        const outcome = ok(await loader.load(logo));
        const metadata = await sharp(outcome.png).metadata();
        expect([metadata.format, metadata.width, metadata.height]).toEqual(['png', 256, 256]);
      }
      expect(gateway.paths).toContain(`/ipfs/${CID}`);
      expect(gateway.paths).toContain(`/${AR_ID}`);
    } finally {
      await loader.close();
    }
  });

  it('fetches https logos, judging the bytes and not the Content-Type', async () => {
    const loader = loaderFor();
    try {
      expect(ok(await loader.load(siteUrl('/logo.txt'))).from).toBe(siteUrl('/logo.txt'));
      expect(await loader.load(siteUrl('/lying.png'))).toEqual({
        ok: false,
        reason: `logo is not a PNG, JPEG, WebP, GIF, AVIF or SVG image (from ${siteUrl('/lying.png')})`,
        retryable: false,
      });
    } finally {
      await loader.close();
    }
  });

  it('says which failures are worth retrying: 5xx with Retry-After yes; 404, refusals, missing gateway no', async () => {
    const loader = loaderFor();
    const bare = createLogoLoader({ fetch: { timeoutMs: 5_000 } });
    try {
      expect(await loader.load(siteUrl('/busy'))).toEqual({
        ok: false,
        reason: `HTTP 503 from ${siteUrl('/busy')}`,
        retryable: true,
        retryAfterMs: 120_000,
      });
      expect(await loader.load(siteUrl('/missing'))).toEqual({
        ok: false,
        reason: `HTTP 404 from ${siteUrl('/missing')}`,
        retryable: false,
      });
      // Without the allow-list the test site is a loopback address like any other.
      expect(await bare.load(`https://127.0.0.1:${site.port}/logo.txt`)).toEqual({
        ok: false,
        reason: 'refused: 127.0.0.1 is a loopback address',
        retryable: false,
      });
      expect(await bare.load(`ipfs://${CID}`)).toEqual({
        ok: false,
        reason: 'ipfs logo not fetched: no IPFS gateway configured (--ipfs-gateway)',
        retryable: false,
      });
      // The gateway is trusted as an origin, not as an address: a redirect to it from elsewhere is refused (http).
      expect(await loader.load(siteUrl('/to-gateway'))).toEqual({
        ok: false,
        reason: `refused: ${siteUrl('/to-gateway')} redirects from https: to http:`,
        retryable: false,
      });
    } finally {
      await Promise.all([loader.close(), bare.close()]);
    }
  });

  it('reads inline logos (data: URIs, bytes) without any request', async () => {
    const loader = createLogoLoader();
    try {
      const fromData = ok(await loader.load(`data:image/png;base64,${png.toString('base64')}`));
      expect(fromData.from).toBe('inline');
      const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"><circle cx="5" cy="5" r="5"/></svg>';
      expect(
        (await sharp(ok(await loader.load(`data:image/svg+xml,${encodeURIComponent(svg)}`)).png).metadata()).width,
      ).toBe(256);
      expect(ok(await loader.load(png)).from).toBe('inline');
      expect(await loader.load(Buffer.from('GIF87a but not really'))).toEqual({
        ok: false,
        reason: 'logo is not a PNG, JPEG, WebP, GIF, AVIF or SVG image',
        retryable: false,
      });
    } finally {
      await loader.close();
    }
  });

  it.skipIf(!existsSync(join(SAMPLE_DIR, VOL_FILE)))(
    'converts the real JPEG registry logo of VOL, given inline',
    async () => {
      const mapping = JSON.parse(readFileSync(join(SAMPLE_DIR, VOL_FILE), 'utf8')) as { logo: { value: string } };
      const loader = createLogoLoader();
      try {
        const jpeg = Buffer.from(mapping.logo.value, 'base64');
        expect(jpeg.subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));
        const outcome = ok(await loader.load(jpeg));
        expect((await sharp(outcome.png).metadata()).format).toBe('png');
      } finally {
        await loader.close();
      }
    },
  );
});
