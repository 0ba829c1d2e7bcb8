import { hitTest, type Hit, type Point } from './geometry';
import { DrawingPrimitive, textBox, type Painted } from './drawing-primitive';
import {
  DEFAULT_COLOR,
  DEFAULT_NOTE,
  MAX_NOTE,
  TOOLS,
  formatPercent,
  formatSpan,
  measure,
  type Anchor,
  type Drawing,
  type DrawingKind,
} from './model';
import { loadDrawings, saveDrawings } from './storage';
import { DRAWING_ADD_MARK, DRAWING_DRAWN_MEASURE } from './marks';
import { Projection, type DrawingHost } from './projection';

export type { DrawingHost } from './projection';

export interface DrawingsState {
  readonly drawings: readonly Drawing[];
  readonly selected: string | undefined;
  /** The tool placing a drawing (undefined: pointing selects and moves). */
  readonly tool: DrawingKind | undefined;
  /** A two-point tool has its first point: the next press places the second. */
  readonly pending: boolean;
  readonly color: string;
  readonly noteText: string;
  /** The browser's storage refused the last change (full, or disabled): the drawings are on screen only. */
  readonly unsaved: boolean;
}

/** Pixels around a line or point that a press still takes: a finger is wider than a mouse pointer. */
const TOLERANCE = { mouse: 6, touch: 14 } as const;
/** The events lightweight-charts handles the pointer with (mouse and touch): held back while a drawing has the pointer. */
const CHART_EVENTS = [
  'mousedown',
  'mousemove',
  'mouseup',
  'touchstart',
  'touchmove',
  'touchend',
  'touchcancel',
] as const;

type Gesture = { readonly hit: Hit; readonly start: Point; readonly original: Drawing; moved: boolean };

let counter = 0;
const newId = () => `${Date.now().toString(36)}-${(counter++).toString(36)}`;

/**
 * The drawings of one pair on one chart, one job: what they are (kept in the browser's storage per
 * pair and group), which is selected, the tool in hand; placing them (a press per point: tap, tap),
 * moving them (drag an end, or the whole) and deleting them (Delete or Backspace, outside text fields)
 * with the pointer (mouse or touch) on the chart; from the keyboard, placing one in the middle of the
 * view (`placeInView`) and moving the selected one with the arrow keys. Drawn by one `DrawingPrimitive` on the candles.
 * React reads it as an external store (`subscribe`, `getState`).
 */
export class DrawingLayer {
  private state: DrawingsState;
  private readonly primitive: DrawingPrimitive;
  private readonly listeners = new Set<() => void>();
  private gesture: Gesture | undefined;
  /** The first point of a two-point drawing being placed, and where the pointer is now (its preview). */
  private placing: { readonly kind: DrawingKind; readonly first: Anchor; hover: Anchor | undefined } | undefined;
  /** A press a drawing took: the chart does not see its mouse or touch events until it ends. */
  private holding = false;
  private readonly projection: Projection;
  private measureCtx: CanvasRenderingContext2D | null | undefined;
  /** Within a press that adds a drawing: its listeners are told after the frame (publishAfterFrame). */
  private publishLater = false;
  /** Listeners to be told after the frame. */
  private publishing = false;

  constructor(
    private readonly host: DrawingHost,
    private readonly storage: Storage | undefined,
    private readonly group: string,
    private readonly symbol: string,
  ) {
    this.state = {
      drawings: loadDrawings(storage, group, symbol),
      selected: undefined,
      tool: undefined,
      pending: false,
      color: DEFAULT_COLOR,
      noteText: DEFAULT_NOTE,
      unsaved: false,
    };
    this.projection = new Projection(host);
    this.primitive = new DrawingPrimitive(() => this.paint());
    host.series.attachPrimitive(this.primitive);
    const el = host.element;
    el.addEventListener('pointerdown', this.onPointerDown, true);
    el.addEventListener('pointermove', this.onPointerMove, true);
    el.addEventListener('pointerup', this.onPointerUp, true);
    el.addEventListener('pointercancel', this.onPointerUp, true);
    for (const type of CHART_EVENTS) el.addEventListener(type, this.holdBack, { capture: true, passive: false });
    // Captured: a selected drawing's arrows come before the chart's own (its keyboard cursor leaves a key taken).
    el.ownerDocument.addEventListener('keydown', this.onKey, true);
  }

  // --- for React (useSyncExternalStore) ---

