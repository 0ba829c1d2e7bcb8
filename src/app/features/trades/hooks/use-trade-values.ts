import { useQuery } from '@tanstack/react-query';
import { useEffect, useReducer, useSyncExternalStore } from 'react';
import type { ResolutionString } from '@/datafeed';
import { tokenStatsByUnitQueryOptions } from '@/app/api/token-stats';
import { invertPrice } from '@/app/lib/orientation';
import type { Currency } from '@/app/lib/usd';
import { useApi, useUsdRates } from '@/app/providers/app-providers';
import type { TapeRow } from './use-tape-rows';

/** The rates the tape values trades at: ADA/USD of the trade's hour (lib/usd). */
const RATE_RESOLUTION = '60' as ResolutionString;
const HOUR = 3600;
const NO_SUBSCRIPTION = () => () => undefined;

/**
 * A trade's price as shown (inverted, or in USD at ADA/USD of its hour) and its value: its base amount
 * (ADA pairs), or that amount at the base token's ADA price now; in USD, at the rate of its hour,
 * loaded over the rows' span and moved live by stablecoin trades. NaN where a rate is not known.
 */
export function useTradeValues(
  rows: readonly TapeRow[],
  options: { readonly baseUnit: string; readonly inverted: boolean; readonly currency: Currency },
) {
  const api = useApi();
  const rates = useUsdRates();
  const usd = options.currency === 'usd';
  const baseInAda = useQuery(tokenStatsByUnitQueryOptions(api, options.baseUnit));
  const adaPerBase = options.baseUnit === '' ? 1 : baseInAda.data?.current_price;
  // Rendered again as the book's rates change: a stablecoin traded, a span loaded.
  useSyncExternalStore(usd ? rates.subscribe : NO_SUBSCRIPTION, rates.liveQuotes, rates.liveQuotes);
  const [, ratesLoaded] = useReducer((n: number) => n + 1, 0);
  const oldest = rows.at(-1)?.time;
  const newest = rows[0]?.time;
  useEffect(() => {
    if (!usd || oldest === undefined || newest === undefined) return undefined;
    let current = true;
    rates.ensure(RATE_RESOLUTION, oldest - (oldest % HOUR), newest + HOUR).then(
      () => current && ratesLoaded(),
      () => undefined,
    );
    return () => {
      current = false;
    };
  }, [usd, rates, oldest, newest]);
  const rateAt = (time: number) => (usd ? rates.rateAt(RATE_RESOLUTION, time) : 1);
  return {
    priceOf: (row: TapeRow) => {
      const rate = rateAt(row.time);
      return usd
        ? rate === undefined
          ? Number.NaN
          : row.price * rate
        : options.inverted
          ? invertPrice(row.price)
          : row.price;
    },
    valueOf: (row: TapeRow) => {
      const rate = rateAt(row.time);
      return adaPerBase === undefined || rate === undefined ? Number.NaN : row.base_amount * adaPerBase * rate;
    },
  };
}
