import type { UnixSeconds } from './time';

/**
 * Every resolution as each layer names it, in ONE table (`CHART_RESOLUTIONS`): the API's name
 * (/history's `resolution`), the chart's (TradingView's, which the URL's `res`, the datafeed and the
 * charts use), the seconds of a bucket, the button's label and spoken name, the spellings a URL may use
 * and the names the /udf routes serve. Everything else is derived from it: the UDF routes and their
 * schema (shared/api/udf.ts), the datafeed's mapping (datafeed/resolution-map.ts), the page's first
 * chart (app/lib/first-chart.ts) and the resolution buttons (app/lib/selection.ts).
 *
 * A chart resolution is served by /history (`api`), or built in the datafeed by folding the bars of a
 * finer chart resolution (`foldOf`): the bar rule is a fold, so a coarse bar is the merge of the fine
 * bars inside it (shared/bars.ts).
 */

/** The resolutions of /history, with the bucket size of each in seconds. */
export const RESOLUTION_SECONDS = {
  '1min': 60,
  '5min': 300,
  '15min': 900,
  '60min': 3600,
  '1d': 86400,
} as const;

/** A resolution of the API (/history's `resolution`). */
export type Resolution = keyof typeof RESOLUTION_SECONDS;

/** Finest first. */
export const RESOLUTIONS = Object.keys(RESOLUTION_SECONDS) as Resolution[];

/** One resolution, as every layer names it. */
export interface ResolutionEntry {
  /** The chart's name (TradingView's `ResolutionString`): the URL's `res`, the datafeed's, the app's. */
  readonly chart: string;
  /** Seconds of one bucket. */
  readonly seconds: number;
  /**
   * Where buckets start, in seconds after the UTC bucket boundary that `seconds` alone would give:
   * weeks start on Monday 00:00 UTC (the Unix epoch was a Thursday), every other bucket on 0.
   */
  readonly offset: number;
  /** The button's text: `1m`, `4h`, `1W`. */
  readonly label: string;
  /** The spoken name: `1 minute`, `4 hours`. */
  readonly name: string;
  /** Other spellings a URL may use (matched in any letter case); the datafeed takes them as written. */
  readonly aliases: readonly string[];
  /** The API's resolution that serves it (/history); undefined for a resolution built in the datafeed. */
  readonly api?: Resolution;
  /** The names /udf serves it under, its first the one announced (served resolutions only). */
  readonly udf?: readonly string[];
  /** The finer chart resolution whose bars the datafeed folds into it (chart-only resolutions). */
  readonly foldOf?: string;
}

/** The Unix epoch was a Thursday: weeks start four days after it, on Monday 00:00 UTC. */
const WEEK_OFFSET = 4 * 86_400;

/** Every resolution the app charts, finest first. */
export const CHART_RESOLUTIONS: readonly ResolutionEntry[] = [
  {
    chart: '1',
    seconds: 60,
    offset: 0,
    label: '1m',
    name: '1 minute',
    aliases: ['1m', '1min'],
    api: '1min',
    udf: ['1'],
  },
  {
    chart: '5',
    seconds: 300,
    offset: 0,
    label: '5m',
    name: '5 minutes',
    aliases: ['5m', '5min'],
    api: '5min',
    udf: ['5'],
  },
  {
    chart: '15',
    seconds: 900,
    offset: 0,
    label: '15m',
    name: '15 minutes',
    aliases: ['15m', '15min'],
    api: '15min',
    udf: ['15'],
  },
  { chart: '30', seconds: 1800, offset: 0, label: '30m', name: '30 minutes', aliases: ['30m', '30min'], foldOf: '15' },
  {
    chart: '60',
    seconds: 3600,
    offset: 0,
    label: '1h',
    name: '1 hour',
    aliases: ['60m', '60min', '1h'],
    api: '60min',
    udf: ['60'],
  },
  {
    chart: '240',
    seconds: 14_400,
    offset: 0,
    label: '4h',
    name: '4 hours',
    aliases: ['240m', '240min', '4h'],
    foldOf: '60',
  },
  {
    chart: '1D',
    seconds: 86_400,
    offset: 0,
    label: '1D',
    name: '1 day',
    aliases: ['1d', 'd', '1440', '24h'],
    api: '1d',
    udf: ['1D', 'D', '1440'],
  },
  {
    chart: '1W',
    seconds: 604_800,
    offset: WEEK_OFFSET,
    label: '1W',
    name: '1 week',
    aliases: ['1w', 'w', '7d'],
    foldOf: '1D',
  },
];

const BY_NAME = new Map<string, ResolutionEntry>();
const BY_SPELLING = new Map<string, ResolutionEntry>();
for (const entry of CHART_RESOLUTIONS) {
  for (const name of [entry.chart, ...(entry.udf ?? []), ...entry.aliases]) {
    BY_NAME.set(name, entry);
    BY_SPELLING.set(name.toLowerCase(), entry);
  }
}

/**
 * The resolution a chart library names (`1`, `60`, `1D`, `D`, `240`, `1W` …), as written: TradingView's
 * `1M` is a month, not a minute. Undefined for one we do not chart.
 */
export function chartResolution(name: string): ResolutionEntry | undefined {
  return BY_NAME.get(name.trim());
}

/** The resolution a URL names, in any letter case (`60`, `60min`, `1h`, `1d`, `4H`, `1w` …); undefined when not one we chart. */
export function resolutionOfSpelling(value: string): ResolutionEntry | undefined {
  return BY_SPELLING.get(value.trim().toLowerCase());
}

/** The entry of an API resolution. */
export function apiResolutionEntry(resolution: Resolution): ResolutionEntry {
  const entry = CHART_RESOLUTIONS.find((e) => e.api === resolution);
  if (entry === undefined) throw new RangeError(`no chart resolution for ${resolution}`);
  return entry;
}

/** The resolutions /udf serves, by every name it takes, and the names it announces (finest first). */
export const UDF_NAMES: ReadonlyMap<string, Resolution> = new Map(
  CHART_RESOLUTIONS.flatMap(({ api, udf = [] }) =>
    api === undefined ? [] : udf.map((name): [string, Resolution] => [name, api]),
  ),
);

/** Start of the UTC-aligned bucket that contains `time` (decisions "Bars"). */
export function bucketStart(time: number, resolution: Resolution): UnixSeconds {
  const size = RESOLUTION_SECONDS[resolution];
  return (Math.floor(time / size) * size) as UnixSeconds;
}

/** Start of the bucket of a chart resolution that contains `time` (UTC; weeks from Monday). */
export function entryBucketStart(time: number, entry: ResolutionEntry): UnixSeconds {
  const { seconds, offset } = entry;
  return (Math.floor((time - offset) / seconds) * seconds + offset) as UnixSeconds;
}
