import { queryOptions } from '@tanstack/react-query';
import { GatewayError, type GatewayClient, type ResolutionString, type UdfDatafeed } from '@/datafeed';
import { tokenStatsSchema, type TokenStats } from '@/shared/api/tokens';
import { STABLECOINS, type Stablecoin } from '@/app/lib/stablecoins';
import type { LiveQuote, UsdRateSource } from './usd-rates';

/** A stablecoin present on the market, with its statistics (its Aggregate against ADA). */
export interface StablecoinStats {
  readonly coin: Stablecoin;
  readonly stats: TokenStats;
}

/**
 * GET /gw/v1/tokens/current?policy=<unit> for each USD stablecoin (src/shared/stablecoins.ts): the spec's
 * endpoint, the same over any upstream. A stablecoin the market does not have (404) is left out; no
 * stablecoin at all is an empty list (the USD switch says so). Other failures fail the query.
 */
export function stablecoinStatsQueryOptions(api: GatewayClient) {
  return queryOptions({
    queryKey: ['stablecoin-stats'],
    queryFn: async ({ signal }): Promise<StablecoinStats[]> => {
      const found = await Promise.all(
        STABLECOINS.map((coin) =>
          api.getOrThrow('/tokens/current', { policy: coin.unit }, tokenStatsSchema, signal).then(
            (stats) => ({ coin, stats }),
            (error: unknown) => {
              if (error instanceof GatewayError && error.status === 404) return undefined;
              throw error;
            },
          ),
        ),
      );
      return found.filter((s): s is StablecoinStats => s !== undefined);
    },
    refetchInterval: 120_000,
    staleTime: 60_000,
  });
}

const NO_QUOTES: ReadonlyMap<string, LiveQuote> = new Map();

/**
 * The app's rates: the book of ADA/USD through time (usd-rate-book.ts), a chunk of its own loaded the
 * first time something asks for rates or follows them (prices in USD, the USD switch asking whether
 * they are available): the first chart, in ADA, does not load it.
 */
export class UsdRatesOnDemand implements UsdRateSource {
  private book: UsdRateSource | undefined;
  private loading: Promise<UsdRateSource> | undefined;
  private readonly listeners = new Map<() => void, (() => void) | undefined>();

  constructor(private readonly datafeed: UdfDatafeed) {}

  private load(): Promise<UsdRateSource> {
    this.loading ??= import('./usd-rate-book').then(
      ({ UsdRateBook }) => {
        const book = new UsdRateBook(this.datafeed);
        this.book = book;
        for (const listener of [...this.listeners.keys()]) this.listeners.set(listener, book.subscribe(listener));
        // The rates and quotes read before were the empty ones: read them again.
        for (const listener of [...this.listeners.keys()]) listener();
        return book;
      },
      (error: unknown) => {
        // Asked again next time (a chunk that could not be fetched).
        this.loading = undefined;
        throw error;
      },
    );
    return this.loading;
  }

  ensure(resolution: ResolutionString, from: number, to: number): Promise<void> {
    return this.load().then((book) => book.ensure(resolution, from, to));
  }

  rateAt(resolution: ResolutionString, time: number): number | undefined {
    return this.book?.rateAt(resolution, time);
  }

  readonly liveQuotes = (): ReadonlyMap<string, LiveQuote> => this.book?.liveQuotes() ?? NO_QUOTES;

  readonly liveEpoch = (): number => this.book?.liveEpoch() ?? 0;

  readonly subscribe = (listener: () => void): (() => void) => {
    this.listeners.set(listener, this.book?.subscribe(listener));
    if (!this.book) void this.load().catch(() => undefined);
    return () => {
      this.listeners.get(listener)?.();
      this.listeners.delete(listener);
    };
  };
}
