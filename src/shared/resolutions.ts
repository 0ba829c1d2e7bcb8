import type { UnixSeconds } from './time';

/** The resolutions of /history, with the bucket size of each in seconds. */
export const RESOLUTION_SECONDS = {
  '1min': 60,
  '5min': 300,
  '15min': 900,
  '60min': 3600,
  '1d': 86400,
} as const;

export type Resolution = keyof typeof RESOLUTION_SECONDS;

/** Finest first. */
export const RESOLUTIONS = Object.keys(RESOLUTION_SECONDS) as Resolution[];

/** Start of the UTC-aligned bucket that contains `time` (decisions "Bars"). */
export function bucketStart(time: number, resolution: Resolution): UnixSeconds {
  const size = RESOLUTION_SECONDS[resolution];
  return (Math.floor(time / size) * size) as UnixSeconds;
}
