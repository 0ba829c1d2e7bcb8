import sharp, { type Metadata, type Sharp } from 'sharp';

/**
 * Any logo image made into the PNG the API serves: at most 256×256, aspect ratio kept, sRGB, 8 bits,
 * no metadata, bounded in bytes. The format is sniffed from the bytes by libvips (never taken from a
 * file name or a Content-Type) and only PNG, JPEG, WebP, GIF (first frame), AVIF and SVG are read.
 *
 * SVG is rendered by librsvg (inside sharp's libvips): given bytes without a base URL it loads no
 * external resource at all (no http, no file paths, no XInclude, no external entities), runs no script,
 * and stops entity expansion bombs and documents of more than its element limits. resvg (@resvg/resvg-js)
 * was tried and left: it reads local files named by `<image href>` (absolute or relative to the working
 * directory) and hangs on `/dev/zero`, with no option to stop it.
 */

/** The longest side of a logo. */
export const LOGO_SIDE = 256;
/** Input images with more pixels than this are refused before decoding (a decompression bomb). */
export const DEFAULT_MAX_INPUT_PIXELS = 4096 * 4096;
/** A logo PNG larger than this is re-encoded with a palette; if still larger, refused. */
export const DEFAULT_MAX_PNG_BYTES = 128 * 1024;
/** Processing of one image stops after this (libvips' own timeout). */
const PROCESS_SECONDS = 10;

export interface LogoImageOptions {
  readonly maxInputPixels?: number;
  readonly maxPngBytes?: number;
}

export type LogoImage =
  | {
      readonly ok: true;
      readonly png: Buffer;
      readonly width: number;
      readonly height: number;
      /** What the input was: png, jpeg, webp, gif, avif or svg. */
      readonly format: string;
    }
  | { readonly ok: false; readonly reason: string };

// Only the loaders of the accepted formats, from memory, may run: libvips refuses every other input.
sharp.block({ operation: ['VipsForeignLoad'] });
sharp.unblock({
  operation: [
    'VipsForeignLoadPngBuffer',
    'VipsForeignLoadJpegBuffer',
    'VipsForeignLoadWebpBuffer',
    'VipsForeignLoadNsgifBuffer',
    'VipsForeignLoadHeifBuffer',
    'VipsForeignLoadSvgBuffer',
  ],
});
// Logos are read once each: nothing to gain from libvips' operation cache, and hostile inputs stay out of it.
sharp.cache(false);

const ACCEPTED = 'PNG, JPEG, WebP, GIF, AVIF or SVG';
const refuse = (reason: string): LogoImage => ({ ok: false, reason });

/** The accepted format of sniffed metadata, or null. AVIF is HEIF with AV1 (HEIC is not accepted). */
function acceptedFormat(metadata: Metadata): string | null {
  switch (metadata.format) {
    case 'png':
    case 'jpeg':
    case 'webp':
    case 'gif':
    case 'svg':
      return metadata.format;
    case 'heif':
      return metadata.compression === 'av1' ? 'avif' : null;
    default:
      return null;
  }
}

async function encode(pipeline: Sharp, maxPngBytes: number): Promise<LogoImage | Buffer> {
  const full = await pipeline
    .clone()
    .png({ compressionLevel: 9, adaptiveFiltering: true })
    .toBuffer({ resolveWithObject: true });
  if (full.data.length <= maxPngBytes) return full.data;
  const quantised = await pipeline.clone().png({ compressionLevel: 9, palette: true }).toBuffer();
  if (quantised.length <= maxPngBytes) return quantised;
  return refuse(`logo PNG is still ${quantised.length} bytes with a palette, more than ${maxPngBytes}`);
}

/**
 * The logo as a PNG, or why it cannot be one. Never throws: a refused, corrupt or hostile input is a
 * reason.
 */
export async function logoPng(bytes: Uint8Array, options: LogoImageOptions = {}): Promise<LogoImage> {
  const maxInputPixels = options.maxInputPixels ?? DEFAULT_MAX_INPUT_PIXELS;
  const maxPngBytes = options.maxPngBytes ?? DEFAULT_MAX_PNG_BYTES;
  if (bytes.length === 0) return refuse('logo is empty');
  // gzip (an .svgz, or anything compressed) is refused before any decoder could inflate it.
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) return refuse(`logo is gzip-compressed data, not a ${ACCEPTED} image`);
  const input = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let metadata: Metadata;
  try {
    // Headers only: sizes are judged below, before any pixel is decoded.
    metadata = await sharp(input, { limitInputPixels: false }).metadata();
  } catch {
    return refuse(`logo is not a ${ACCEPTED} image`);
  }
  const format = acceptedFormat(metadata);
  if (format === null) return refuse(`logo is ${metadata.format} data, not a ${ACCEPTED} image`);
  const { width, height } = metadata;
  if (!width || !height) return refuse(`logo (${format}) has no size`);
  let pipeline: Sharp;
  if (format === 'svg') {
    // Rendered at the size it is shown (librsvg reports the size at 72 dpi): never at a hostile intrinsic size.
    const density = Math.min(100_000, Math.max(1, (72 * LOGO_SIDE) / Math.max(width, height)));
    const scale = density / 72;
    if (width * scale * height * scale > maxInputPixels)
      return refuse(`logo (svg) is ${width}×${height}, too large to render at ${LOGO_SIDE} pixels`);
    pipeline = sharp(input, { density, limitInputPixels: maxInputPixels, failOn: 'error' });
  } else {
    if (width * height > maxInputPixels)
      return refuse(`logo is ${width}×${height} pixels, more than ${maxInputPixels} pixels`);
    pipeline = sharp(input, { limitInputPixels: maxInputPixels, failOn: 'error', autoOrient: true, pages: 1 });
  }
  pipeline = pipeline
    .resize(LOGO_SIDE, LOGO_SIDE, { fit: 'inside', withoutEnlargement: format !== 'svg' })
    .toColourspace('srgb')
    .timeout({ seconds: PROCESS_SECONDS });
  try {
    const encoded = await encode(pipeline, maxPngBytes);
    if (!Buffer.isBuffer(encoded)) return encoded;
    const out = await sharp(encoded).metadata();
    return { ok: true, png: encoded, width: out.width ?? 0, height: out.height ?? 0, format };
  } catch (error) {
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    return refuse(`logo (${format}) could not be read: ${message}`);
  }
}
