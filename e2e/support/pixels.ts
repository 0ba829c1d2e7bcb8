import { PNG } from 'pngjs';

/**
 * Share of pixels that differ between two PNG screenshots of the same size (a channel off by more
 * than `tolerance`). 1 when the sizes differ.
 */
export function pixelDifference(a: Buffer, b: Buffer, tolerance = 24): number {
  const x = PNG.sync.read(a);
  const y = PNG.sync.read(b);
  if (x.width !== y.width || x.height !== y.height) return 1;
  let differing = 0;
  const pixels = x.width * x.height;
  for (let i = 0; i < pixels * 4; i += 4) {
    if (
      Math.abs((x.data[i] ?? 0) - (y.data[i] ?? 0)) > tolerance ||
      Math.abs((x.data[i + 1] ?? 0) - (y.data[i + 1] ?? 0)) > tolerance ||
      Math.abs((x.data[i + 2] ?? 0) - (y.data[i + 2] ?? 0)) > tolerance
    ) {
      differing++;
    }
  }
  return differing / pixels;
}

/** Mean colour of a PNG (r, g, b): tells a dark chart from a light one. */
export function meanLuminance(png: Buffer): number {
  const image = PNG.sync.read(png);
  let sum = 0;
  const pixels = image.width * image.height;
  for (let i = 0; i < pixels * 4; i += 4)
    sum += 0.2126 * (image.data[i] ?? 0) + 0.7152 * (image.data[i + 1] ?? 0) + 0.0722 * (image.data[i + 2] ?? 0);
  return sum / pixels;
}
