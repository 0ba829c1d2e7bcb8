import type { Resolution } from '../shared/resolutions';
import type { ResolutionString } from './tradingview-types';

/** The chart library's resolutions we serve, with the wire's name of each (/history's `resolution`), finest first. */
const WIRE_OF: ReadonlyMap<string, Resolution> = new Map<string, Resolution>([
  ['1', '1min'],
  ['5', '5min'],
  ['15', '15min'],
  ['60', '60min'],
  ['1D', '1d'],
]);

/** Spellings the library also uses for a day. */
const DAY_ALIASES = new Set(['D', '1d', 'd', '1440']);

/** The wire resolution (/history's `resolution`) of a library resolution; undefined when unsupported (the page's first chart, app/lib/first-chart.ts, asks the same). */
export function toWireResolution(resolution: string): Resolution | undefined {
  const trimmed = resolution.trim();
  return WIRE_OF.get(trimmed) ?? (DAY_ALIASES.has(trimmed) ? '1d' : undefined);
}

/** The resolutions announced by `onReady` and every resolved symbol. */
export const SUPPORTED_RESOLUTIONS: readonly ResolutionString[] = [...WIRE_OF.keys()];

/** Minute multipliers served directly (the library builds 3, 30, 120, 240 ... from them). */
export const INTRADAY_MULTIPLIERS: readonly string[] = ['1', '5', '15', '60'];

/** The library resolution of a wire resolution. */
export function toLibraryResolution(resolution: Resolution): ResolutionString {
  for (const [library, wire] of WIRE_OF) if (wire === resolution) return library;
  throw new RangeError(`no library resolution for ${resolution}`);
}

export function unsupportedResolutionMessage(resolution: ResolutionString): string {
  return `Unsupported resolution "${resolution}" (supported: ${SUPPORTED_RESOLUTIONS.join(', ')})`;
}
