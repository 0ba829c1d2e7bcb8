import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOGO_SIDE, logoPng, type LogoImage } from '../../../src/service/identity/logos/logo-image';
import { startWebServer, type WebServer } from '../../support/web-servers';

const FIXTURES = new URL('../../fixtures/logos/', import.meta.url);
const SAMPLE_DIR = '/work/shared/data/cip26-sample';

const solid = (width: number, height: number, background: string) =>
  sharp({ create: { width, height, channels: 4, background } });

function ok(result: LogoImage): Extract<LogoImage, { ok: true }> {
  if (!result.ok) throw new Error(`expected a PNG, got: ${result.reason}`);
  return result;
}

/** The RGBA pixel at (x, y) of a PNG. */
async function pixel(png: Buffer, x: number, y: number): Promise<number[]> {
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  const at = (y * info.width + x) * 4;
  return [...data.subarray(at, at + 4)];
}

/** Checks the output is what the API serves: a PNG of at most 256×256, 8 bits, sRGB. */
async function expectServedPng(png: Buffer): Promise<void> {
  const metadata = await sharp(png).metadata();
  expect(metadata.format).toBe('png');
  expect(Math.max(metadata.width ?? 0, metadata.height ?? 0)).toBeLessThanOrEqual(LOGO_SIDE);
  expect(metadata.depth).toBe('uchar');
  expect(metadata.space).toBe('srgb');
  expect(png.length).toBeLessThanOrEqual(128 * 1024);
}

