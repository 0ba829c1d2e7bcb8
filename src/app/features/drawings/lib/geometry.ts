import type { DrawingKind } from './model';

/**
 * Times and the chart's logical indexes (bar i of the bars shown is at logical i). A drawing's time is
 * any second, not only a bar's: between two bars it lies in proportion between their indexes, before
 * the first and after the last one `step` seconds (the resolution) per index. So a drawing made at one
 * resolution stays at its moment at another, in Local time as in UTC (the indexes do not care how the
 * times are labelled), and where bars are missing (no trade in a bucket) too.
 */
export function logicalOfTime(times: ArrayLike<number>, time: number, step: number): number | undefined {
  const n = times.length;
  if (n === 0) return undefined;
  const first = times[0] as number;
  const last = times[n - 1] as number;
  if (time <= first) return (time - first) / step;
  if (time >= last) return n - 1 + (time - last) / step;
  let lo = 0;
  let hi = n - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if ((times[mid] as number) <= time) lo = mid;
    else hi = mid;
  }
  const a = times[lo] as number;
  const b = times[hi] as number;
  return lo + (time - a) / (b - a);
}

/** The time at a logical index: `logicalOfTime`'s inverse. */
export function timeOfLogical(times: ArrayLike<number>, logical: number, step: number): number | undefined {
  const n = times.length;
  if (n === 0) return undefined;
  const first = times[0] as number;
  const last = times[n - 1] as number;
  if (logical <= 0) return first + logical * step;
  if (logical >= n - 1) return last + (logical - (n - 1)) * step;
  const i = Math.floor(logical);
  const a = times[i] as number;
  const b = times[i + 1] as number;
  return a + (logical - i) * (b - a);
}

export interface Point {
  readonly x: number;
  readonly y: number;
}

/** A drawing on screen: its points in the price pane's CSS pixels. */
export interface Shape {
  readonly id: string;
  readonly kind: DrawingKind;
  readonly points: readonly Point[];
  /** A note's size in pixels (measured by the renderer's font), its box from its point to the right and up. */
  readonly box?: { readonly width: number; readonly height: number };
}

function distanceToSegment(p: Point, a: Point, b: Point, ray: boolean): number {
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  const length2 = dx * dx + dy * dy;
  let t = length2 === 0 ? 0 : ((p.x - a.x) * dx + (p.y - a.y) * dy) / length2;
  t = ray ? Math.max(0, t) : Math.min(1, Math.max(0, t));
  return Math.hypot(p.x - (a.x + t * dx), p.y - (a.y + t * dy));
}

/** Where a ray from `a` through `b` leaves a pane `width` x `height` (b itself when they coincide). */
export function rayEnd(a: Point, b: Point, width: number, height: number): Point {
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  if (dx === 0 && dy === 0) return b;
  const limits = [
    dx > 0 ? (width - a.x) / dx : dx < 0 ? -a.x / dx : Infinity,
    dy > 0 ? (height - a.y) / dy : dy < 0 ? -a.y / dy : Infinity,
  ];
  const t = Math.max(1, Math.min(...limits));
  return { x: a.x + t * dx, y: a.y + t * dy };
}

/** What a press at `p` takes hold of: one of the drawing's points, or the drawing itself. */
export type Hit = { readonly id: string; readonly handle: number | 'body' };

/**
 * The drawing under `p` (the topmost: the last drawn), within `tolerance` pixels: its points first
 * (a press on a point moves that end), then its line or area.
 */
export function hitTest(shapes: readonly Shape[], p: Point, tolerance: number): Hit | undefined {
  for (let s = shapes.length - 1; s >= 0; s--) {
    const shape = shapes[s] as Shape;
    const handle =
      shape.kind === 'note' ? -1 : shape.points.findIndex((q) => Math.hypot(q.x - p.x, q.y - p.y) <= tolerance);
    if (handle >= 0) return { id: shape.id, handle };
  }
  for (let s = shapes.length - 1; s >= 0; s--) {
    const shape = shapes[s] as Shape;
    if (onBody(shape, p, tolerance)) return { id: shape.id, handle: 'body' };
  }
  return undefined;
}

function onBody(shape: Shape, p: Point, tolerance: number): boolean {
  const [a, b] = shape.points;
  if (!a) return false;
  switch (shape.kind) {
    case 'hline':
      return Math.abs(p.y - a.y) <= tolerance;
    case 'note': {
      const box = shape.box ?? { width: 40, height: 18 };
      return (
        p.x >= a.x - tolerance / 2 &&
        p.x <= a.x + box.width + tolerance / 2 &&
        p.y <= a.y + tolerance / 2 &&
        p.y >= a.y - box.height - tolerance / 2
      );
    }
    case 'trend':
    case 'ray':
      return b !== undefined && distanceToSegment(p, a, b, shape.kind === 'ray') <= tolerance;
    case 'rect':
    case 'measure': {
      if (!b) return false;
      const inX = p.x >= Math.min(a.x, b.x) - tolerance && p.x <= Math.max(a.x, b.x) + tolerance;
      const inY = p.y >= Math.min(a.y, b.y) - tolerance && p.y <= Math.max(a.y, b.y) + tolerance;
      return inX && inY;
    }
  }
}
