import { TestEventSource } from '../support/event-source';
import { createTestPlatform, type TestPlatform, type TestPlatformOptions } from '../support/platform';
import { UdfDatafeed, type UdfDatafeedOptions } from '../../src/datafeed/udf-datafeed';
import type { toLibraryBar } from '../../src/datafeed/library-format';
import type { SearchRow } from '../../src/datafeed/symbol-search';
import type {
  DatafeedConfiguration,
  HistoryMetadata,
  LibrarySymbolInfo,
  PeriodParams,
  ResolutionString,
  SearchSymbolResultItem,
} from '../../src/datafeed/tradingview-types';
import { historyResponseSchema } from '../../src/shared/api/history';
import { asMillis, asSeconds } from '../../src/shared/time';

/** A bar as the datafeed hands it to TradingView's library (milliseconds, with `tvl`). */
export type LibraryTick = ReturnType<typeof toLibraryBar>;

/** Test helpers for the datafeed: a platform, a datafeed wired to it, and promise wrappers of the callback API. */

export interface Harness {
  readonly tp: TestPlatform;
  readonly datafeed: UdfDatafeed;
  /** URLs fetched by the datafeed, in order. */
  readonly fetched: string[];
  /** EventSources the datafeed opened. */
  readonly sources: TestEventSource[];
  readonly warnings: string[];
  close(): Promise<void>;
}

/** A datafeed on an existing platform: fetch and EventSource over the in-process server, calls recorded. */
export function attachDatafeed(tp: TestPlatform, options: UdfDatafeedOptions = {}): Omit<Harness, 'tp'> {
  const fetched: string[] = [];
  const sources: TestEventSource[] = [];
  const warnings: string[] = [];
  const fetchImpl = (input: string, init?: RequestInit) => {
    fetched.push(input);
    return tp.fetch(input, init);
  };
  class PlatformEventSource extends TestEventSource {
    constructor(url: string) {
      super(url, tp.fetch);
      sources.push(this);
    }
  }
  const datafeed = new UdfDatafeed({
    fetch: fetchImpl,
    EventSource: PlatformEventSource,
    liveDebounceMs: 10,
    onWarning: (message) => warnings.push(message),
    ...options,
  });
  return { datafeed, fetched, sources, warnings, close: async () => datafeed.close() };
}

export async function createHarness(
  platform: TestPlatformOptions = {},
  options: UdfDatafeedOptions = {},
): Promise<Harness> {
  const tp = await createTestPlatform(platform);
  const attached = attachDatafeed(tp, options);
  return {
    tp,
    ...attached,
    close: async () => {
      await attached.close();
      await tp.close();
    },
  };
}

export function onReady(datafeed: UdfDatafeed): Promise<DatafeedConfiguration> {
  return new Promise((resolve) => datafeed.onReady(resolve));
}

export function resolveSymbol(datafeed: UdfDatafeed, name: string): Promise<LibrarySymbolInfo> {
  return new Promise((resolve, reject) => datafeed.resolveSymbol(name, resolve, (reason) => reject(new Error(reason))));
}

export function searchSymbols(
  datafeed: UdfDatafeed,
  input: string,
  exchange = '',
  type = '',
): Promise<SearchSymbolResultItem[]> {
  return new Promise((resolve) => datafeed.searchSymbols(input, exchange, type, resolve));
}

export interface BarsResult {
  readonly bars: LibraryTick[];
  readonly meta: HistoryMetadata | undefined;
}

/** getBars as a promise; rejects with the onError reason. `from`/`to` in seconds. */
export function getBars(
  datafeed: UdfDatafeed,
  symbolInfo: LibrarySymbolInfo,
  resolution: ResolutionString,
  params: { from: number; to: number; countBack?: number; firstDataRequest?: boolean },
): Promise<BarsResult> {
  const period: PeriodParams = {
    from: asSeconds(params.from),
    to: asSeconds(params.to),
    countBack: params.countBack ?? 0,
    firstDataRequest: params.firstDataRequest ?? false,
  };
  return new Promise((resolve, reject) =>
    datafeed.getBars(
      symbolInfo,
      resolution,
      period,
      (bars, meta) => resolve({ bars: bars as LibraryTick[], meta }),
      (reason) => reject(new Error(reason)),
    ),
  );
}

export function search(datafeed: UdfDatafeed, query: string, group?: string, limit?: number): Promise<SearchRow[]> {
  return datafeed.search(query, group, limit);
}

/** Collects the bars a subscription emitted: every tick in order, and the last per bar time. */
export class TickRecorder {
  readonly ticks: LibraryTick[] = [];
  resets = 0;
  readonly onTick = (bar: { time: number }) => {
    this.ticks.push(bar as LibraryTick);
  };
  readonly onReset = () => {
    this.resets++;
  };

  /** The last emitted bar per bucket, oldest first. */
  bars(): LibraryTick[] {
    const byTime = new Map<number, LibraryTick>();
    for (const tick of this.ticks) byTime.set(tick.time, tick);
    return [...byTime.values()].sort((a, b) => a.time - b.time);
  }

  last(): LibraryTick | undefined {
    return this.ticks.at(-1);
  }
}

/** /history through the gateway as library bars (ms), for comparing with what the datafeed emitted. */
export async function historyBars(
  tp: TestPlatform,
  poolId: string,
  resolution: string,
  from: number,
  to: number,
): Promise<LibraryTick[]> {
  const search = new URLSearchParams({
    symbol: poolId,
    resolution,
    from: String(from),
    to: String(to),
    include_tvl: 'true',
  });
  const body = historyResponseSchema.parse(await (await tp.fetch(`/gw/v1/history?${search}`)).json());
  return body.t.map((t, i) => ({
    time: asMillis(t * 1000),
    open: body.o[i] ?? Number.NaN,
    high: body.h[i] ?? Number.NaN,
    low: body.l[i] ?? Number.NaN,
    close: body.c[i] ?? Number.NaN,
    volume: body.v[i] ?? Number.NaN,
    tvl: body.tvl?.[i] ?? Number.NaN,
  }));
}

/** Subscribes a recorder to a symbol at a resolution. */
export function subscribe(
  datafeed: UdfDatafeed,
  symbolInfo: LibrarySymbolInfo,
  resolution: ResolutionString,
  listenerGuid: string,
): TickRecorder {
  const recorder = new TickRecorder();
  datafeed.subscribeBars(symbolInfo, resolution, recorder.onTick, listenerGuid, recorder.onReset);
  return recorder;
}
