import { useId, useLayoutEffect, useState, useSyncExternalStore } from 'react';
import { ToggleButton } from '@/app/components/toggle-button';
import { DrawingLayer, type DrawingHost, type DrawingsState } from '../lib/drawing-layer';
import { DRAWING_KINDS, TOOLS, drawingName, type Drawing } from '../lib/model';

export interface DrawingToolsProps {
  /** The chart to draw on (undefined while it is being made). */
  readonly host: DrawingHost | undefined;
  /** The pair's group and symbol name: whose drawings these are. */
  readonly group: string;
  readonly symbol: string;
  /** The tools' bar is shown (the toolbar's Draw button); the drawings are drawn either way. */
  readonly open: boolean;
}

function browserStorage(): Storage | undefined {
  try {
    return globalThis.localStorage;
  } catch {
    return undefined;
  }
}

/**
 * The pair's drawings on the chart, and the bar of tools that makes and edits them: a tool per kind,
 * the note's text, the colour, Delete, and the list of drawings (each selectable from the keyboard).
 */
export function DrawingTools({ host, group, symbol, open }: DrawingToolsProps) {
  const [layer, setLayer] = useState<DrawingLayer | undefined>(undefined);
  // Before the browser paints: the chart is never shown without the pair's drawings.
  useLayoutEffect(() => {
    if (!host) return undefined;
    const made = new DrawingLayer(host, browserStorage(), group, symbol);
    // The layer is made on the chart's own elements, so in an effect; the bar renders from it once made.
    // eslint-disable-next-line react-hooks/set-state-in-effect
    setLayer(made);
    return () => {
      made.dispose();
      setLayer(undefined);
    };
  }, [host, group, symbol]);
  return layer && open ? <DrawingBar layer={layer} /> : null;
}

function hintOf(state: DrawingsState, drawings: readonly Drawing[]): string {
  if (state.unsaved) return 'The browser’s storage refused the drawings: they are on screen only.';
  if (state.tool) {
    const tool = TOOLS[state.tool];
    if (tool.points === 1) return `${tool.name}: click or tap the chart to place it (or Place).`;
    return state.pending
      ? `${tool.name}: now its second point.`
      : `${tool.name}: click or tap its first point, then its second (or Place).`;
  }
  const selected = drawings.find((d) => d.id === state.selected);
  if (selected)
    return `${drawingName(selected, drawings)} selected: drag an end (or the drawing) or use the arrow keys to move it; Delete removes it.`;
  return drawings.length > 0
    ? 'Pick a tool, or a drawing (on the chart or in the list) to edit it.'
    : 'Pick a tool, then click or tap the chart.';
}

function DrawingBar({ layer }: { readonly layer: DrawingLayer }) {
  const id = useId();
  const state = useSyncExternalStore(layer.subscribe, layer.getState, layer.getState);
  const { drawings, selected, tool } = state;
  const selectedDrawing = drawings.find((d) => d.id === selected);
  const shownColor = selectedDrawing?.color ?? state.color;
  const noteText = selectedDrawing?.kind === 'note' ? (selectedDrawing.text ?? '') : state.noteText;
  return (
    <div
      className="drawing-tools"
      role="group"
      aria-label="Drawing tools"
      data-testid="drawing-tools"
      data-drawings={drawings.length}
      data-selected={selected ?? ''}
    >
      <div className="button-group" role="group" aria-label="Drawing tool">
        {DRAWING_KINDS.map((kind) => (
          <ToggleButton
            key={kind}
            pressed={tool === kind}
            onToggle={() => layer.setTool(kind)}
            label={TOOLS[kind].name}
            testId={`drawing-tool-${kind}`}
          >
            {TOOLS[kind].short}
          </ToggleButton>
        ))}
      </div>
      <button
        type="button"
        className="button"
        onClick={() => layer.placeInView()}
        disabled={!tool}
        aria-label="Place the drawing in the middle of the view"
        data-testid="drawing-place"
      >
        Place
      </button>
      <label className="field drawing-tools__note" htmlFor={`${id}-note`}>
        <span className="field__label">Note</span>
        <input
          id={`${id}-note`}
          type="text"
          maxLength={200}
          value={noteText}
          onChange={(e) => layer.setNoteText(e.target.value)}
          aria-label="Note text"
          data-testid="drawing-note-text"
        />
      </label>
      <label className="field" htmlFor={`${id}-color`}>
        <span className="field__label">Colour</span>
        <input
          id={`${id}-color`}
          type="color"
          value={shownColor}
          onChange={(e) => layer.setColor(e.target.value)}
          aria-label="Drawing colour"
          data-testid="drawing-color"
        />
      </label>
      <button
        type="button"
        className="button"
        onClick={() => layer.remove()}
        disabled={!selectedDrawing}
        aria-label="Delete the selected drawing"
        data-testid="drawing-delete"
      >
        Delete
      </button>
      {/* Always there, so the bar keeps its height as drawings come and go. */}
      <details className="drawing-tools__list">
        <summary className="button">Drawings ({drawings.length})</summary>
        <ul aria-label="Drawings">
          {drawings.map((drawing) => (
            <li key={drawing.id}>
              <button
                type="button"
                className="button button--toggle button--small"
                aria-pressed={drawing.id === selected}
                onClick={() => layer.select(drawing.id === selected ? undefined : drawing.id)}
                data-testid="drawing-item"
                data-kind={drawing.kind}
              >
                <span className="drawing-tools__swatch" style={{ background: drawing.color }} aria-hidden="true" />
                {drawingName(drawing, drawings)}
              </button>
            </li>
          ))}
        </ul>
      </details>
      <p className="drawing-tools__hint" role="status" data-testid="drawing-hint">
        {hintOf(state, drawings)}
      </p>
    </div>
  );
}