describe('logo images: accepted formats', () => {
  it('makes PNG, JPEG, WebP, AVIF and GIF into a PNG at most 256×256 keeping the aspect ratio', async () => {
    const base = solid(1000, 500, '#ff0000');
    const inputs: [string, Buffer][] = [
      ['png', await base.clone().png().toBuffer()],
      ['jpeg', await base.clone().jpeg().toBuffer()],
      ['webp', await base.clone().webp().toBuffer()],
      ['avif', await base.clone().avif().toBuffer()],
      ['gif', await base.clone().gif().toBuffer()],
    ];
    for (const [format, bytes] of inputs) {
      const result = ok(await logoPng(bytes));
      expect([result.format, result.width, result.height], format).toEqual([format, 256, 128]);
      await expectServedPng(result.png);
      const [r, g, b, a] = await pixel(result.png, 10, 10);
      expect(r, format).toBeGreaterThan(240);
      expect(
        [g, b].every((v) => (v ?? 255) < 16),
        format,
      ).toBe(true);
      expect(a).toBe(255);
    }
  });

  it('keeps a small logo at its size, and converts 16-bit and CMYK inputs to 8-bit sRGB', async () => {
    const small = ok(await logoPng(await solid(40, 30, '#00ff00').png().toBuffer()));
    expect([small.width, small.height]).toEqual([40, 30]);
    const deep = await solid(300, 300, '#336699').png().toColourspace('rgb16').toBuffer();
    expect((await sharp(deep).metadata()).depth).toBe('ushort');
    await expectServedPng(ok(await logoPng(deep)).png);
    const cmyk = await solid(64, 64, '#336699').jpeg().toColourspace('cmyk').toBuffer();
    expect((await sharp(cmyk).metadata()).space).toBe('cmyk');
    await expectServedPng(ok(await logoPng(cmyk)).png);
  });

  it('takes the first frame of an animated GIF or WebP', async () => {
    const red = await solid(64, 64, '#ff0000').png().toBuffer();
    const blue = await solid(64, 64, '#0000ff').png().toBuffer();
    for (const format of ['gif', 'webp'] as const) {
      const animated = await sharp([red, blue], { join: { animated: true } })
        .toFormat(format)
        .toBuffer();
      expect((await sharp(animated).metadata()).pages, format).toBe(2);
      const result = ok(await logoPng(animated));
      expect([result.width, result.height]).toEqual([64, 64]);
      const [r, , b] = await pixel(result.png, 5, 5);
      expect(r, format).toBeGreaterThan(200);
      expect(b, format).toBeLessThan(50);
    }
  });

  it('turns an EXIF-rotated JPEG upright', async () => {
    const sideways = await solid(200, 100, '#ff0000').jpeg().withMetadata({ orientation: 6 }).toBuffer();
    const result = ok(await logoPng(sideways));
    expect([result.width, result.height]).toEqual([100, 200]);
  });

  it('bounds the bytes: a noisy image is re-encoded with a palette under the cap', async () => {
    const noise = await sharp({
      create: {
        width: 256,
        height: 256,
        channels: 3,
        background: '#000',
        noise: { type: 'gaussian', mean: 128, sigma: 90 },
      },
    })
      .png({ compressionLevel: 0 })
      .toBuffer();
    const result = ok(await logoPng(noise, { maxPngBytes: 100 * 1024 }));
    expect(result.png.length).toBeLessThanOrEqual(100 * 1024);
    const refused = await logoPng(noise, { maxPngBytes: 1024 });
    expect(refused).toEqual({ ok: false, reason: expect.stringMatching(/with a palette, more than 1024$/) });
  });

  it('renders a real SVG logo (simple-icons, tests/fixtures/logos) at 256 pixels', async () => {
    const result = ok(await logoPng(readFileSync(new URL('cardano.svg', FIXTURES))));
    expect([result.format, result.width, result.height]).toEqual(['svg', 256, 256]);
    await expectServedPng(result.png);
    // The mark's dots are drawn (opaque), the space between them is transparent.
    const { data } = await sharp(result.png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    let opaque = 0;
    for (let i = 3; i < data.length; i += 4) if (data[i] === 255) opaque++;
    expect(opaque / (256 * 256)).toBeGreaterThan(0.1);
    expect(opaque / (256 * 256)).toBeLessThan(0.6);
    expect((await pixel(result.png, 0, 0))[3]).toBe(0);
  });
});

describe.skipIf(!existsSync(SAMPLE_DIR))('logo images: the real CIP-26 registry sample', () => {
  it('makes every real registry logo a served PNG, the JPEG one (VOL) included', async () => {
    const formats: string[] = [];
    for (const file of readdirSync(SAMPLE_DIR).sort()) {
      const mapping = JSON.parse(readFileSync(join(SAMPLE_DIR, file), 'utf8')) as {
        logo?: { value: string };
        ticker?: { value: string };
      };
      if (!mapping.logo) continue;
      const bytes = Buffer.from(mapping.logo.value, 'base64');
      const result = ok(await logoPng(bytes));
      await expectServedPng(result.png);
      const input = await sharp(bytes).metadata();
      // Aspect ratio kept (within a pixel of rounding), never enlarged.
      expect(result.width).toBeLessThanOrEqual(input.width ?? 0);
      expect(Math.abs(result.height - (result.width * (input.height ?? 0)) / (input.width ?? 1))).toBeLessThanOrEqual(
        1,
      );
      formats.push(`${mapping.ticker?.value}:${result.format}`);
    }
    expect(formats.length).toBe(55);
    expect(formats.filter((entry) => entry.endsWith(':jpeg'))).toEqual(['VOL:jpeg']);
  });
});

describe('logo images: what is refused', () => {
  it('sniffs the bytes: a name or a header saying PNG does not make HTML, text or a PDF an image', async () => {
    const cases: [string, Buffer][] = [
      ['html', Buffer.from('<!doctype html><html><body><img src=x></body></html>')],
      ['text', Buffer.from('just some text, not an image')],
      ['pdf', Buffer.from('%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF')],
      ['truncated png', (await solid(50, 50, '#f00').png().toBuffer()).subarray(0, 8)],
      ['empty', Buffer.alloc(0)],
    ];
    for (const [name, bytes] of cases) {
      const result = await logoPng(bytes);
      expect(result.ok, name).toBe(false);
      if (!result.ok)
        expect(result.reason, name).toMatch(/^logo is (not a PNG, JPEG, WebP, GIF, AVIF or SVG image|empty)$/);
    }
  });

  it('refuses formats outside the list even when libvips could read them (TIFF, HEIC), and gzip data', async () => {
    const tiff = await solid(20, 20, '#f00').tiff().toBuffer();
    expect(await logoPng(tiff)).toEqual({ ok: false, reason: 'logo is not a PNG, JPEG, WebP, GIF, AVIF or SVG image' });
    const svgz = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0, 0, 0, 0]);
    expect(await logoPng(svgz)).toEqual({
      ok: false,
      reason: 'logo is gzip-compressed data, not a PNG, JPEG, WebP, GIF, AVIF or SVG image',
    });
  });

  it('refuses a decompression bomb from its header, before decoding (a JPEG declaring 60000×60000)', async () => {
    // A real 16×16 JPEG whose frame header is patched to say 60000×60000.
    const jpeg = Buffer.from(await solid(16, 16, '#f00').jpeg().toBuffer());
    const sof = jpeg.indexOf(Buffer.from([0xff, 0xc0]));
    expect(sof).toBeGreaterThan(0);
    jpeg.writeUInt16BE(60_000, sof + 5);
    jpeg.writeUInt16BE(60_000, sof + 7);
    expect(await logoPng(jpeg)).toEqual({
      ok: false,
      reason: 'logo is 60000×60000 pixels, more than 16777216 pixels',
    });
    // And the limit is the caller's to set.
    const real = await solid(2000, 2000, '#f00').png().toBuffer();
    expect(await logoPng(real, { maxInputPixels: 1_000_000 })).toEqual({
      ok: false,
      reason: 'logo is 2000×2000 pixels, more than 1000000 pixels',
    });
  });
});