  readonly subscribe = (listener: () => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  readonly getState = (): DrawingsState => this.state;

  // --- what the toolbar does ---

  /** The tool for the next presses on the chart (the same tool again, or undefined: back to selecting). */
  setTool(tool: DrawingKind | undefined): void {
    this.placing = undefined;
    this.set({
      tool: tool === this.state.tool ? undefined : tool,
      pending: false,
      selected: tool ? undefined : this.state.selected,
    });
  }

  select(id: string | undefined): void {
    this.placing = undefined;
    this.set({ selected: id, tool: undefined, pending: false });
  }

  /** Deletes a drawing (the selected one by default). */
  remove(id = this.state.selected): void {
    if (id === undefined) return;
    this.change(
      this.state.drawings.filter((d) => d.id !== id),
      { selected: this.state.selected === id ? undefined : this.state.selected },
    );
  }

  /** The colour of new drawings, and of the selected one. */
  setColor(color: string): void {
    if (!/^#[0-9a-f]{6}$/i.test(color)) return;
    const selected = this.state.selected;
    if (selected === undefined) this.set({ color });
    else
      this.change(
        this.state.drawings.map((d) => (d.id === selected ? { ...d, color } : d)),
        { color },
      );
  }

  /** The text of new notes, and of the selected note. */
  setNoteText(text: string): void {
    const noteText = text.slice(0, MAX_NOTE);
    const selected = this.state.drawings.find((d) => d.id === this.state.selected && d.kind === 'note');
    if (!selected) this.set({ noteText });
    else
      this.change(
        this.state.drawings.map((d) => (d === selected ? { ...d, text: noteText } : d)),
        { noteText },
      );
  }

  /** Adds a drawing at these anchors (the pointer's way ends here too); returns it. */
  add(kind: DrawingKind, points: readonly Anchor[]): Drawing {
    const drawing: Drawing = {
      id: newId(),
      kind,
      points,
      color: this.state.color,
      ...(kind === 'note' ? { text: this.state.noteText } : {}),
    };
    this.placing = undefined;
    this.change([...this.state.drawings, drawing], { selected: drawing.id, tool: undefined, pending: false });
    return drawing;
  }

  /**
   * The keyboard's way to place: the tool's drawing in the middle of the view (a line across its centre,
   * a two-point drawing from lower left to upper right of its middle third). Undefined without a tool,
   * or where no price is shown (USD before any stablecoin traded).
   */
  placeInView(): Drawing | undefined {
    const tool = this.state.tool;
    if (!tool) return undefined;
    const { width, height } = this.host.chart.paneSize(0);
    const at = (fx: number, fy: number) => this.projection.toAnchor({ x: width * fx, y: height * fy });
    const points = TOOLS[tool].points === 1 ? [at(0.5, 0.5)] : [at(0.35, 0.65), at(0.65, 0.35)];
    return points.every((a) => a !== undefined) ? this.add(tool, points as Anchor[]) : undefined;
  }

  /** Moves the selected drawing by pixels on screen (the arrow keys). */
  nudge(dx: number, dy: number): void {
    const original = this.state.drawings.find((d) => d.id === this.state.selected);
    if (!original) return;
    const moved = this.moved(
      { hit: { id: original.id, handle: 'body' }, start: { x: 0, y: 0 }, original, moved: false },
      { x: dx, y: dy },
    );
    if (moved)
      this.change(
        this.state.drawings.map((d) => (d.id === moved.id ? moved : d)),
        {},
      );
  }

  /** Where the drawings are on screen now, topmost last. */
  shapes(): readonly Painted[] {
    return this.primitive.onScreen;
  }

  dispose(): void {
    const el = this.host.element;
    el.removeEventListener('pointerdown', this.onPointerDown, true);
    el.removeEventListener('pointermove', this.onPointerMove, true);
    el.removeEventListener('pointerup', this.onPointerUp, true);
    el.removeEventListener('pointercancel', this.onPointerUp, true);
    for (const type of CHART_EVENTS) el.removeEventListener(type, this.holdBack, { capture: true });
    el.ownerDocument.removeEventListener('keydown', this.onKey, true);
    this.host.series.detachPrimitive(this.primitive);
    delete el.dataset.drawings;
    this.listeners.clear();
  }

  // --- drawing ---

  private paint(): readonly Painted[] {
    const { drawings, selected } = this.state;
    const placing = this.placing;
    const all: Drawing[] = placing?.hover
      ? [...drawings, { id: '', kind: placing.kind, points: [placing.first, placing.hover], color: this.state.color }]
      : [...drawings];
    const painted: Painted[] = [];
    for (const drawing of all) {
      const points = drawing.points.map((a) => this.projection.toScreen(a));
      if (points.some((p) => p === undefined)) continue;
      const on = points as NonNullable<(typeof points)[number]>[];
      const lines = this.linesOf(drawing, on);
      const box = drawing.kind === 'note' ? this.box(lines) : undefined;
      painted.push({
        id: drawing.id,
        kind: drawing.kind,
        points: on,
        prices: on.map((q) => q.shown),
        color: drawing.color,
        selected: drawing.id === selected,
        ...(lines ? { lines } : {}),
        ...(box ? { box } : {}),
      });
    }
    this.describe(painted);
    return painted;
  }

  /**
   * What is drawn where, on the chart's element for tests and tools (`data-drawings`: each drawing's id,
   * kind, colour and points in pane pixels with their prices as shown), written when it changes.
   */
  private describe(painted: readonly Painted[]): void {
    const text = JSON.stringify(
      painted
        .filter((p) => p.id !== '')
        .map((p) => ({
          id: p.id,
          kind: p.kind,
          color: p.color,
          points: p.points.map((q, i) => ({
            x: Math.round(q.x),
            y: Math.round(q.y),
            price: Number(p.prices[i]?.toPrecision(8)),
          })),
        })),
    );
    if (this.host.element.dataset.drawings !== text) this.host.element.dataset.drawings = text;
  }

  private linesOf(drawing: Drawing, on: readonly { logical: number; shown: number }[]): string[] | undefined {
    if (drawing.kind === 'note') return [drawing.text ?? ''];
    if (drawing.kind !== 'measure') return undefined;
    const [a, b] = on;
    const [ta, tb] = drawing.points;
    if (!a || !b || !ta || !tb) return undefined;
    const m = measure(
      { price: a.shown, logical: a.logical, time: ta.time },
      { price: b.shown, logical: b.logical, time: tb.time },
    );
    const format = this.host.series.priceFormatter();
    const change = `${m.change >= 0 ? '+' : '−'}${format.format(Math.abs(m.change))}`;
    return [`${change} (${formatPercent(m.percent)})`, `${m.bars} bars, ${formatSpan(m.seconds)}`];
  }

  private box(lines: readonly string[] | undefined): { width: number; height: number } | undefined {
    this.measureCtx ??= this.host.element.ownerDocument.createElement('canvas').getContext('2d');
    return this.measureCtx && lines ? textBox(this.measureCtx, lines) : undefined;
  }

  // --- the pointer ---

  private pointIn(event: PointerEvent): Point | undefined {
    const rect = this.host.element.getBoundingClientRect();
    const p = { x: event.clientX - rect.left, y: event.clientY - rect.top };
    const pane = this.host.chart.paneSize(0);
    return p.x >= 0 && p.y >= 0 && p.x <= pane.width && p.y <= pane.height ? p : undefined;
  }

  private readonly onPointerDown = (event: PointerEvent) => {
    this.holding = false;
    if (!event.isPrimary || (event.pointerType === 'mouse' && event.button !== 0)) return;
    const p = this.pointIn(event);
    if (!p) return;
    const tool = this.state.tool;
    if (tool) {
      this.take(event);
      const anchor = this.projection.toAnchor(p);
      if (!anchor) return;
      const first = this.placing?.first;
      if (TOOLS[tool].points === 1 || first) {
        performance.mark(DRAWING_ADD_MARK, { detail: { kind: tool } });
        // The drawing in the chart's next frame; the bar (its list, hint and count) renders after that frame.
        this.publishLater = true;
        try {
          this.add(tool, first ? [first, anchor] : [anchor]);
        } finally {
          this.publishLater = false;
        }
        this.measureDrawn(event.timeStamp, tool);
      } else {
        this.placing = { kind: tool, first: anchor, hover: undefined };
        this.set({ pending: true });
      }
      return;
    }
    const hit = hitTest(this.primitive.onScreen, p, event.pointerType === 'mouse' ? TOLERANCE.mouse : TOLERANCE.touch);
    const original = hit && this.state.drawings.find((d) => d.id === hit.id);
    if (!hit || !original) {
      if (this.state.selected !== undefined) this.select(undefined);
      return;
    }
    this.take(event);
    this.gesture = { hit, start: p, original, moved: false };
    if (this.state.selected !== hit.id) this.select(hit.id);
  };

  /** The press is the drawings': the chart does not scroll or scale with it. */
  private take(event: PointerEvent): void {
    this.holding = true;
    event.preventDefault();
    event.stopPropagation();
    try {
      this.host.element.setPointerCapture(event.pointerId);
    } catch {
      // A pointer that is gone already: nothing to follow.
    }
  }

  private readonly onPointerMove = (event: PointerEvent) => {
    if (this.placing && !this.gesture) {
      const p = this.pointIn(event);
      this.placing.hover = p ? this.projection.toAnchor(p) : undefined;
      this.primitive.update();
      return;
    }
    const gesture = this.gesture;
    if (!gesture) return;
    const p = this.pointIn(event);
    if (!p) return;
    const moved = this.moved(gesture, p);
    if (!moved) return;
    gesture.moved = true;
    this.state = { ...this.state, drawings: this.state.drawings.map((d) => (d.id === moved.id ? moved : d)) };
    this.primitive.update();
    this.publish();
  };

  /** The drawing as the gesture has moved it to `p`: one end to the pointer, or the whole by the pointer's way. */
  private moved(gesture: Gesture, p: Point): Drawing | undefined {
    const { original, hit, start } = gesture;
    if (hit.handle !== 'body') {
      const anchor = this.projection.toAnchor(p);
      return anchor
        ? { ...original, points: original.points.map((a, i) => (i === hit.handle ? anchor : a)) }
        : undefined;
    }
    const points: Anchor[] = [];
    for (const a of original.points) {
      const at = this.projection.toScreen(a);
      const moved = at && this.projection.toAnchor({ x: at.x + p.x - start.x, y: at.y + p.y - start.y }, false);
      if (!moved) return undefined;
      points.push(moved);
    }
    return { ...original, points };
  }

  private readonly onPointerUp = (event: PointerEvent) => {
    const gesture = this.gesture;
    this.gesture = undefined;
    if (gesture?.moved) this.change(this.state.drawings, {});
    if (this.holding) {
      event.stopPropagation();
      // The mouse and touch events of this press come after it, in the same task: held back too.
      setTimeout(() => (this.holding = false), 0);
    }
  };

  private readonly holdBack = (event: Event) => {
    if (!this.holding) return;
    event.stopPropagation();
    if (event.type.startsWith('touch') && event.cancelable) event.preventDefault();
  };

  private readonly onKey = (event: KeyboardEvent) => {
    const target = event.target as HTMLElement | null;
    if (target && (target.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(target.tagName))) return;
    if ((event.key === 'Delete' || event.key === 'Backspace') && this.state.selected !== undefined) {
      event.preventDefault();
      this.remove();
    } else if (
      event.key.startsWith('Arrow') &&
      this.state.selected !== undefined &&
      !event.altKey &&
      !event.ctrlKey &&
      !event.metaKey
    ) {
      // A selected drawing moves by 8 pixels (1 with Shift) instead of the page scrolling.
      event.preventDefault();
      const step = event.shiftKey ? 1 : 8;
      const [dx, dy] = { ArrowLeft: [-step, 0], ArrowRight: [step, 0], ArrowUp: [0, -step], ArrowDown: [0, step] }[
        event.key
      ] ?? [0, 0];
      this.nudge(dx ?? 0, dy ?? 0);
    } else if (event.key === 'Escape' && (this.state.tool || this.state.selected !== undefined)) {
      this.placing = undefined;
      this.set({ tool: undefined, pending: false, selected: undefined });
    }
  };

  // --- state ---

  /** New drawings: kept, drawn, published. */
  private change(drawings: readonly Drawing[], patch: Partial<DrawingsState>): void {
    const saved = saveDrawings(this.storage, this.group, this.symbol, drawings);
    this.set({ ...patch, drawings, unsaved: !saved && this.storage !== undefined });
  }

  private set(patch: Partial<DrawingsState>): void {
    this.state = { ...this.state, ...patch };
    this.primitive.update();
    if (this.publishLater) this.publishAfterFrame();
    else this.publish();
  }

  /**
   * The listeners told after the chart's next frame (a task after it): a press that adds a drawing
   * has that frame to itself, without React rendering the bar and the page laying it out first.
   */
  private publishAfterFrame(): void {
    if (this.publishing) return;
    this.publishing = true;
    requestAnimationFrame(() =>
      setTimeout(() => {
        this.publishing = false;
        this.publish();
      }, 0),
    );
  }

  private publish(): void {
    for (const listener of [...this.listeners]) listener();
  }

  /** Performance measure: the press that adds a drawing -> the chart's next frame, which draws it. */
  private measureDrawn(start: number, kind: DrawingKind): void {
    requestAnimationFrame(() => {
      try {
        performance.measure(DRAWING_DRAWN_MEASURE, { start, end: performance.now(), detail: { kind } });
      } catch {
        // The timeline was cleared meanwhile: nothing to measure.
      }
    });
  }
}
