import { DRAWING_KINDS, MAX_NOTE, TOOLS, type Anchor, type Drawing, type DrawingKind } from './model';
import { drawingsKey } from './storage-key';

/** The entry's shape version: a later shape reads this one or starts afresh. */
const VERSION = 1;
/** Drawings kept per pair at most (the oldest are dropped past it): a pair's entry stays a few kB. */
export const MAX_DRAWINGS = 200;

const isNumber = (value: unknown): value is number => typeof value === 'number' && Number.isFinite(value);
const isKind = (value: unknown): value is DrawingKind =>
  typeof value === 'string' && (DRAWING_KINDS as readonly string[]).includes(value);
const isColor = (value: unknown): value is string => typeof value === 'string' && /^#[0-9a-f]{6}$/i.test(value);

function anchorOf(value: unknown): Anchor | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { time, price } = value as Record<string, unknown>;
  return isNumber(time) && isNumber(price) && price > 0 ? { time, price } : undefined;
}

/** One stored drawing, or undefined when it is not one (edited by hand, a later version's). */
export function drawingOf(value: unknown): Drawing | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { id, kind, points, color, text } = value as Record<string, unknown>;
  if (typeof id !== 'string' || id === '' || !isKind(kind) || !isColor(color) || !Array.isArray(points))
    return undefined;
  const anchors = points.map(anchorOf);
  if (anchors.length !== TOOLS[kind].points || anchors.some((a) => a === undefined)) return undefined;
  const drawing: Drawing = { id, kind, points: anchors as Anchor[], color };
  return kind === 'note' ? { ...drawing, text: typeof text === 'string' ? text.slice(0, MAX_NOTE) : '' } : drawing;
}

/** The entry's drawings: what is not a drawing is left out, a broken entry reads as none. */
export function parseDrawings(text: string | null): Drawing[] {
  if (text === null) return [];
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return [];
  }
  if (typeof value !== 'object' || value === null || (value as { v?: unknown }).v !== VERSION) return [];
  const list = (value as { drawings?: unknown }).drawings;
  if (!Array.isArray(list)) return [];
  const seen = new Set<string>();
  const drawings: Drawing[] = [];
  for (const item of list) {
    const drawing = drawingOf(item);
    if (drawing && !seen.has(drawing.id)) {
      seen.add(drawing.id);
      drawings.push(drawing);
    }
  }
  return drawings.slice(-MAX_DRAWINGS);
}

/** A pair's drawings in the browser's storage (none where it cannot be read). */
export function loadDrawings(storage: Storage | undefined, group: string, symbol: string): Drawing[] {
  try {
    return parseDrawings(storage?.getItem(drawingsKey(group, symbol)) ?? null);
  } catch {
    return [];
  }
}

/**
 * Keeps a pair's drawings (the entry is removed when there are none, so the page does not load the
 * drawings' code for it). False when storage refused (full, or disabled): the drawings stay on screen.
 */
export function saveDrawings(
  storage: Storage | undefined,
  group: string,
  symbol: string,
  drawings: readonly Drawing[],
): boolean {
  if (!storage) return false;
  const key = drawingsKey(group, symbol);
  try {
    if (drawings.length === 0) storage.removeItem(key);
    else storage.setItem(key, JSON.stringify({ v: VERSION, drawings: drawings.slice(-MAX_DRAWINGS) }));
    return true;
  } catch {
    return false;
  }
}