describe('logo images: hostile SVG', () => {
  let server: WebServer;
  let dir: string;
  let redPath: string;
  let redBase64: string;

  beforeAll(async () => {
    server = await startWebServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'image/png' });
      response.end();
    });
    dir = mkdtempSync(join(tmpdir(), 'svg-refs-'));
    const red = await solid(20, 20, '#ff0000').png().toBuffer();
    redPath = join(dir, 'red.png');
    writeFileSync(redPath, red);
    writeFileSync(join(dir, 'font.ttf'), 'not a font');
    redBase64 = red.toString('base64');
  });

  afterAll(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const svg = (inner: string, prolog = '') =>
    Buffer.from(
      `${prolog}<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="20" height="20">${inner}</svg>`,
    );

  it('runs no script: the picture is drawn as the markup says', async () => {
    const result = ok(
      await logoPng(
        svg(
          '<script>document.querySelector("rect").setAttribute("fill","blue")</script>' +
            '<rect width="20" height="20" fill="#00ff00" onload="this.setAttribute(\'fill\',\'blue\')"/>',
        ),
      ),
    );
    expect(await pixel(result.png, 128, 128)).toEqual([0, 255, 0, 255]);
  });

  it('loads no external image: http, absolute and relative paths, file URLs, feImage, /dev/zero', async () => {
    const before = server.paths.length;
    const references = [
      `${server.origin}/logo.png`,
      redPath,
      `file://${redPath}`,
      'red.png',
      '/dev/zero',
      '/dev/urandom',
    ];
    for (const href of references) {
      for (const markup of [
        `<image href="${href}" width="20" height="20"/>`,
        `<image xlink:href="${href}" width="20" height="20"/>`,
        `<filter id="f"><feImage href="${href}"/></filter><rect width="20" height="20" filter="url(#f)"/>`,
      ]) {
        const result = await logoPng(svg(markup));
        // Drawn without the image (nothing to draw: transparent), or refused: never the red of the file.
        if (result.ok) expect((await pixel(result.png, 128, 128))[0], `${markup}`).not.toBe(255);
      }
    }
    expect(server.paths.length).toBe(before);
    // A data: image inside the SVG is part of the document and is drawn.
    const inline = ok(await logoPng(svg(`<image href="data:image/png;base64,${redBase64}" width="20" height="20"/>`)));
    expect(await pixel(inline.png, 128, 128)).toEqual([255, 0, 0, 255]);
  });

  it('loads no stylesheet, font or XInclude from outside', async () => {
    const before = server.paths.length;
    const result = ok(
      await logoPng(
        svg(
          `<style>@import url("${server.origin}/style.css"); @font-face { font-family: x; src: url("${server.origin}/f.ttf"), url("file://${dir}/font.ttf"); }</style>` +
            `<xi:include xmlns:xi="http://www.w3.org/2001/XInclude" href="${redPath}" parse="text"/>` +
            '<rect width="20" height="20" fill="#0000ff"/><text x="2" y="15" style="font-family:x">A</text>',
        ),
      ),
    );
    expect((await pixel(result.png, 5, 5)).slice(0, 3)).toEqual([0, 0, 255]);
    expect(server.paths.length).toBe(before);
  });

  it('refuses external entities and entity expansion bombs', async () => {
    const xxe = await logoPng(
      svg(
        '<text x="0" y="10">&x;</text>',
        '<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY x SYSTEM "file:///etc/passwd">]>',
      ),
    );
    expect(xxe.ok).toBe(false);
    const remote = await logoPng(
      svg(
        '<text x="0" y="10">&x;</text>',
        `<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY x SYSTEM "${server.origin}/x">]>`,
      ),
    );
    expect(remote.ok).toBe(false);
    let entities = '<!ENTITY l0 "lollollollollollollollollol">';
    for (let i = 1; i < 10; i++) entities += `<!ENTITY l${i} "${`&l${i - 1};`.repeat(10)}">`;
    const laughs = await logoPng(
      svg('<text x="0" y="10">&l9;</text>', `<?xml version="1.0"?><!DOCTYPE svg [${entities}]>`),
    );
    expect(laughs.ok).toBe(false);
    // An internal entity naming a local file as an image's address: expanded, and still not loaded.
    const named = await logoPng(
      svg(
        '<image href="&p;" width="20" height="20"/>',
        `<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY p "${redPath}">]>`,
      ),
    );
    if (named.ok) expect((await pixel(named.png, 128, 128))[0]).not.toBe(255);
    expect(server.paths.length).toBe(0);
  });

  it('renders an SVG of a huge declared size at 256 pixels, and refuses one too large to scale down', async () => {
    const big = ok(
      await logoPng(
        Buffer.from(
          '<svg xmlns="http://www.w3.org/2000/svg" width="20000" height="10000"><rect width="20000" height="10000" fill="#f00"/></svg>',
        ),
      ),
    );
    expect([big.width, big.height]).toEqual([256, 128]);
    const huge = await logoPng(
      Buffer.from(
        '<svg xmlns="http://www.w3.org/2000/svg" width="1000000" height="1000000"><rect width="10" height="10"/></svg>',
      ),
    );
    expect(huge).toEqual({ ok: false, reason: 'logo (svg) is 1000000×1000000, too large to render at 256 pixels' });
  });
});
