/** The strip drawn above a chart's screenshot: what the image shows. */
export interface TitleStrip {
  /** `ADA/SNEK on Aggregate · 1 hour`. */
  readonly title: string;
  /** Small print at the right (the app, the export time), left out when there is no room. */
  readonly note?: string;
  /** Compare mode: each line's colour and label. */
  readonly legend?: readonly { readonly label: string; readonly color: string }[];
}

export interface StripColors {
  readonly background: string;
  readonly text: string;
  readonly muted: string;
}

const FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';

/**
 * A new canvas: the title strip, then `shot` (a chart's screenshot) below it, at the screenshot's
 * pixel density (`scale`: device pixels per CSS pixel). The screenshot itself is returned when no 2D
 * context is available.
 */
export function withTitleStrip(
  shot: HTMLCanvasElement,
  strip: TitleStrip,
  colors: StripColors,
  scale: number,
): HTMLCanvasElement {
  const px = (n: number) => Math.round(n * scale);
  const padding = px(10);
  const line = px(22);
  const swatch = px(10);
  const canvas = document.createElement('canvas');
  canvas.width = shot.width;
  const ctx = canvas.getContext('2d');
  if (!ctx) return shot;
  const width = canvas.width - 2 * padding;
  const titleFont = `600 ${px(15)}px ${FONT}`;
  const noteFont = `${px(12)}px ${FONT}`;
  const legendFont = `${px(13)}px ${FONT}`;

  // Measured before the canvas gets its height: the title's lines, the note if it fits, the legend's rows.
  ctx.font = titleFont;
  const titleLines = wrap(strip.title, width, (text) => ctx.measureText(text).width);
  const titleWidth = ctx.measureText(titleLines[0] ?? '').width;
  ctx.font = noteFont;
  const note =
    strip.note !== undefined &&
    titleLines.length === 1 &&
    titleWidth + px(24) + ctx.measureText(strip.note).width <= width
      ? strip.note
      : undefined;
  ctx.font = legendFont;
  const rows: { label: string; color: string; x: number }[][] = [];
  let x = padding;
  for (const item of strip.legend ?? []) {
    const itemWidth = swatch + px(6) + ctx.measureText(item.label).width;
    const row = rows.at(-1);
    if (row && x + itemWidth <= padding + width) {
      row.push({ ...item, x });
    } else {
      rows.push([{ ...item, x: padding }]);
      x = padding;
    }
    x += itemWidth + px(16);
  }

  const height = padding * 2 + line * (titleLines.length + rows.length);
  canvas.height = shot.height + height;
  ctx.fillStyle = colors.background;
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  ctx.textBaseline = 'middle';
  ctx.textAlign = 'left';
  const lineY = (i: number) => padding + line * i + line / 2;

  ctx.font = titleFont;
  ctx.fillStyle = colors.text;
  titleLines.forEach((text, i) => ctx.fillText(text, padding, lineY(i)));
  if (note !== undefined) {
    ctx.font = noteFont;
    ctx.fillStyle = colors.muted;
    ctx.textAlign = 'right';
    ctx.fillText(note, canvas.width - padding, lineY(0));
    ctx.textAlign = 'left';
  }
  ctx.font = legendFont;
  rows.forEach((row, r) => {
    const y = lineY(titleLines.length + r);
    for (const item of row) {
      ctx.fillStyle = item.color;
      ctx.fillRect(item.x, y - swatch / 2, swatch, swatch);
      ctx.fillStyle = colors.text;
      ctx.fillText(item.label, item.x + swatch + px(6), y);
    }
  });
  ctx.drawImage(shot, 0, height);
  return canvas;
}

/** `text` in lines no wider than `width` (broken between words; a word wider than that gets a line of its own). */
function wrap(text: string, width: number, measure: (text: string) => number): string[] {
  const lines: string[] = [];
  let current = '';
  for (const word of text.split(' ')) {
    const candidate = current === '' ? word : `${current} ${word}`;
    if (current !== '' && measure(candidate) > width) {
      lines.push(current);
      current = word;
    } else {
      current = candidate;
    }
  }
  if (current !== '' || lines.length === 0) lines.push(current);
  return lines;
}
