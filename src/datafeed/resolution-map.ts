import { LIBRARY_WIRE_RESOLUTIONS as WIRE_OF } from '../shared/first-chart';
import type { Resolution } from '../shared/resolutions';
import type { ResolutionString } from './tradingview-types';

/** The wire resolution (/history's `resolution`) of a library resolution (shared with the page's boot and the server). */
export { toWireResolution } from '../shared/first-chart';

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
