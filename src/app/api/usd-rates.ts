import type { ResolutionString } from '@/datafeed';
import type { Stablecoin } from '@/app/lib/stablecoins';

/** The app's ADA/USD rates as their readers see them (usd-rate-book.ts is their one implementation, loaded on demand by ada-usd.ts). */

/** A stablecoin's Aggregate pool against ADA. */
export interface StablePool {
  readonly coin: Stablecoin;
  readonly poolId: string;
}

/** A stablecoin's latest state seen live: ADA per stablecoin, TVL in ADA, when it was seen (ms). */
export interface LiveQuote {
  readonly price: number;
  readonly tvl: number;
  readonly at: number;
}

/** What the chart and the tape need of the rates: historical ADA/USD at a resolution, and word when live trades move it. */
export interface UsdRates {
  /** Loads what `rateAt` needs for bar times in [from, to) (Unix s) at `resolution`. Rejects with the server's message. */
  ensure(resolution: ResolutionString, from: number, to: number): Promise<void>;
  /** USD per ADA at a bar time (its bucket start), undefined before any stablecoin traded. */
  rateAt(resolution: ResolutionString, time: number): number | undefined;
  /** Called whenever a live trade of a stablecoin moves the rates; following live while anyone listens. */
  subscribe(listener: () => void): () => void;
}

/** What the app reads of the rates: the chart's and the tape's, and the stablecoins' live quotes (ADA/USD now). */
export interface UsdRateSource extends UsdRates {
  /** Each stablecoin's latest state seen live, by unit (a new map after each trade). */
  liveQuotes(): ReadonlyMap<string, LiveQuote>;
  /** Bumped each time the stablecoins' pools go live, and whenever trades may have been missed. */
  liveEpoch(): number;
}
