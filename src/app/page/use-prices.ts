import { useCallback, useEffect, useState } from 'react';
import type { ResolvedSymbol } from '@/app/api/resolve-symbol';
import { useAdaUsd } from '@/app/hooks/use-ada-usd';
import { pairLabel } from '@/app/lib/orientation';
import { usdPairLabel, type Currency } from '@/app/lib/usd';
import { usePreferences, useSelection, useUsdRates } from '@/app/providers/app-providers';

/**
 * How the page's prices read: in ADA or USD (lib/usd, docs/app.md "USD prices": for pairs against ADA,
 * on a market with a USD stablecoin pool; shown at once when asked, the stablecoins' statistics confirm
 * it meanwhile; in ADA the switch asks whether USD is available once the pair is there, not before the
 * first candles), inverted or not (in USD the price is the token's: never inverted), the pair's label
 * that follows. A URL without `cur` gets the currency last chosen.
 */
export function usePrices(current: ResolvedSymbol | undefined, fresh: ResolvedSymbol | undefined) {
  const currency = useSelection((s) => s.currency);
  const inverted = useSelection((s) => s.inverted);
  const select = useSelection((s) => s.select);
  const savedCurrency = usePreferences((s) => s.currency);
  const saveCurrency = usePreferences((s) => s.setCurrency);
  const usdRates = useUsdRates();
  const adaUsd = useAdaUsd({ enabled: currency === 'usd' || fresh !== undefined });
  const usdUnavailable =
    current && current.row.baseUnit !== ''
      ? `USD prices are for pairs against ADA (this one is priced in ${current.row.base})`
      : adaUsd.status === 'none' || adaUsd.status === 'error'
        ? adaUsd.reason
        : undefined;
  const usd = currency === 'usd' && usdUnavailable === undefined;
  const shownInverted = inverted && !usd;
  const shownCurrency: Currency = usd ? 'usd' : 'ada';
  const labelOf = useCallback(
    (row: { base: string; quote: string }) => (usd ? usdPairLabel(row) : pairLabel(row, shownInverted)),
    [usd, shownInverted],
  );

  const [initial] = useState(() => ({ url: currency, saved: savedCurrency }));
  useEffect(() => {
    if (initial.url === 'ada' && initial.saved === 'usd')
      select({ currency: 'usd', inverted: false }, { replace: true });
  }, [initial, select]);
  const changeCurrency = (next: Currency) => {
    saveCurrency(next);
    select(next === 'usd' ? { currency: next, inverted: false } : { currency: next });
  };

  return {
    usd,
    usdRates: usd ? usdRates : undefined,
    usdUnavailable,
    inverted,
    shownInverted,
    shownCurrency,
    labelOf,
    changeCurrency,
  };
}

export type Prices = ReturnType<typeof usePrices>;
