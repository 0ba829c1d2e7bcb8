import type { IPrimitivePaneRenderer, IPrimitivePaneView, ISeriesPrimitive, Time } from 'lightweight-charts';
import { rayEnd, type Point, type Shape } from './geometry';

/** A drawing as the renderer draws it: its shape on screen and its look. */
export interface Painted extends Shape {
  readonly color: string;
  readonly selected: boolean;
  /** Its points' prices as shown (inverted, in USD). */
  readonly prices: readonly number[];
  /** A note's text, or the measure's lines. */
  readonly lines?: readonly string[];
}

type Target = Parameters<IPrimitivePaneRenderer['draw']>[0];

const FONT = '12px system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';
const LINE_HEIGHT = 16;
const PADDING = 4;
const HANDLE_RADIUS = 5;

/** `#rrggbb` at `alpha` (0-1) as `#rrggbbaa`. */
const withAlpha = (color: string, alpha: number) =>
  `${color}${Math.round(alpha * 255)
    .toString(16)
    .padStart(2, '0')}`;

/** The size of a text box of `lines` in `FONT` (measured on the canvas being drawn). */
export function textBox(
  ctx: Pick<CanvasRenderingContext2D, 'measureText' | 'font'>,
  lines: readonly string[],
): { width: number; height: number } {
  ctx.font = FONT;
  const width = Math.max(0, ...lines.map((line) => ctx.measureText(line).width));
  return { width: Math.ceil(width) + 2 * PADDING, height: lines.length * LINE_HEIGHT + 2 * PADDING };
}

class Renderer implements IPrimitivePaneRenderer {
  constructor(private readonly shapes: () => readonly Painted[]) {}

  draw(target: Target): void {
    target.useMediaCoordinateSpace(({ context: ctx, mediaSize }) => {
      for (const shape of this.shapes()) paint(ctx, shape, mediaSize.width, mediaSize.height);
    });
  }
}

function paint(ctx: CanvasRenderingContext2D, shape: Painted, width: number, height: number): void {
  const [a, b] = shape.points;
  if (!a) return;
  ctx.save();
  ctx.strokeStyle = shape.color;
  ctx.fillStyle = shape.color;
  ctx.lineWidth = shape.selected ? 2 : 1.5;
  const line = (from: Point, to: Point) => {
    ctx.beginPath();
    ctx.moveTo(from.x, from.y);
    ctx.lineTo(to.x, to.y);
    ctx.stroke();
  };
  switch (shape.kind) {
    case 'hline':
      line({ x: 0, y: a.y }, { x: width, y: a.y });
      break;
    case 'trend':
      if (b) line(a, b);
      break;
    case 'ray':
      if (b) line(a, rayEnd(a, b, width, height));
      break;
    case 'rect':
    case 'measure':
      if (b) {
        ctx.fillStyle = withAlpha(shape.color, 0.15);
        ctx.fillRect(Math.min(a.x, b.x), Math.min(a.y, b.y), Math.abs(b.x - a.x), Math.abs(b.y - a.y));
        if (shape.kind === 'rect')
          ctx.strokeRect(Math.min(a.x, b.x), Math.min(a.y, b.y), Math.abs(b.x - a.x), Math.abs(b.y - a.y));
        else {
          ctx.setLineDash([4, 3]);
          line(a, b);
          ctx.setLineDash([]);
          label(ctx, shape.lines ?? [], { x: (a.x + b.x) / 2, y: Math.min(a.y, b.y) - 6 }, shape.color, 'above');
        }
      }
      break;
    case 'note':
      label(ctx, shape.lines ?? [], a, shape.color, 'right');
      break;
  }
  if (shape.selected && shape.kind !== 'note') {
    for (const p of shape.points) {
      ctx.beginPath();
      ctx.arc(p.x, p.y, HANDLE_RADIUS, 0, 2 * Math.PI);
      ctx.fillStyle = '#ffffff';
      ctx.fill();
      ctx.strokeStyle = shape.color;
      ctx.stroke();
    }
  }
  ctx.restore();
}

/** A box of text lines in the drawing's colour, white text: at `at`'s right going up (a note), or centred above it (the measure). */
function label(
  ctx: CanvasRenderingContext2D,
  lines: readonly string[],
  at: Point,
  color: string,
  place: 'right' | 'above',
): void {
  if (lines.length === 0) return;
  const box = textBox(ctx, lines);
  const x = place === 'right' ? at.x : at.x - box.width / 2;
  const y = at.y - box.height;
  ctx.fillStyle = color;
  ctx.fillRect(x, y, box.width, box.height);
  ctx.fillStyle = '#ffffff';
  ctx.textBaseline = 'middle';
  ctx.textAlign = 'left';
  lines.forEach((text, i) => ctx.fillText(text, x + PADDING, y + PADDING + LINE_HEIGHT * i + LINE_HEIGHT / 2));
}

/**
 * The drawings as one series primitive of lightweight-charts (its plugin API, as its repository's
 * plugin examples use it: a primitive attached to the candles, with a pane view whose renderer draws
 * on the chart's own canvas, so they move and zoom with it and are in its screenshot). One primitive
 * draws every drawing of the pair: `shapes` says where they are on screen now (computed again for each
 * frame the chart draws, `updateAllViews`).
 */
export class DrawingPrimitive implements ISeriesPrimitive<Time> {
  private painted: readonly Painted[] = [];
  private readonly views: readonly IPrimitivePaneView[];
  private requestUpdate: (() => void) | undefined;

  constructor(private readonly shapes: () => readonly Painted[]) {
    const renderer = new Renderer(() => this.painted);
    this.views = [{ renderer: () => renderer }];
  }

  attached({ requestUpdate }: { requestUpdate: () => void }): void {
    this.requestUpdate = requestUpdate;
  }

  detached(): void {
    this.requestUpdate = undefined;
  }

  /** The chart draws again (the drawings changed). */
  update(): void {
    this.requestUpdate?.();
  }

  updateAllViews(): void {
    this.painted = this.shapes();
  }

  paneViews(): readonly IPrimitivePaneView[] {
    return this.views;
  }

  /** The last shapes drawn (hit tests use what is on screen). */
  get onScreen(): readonly Painted[] {
    return this.painted;
  }
}
