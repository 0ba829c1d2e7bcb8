/** The app's two themes (the stored preference, stores/preferences.ts). */
export type Theme = 'dark' | 'light';

/** Canvas colours per theme (the CSS variables in styles/app.css hold the same values). */
export interface Palette {
  readonly background: string;
  readonly text: string;
  readonly grid: string;
  readonly border: string;
  readonly up: string;
  readonly down: string;
  readonly volumeUp: string;
  readonly volumeDown: string;
  readonly tvl: string;
  readonly tvlFill: string;
  readonly crosshair: string;
  /** Line colours for compare mode, Aggregate first. */
  readonly series: readonly string[];
}

export const PALETTES: Readonly<Record<Theme, Palette>> = {
  dark: {
    background: '#0b1220',
    text: '#c9d4e3',
    grid: '#1a2436',
    border: '#2a3750',
    up: '#3ddc97',
    down: '#ff6b6b',
    volumeUp: 'rgba(61, 220, 151, 0.35)',
    volumeDown: 'rgba(255, 107, 107, 0.35)',
    tvl: '#6ea8fe',
    tvlFill: 'rgba(110, 168, 254, 0.15)',
    crosshair: '#8090a8',
    series: [
      '#f5c542',
      '#3ddc97',
      '#6ea8fe',
      '#ff8ad8',
      '#ff9f43',
      '#b197fc',
      '#4dd4e6',
      '#ff6b6b',
      '#a3e635',
      '#e2e8f0',
      '#fb7185',
    ],
  },
  light: {
    background: '#ffffff',
    text: '#1f2328',
    grid: '#eef1f5',
    border: '#d0d7de',
    up: '#1a7f37',
    down: '#cf222e',
    volumeUp: 'rgba(26, 127, 55, 0.3)',
    volumeDown: 'rgba(207, 34, 46, 0.3)',
    tvl: '#0969da',
    tvlFill: 'rgba(9, 105, 218, 0.12)',
    crosshair: '#57606a',
    series: [
      '#9a6700',
      '#1a7f37',
      '#0969da',
      '#bf3989',
      '#bc4c00',
      '#8250df',
      '#1b7c83',
      '#cf222e',
      '#4d7c0f',
      '#57606a',
      '#be123c',
    ],
  },
};
