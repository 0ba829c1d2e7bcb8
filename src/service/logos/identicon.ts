import { createHash } from 'node:crypto';
import { PNG } from 'pngjs';

/**
 * Generated token logos: a 64x64 PNG identicon derived from the token unit (a symmetric 5x5 pattern on
 * a round badge), distinct per token and the same on every run.
 */

const SIZE = 64;
const GRID = 5;
const CELL = 9;
const OFFSET = (SIZE - GRID * CELL) / 2;

function hslToRgb(h: number, s: number, l: number): [number, number, number] {
  const k = (n: number) => (n + h / 30) % 12;
  const a = s * Math.min(l, 1 - l);
  const f = (n: number) => l - a * Math.max(-1, Math.min(k(n) - 3, Math.min(9 - k(n), 1)));
  return [Math.round(f(0) * 255), Math.round(f(8) * 255), Math.round(f(4) * 255)];
}

export function identiconPng(unit: string): Buffer {
  const digest = createHash('sha256').update(`logo:${unit}`).digest();
  const hue = ((digest[0] ?? 0) * 256 + (digest[1] ?? 0)) % 360;
  const badge = hslToRgb(hue, 0.55, 0.22);
  const ink = hslToRgb((hue + 150 + ((digest[2] ?? 0) % 60)) % 360, 0.75, 0.62);
  const cells: boolean[] = [];
  for (let row = 0; row < GRID; row++) {
    for (let col = 0; col < GRID; col++) {
      const mirrored = col < 3 ? col : GRID - 1 - col;
      const byte = digest[3 + row * 3 + mirrored] ?? 0;
      cells.push(byte % 2 === 0);
    }
  }
  const png = new PNG({ width: SIZE, height: SIZE });
  const centre = (SIZE - 1) / 2;
  for (let y = 0; y < SIZE; y++) {
    for (let x = 0; x < SIZE; x++) {
      const i = (y * SIZE + x) * 4;
      const inside = Math.hypot(x - centre, y - centre) <= SIZE / 2 - 0.5;
      const col = Math.floor((x - OFFSET) / CELL);
      const row = Math.floor((y - OFFSET) / CELL);
      const on = col >= 0 && col < GRID && row >= 0 && row < GRID && cells[row * GRID + col] === true;
      const [r, g, b] = on ? ink : badge;
      png.data[i] = r;
      png.data[i + 1] = g;
      png.data[i + 2] = b;
      png.data[i + 3] = inside ? 255 : 0;
    }
  }
  return PNG.sync.write(png);
}

/** PNG signature check: the first eight bytes of every PNG file. */
export function isPng(bytes: Uint8Array): boolean {
  const signature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  return bytes.length > 8 && signature.every((b, i) => bytes[i] === b);
}
