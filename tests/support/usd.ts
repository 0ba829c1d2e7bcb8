import { historyResponseSchema } from '../../src/shared/api/history';
import { symbolInfoResponseSchema } from '../../src/shared/api/symbol-info';
import { tokenStatsSchema } from '../../src/shared/api/tokens';
import { STABLECOINS } from '../../src/app/lib/stablecoins';

/**
 * ADA/USD as tests expect it, computed from the gateway's own answers (not by the app's code): the
 * stablecoins' Aggregate pairs against ADA, each one's 1/price weighted by its TVL.
 */
export type Fetch = (input: string, init?: RequestInit) => Promise<Response>;

/** The stablecoins' Aggregate pools against ADA, from the symbol list. */
export async function stablePools(fetch: Fetch): Promise<string[]> {
  const body = symbolInfoResponseSchema.parse(await (await fetch('/gw/v1/symbol_info?group=Aggregate')).json());
  const units = new Set(STABLECOINS.map((c) => c.unit));
  return body.ticker.filter((_, i) => body['base-currency'][i] === '' && units.has(body.currency[i] ?? ''));
}

function weighted(quotes: readonly { price: number; tvl: number }[]): number {
  let weight = 0;
  let sum = 0;
  for (const { price, tvl } of quotes) {
    if (!(price > 0) || !(tvl > 0)) continue;
    weight += tvl;
    sum += tvl / price;
  }
  return sum / weight;
}

/** USD per ADA for the bar starting at `time` (wire resolution): each stablecoin's last bar at or before it. */
export async function rateAtTime(fetch: Fetch, time: number, resolution = '60min'): Promise<number> {
  const quotes: { price: number; tvl: number }[] = [];
  for (const pool of await stablePools(fetch)) {
    const body = historyResponseSchema.parse(
      await (
        await fetch(
          `/gw/v1/history?symbol=${pool}&resolution=${resolution}&to=${time + 1}&countback=1&include_tvl=true`,
        )
      ).json(),
    );
    quotes.push({ price: body.c[0] ?? 0, tvl: body.tvl?.[0] ?? 0 });
  }
  return weighted(quotes);
}

/** USD per ADA now: each stablecoin's /tokens/current?policy=. */
export async function rateNow(fetch: Fetch): Promise<number> {
  const quotes: { price: number; tvl: number }[] = [];
  for (const coin of STABLECOINS) {
    const response = await fetch(`/gw/v1/tokens/current?policy=${coin.unit}`);
    if (response.status === 404) continue;
    const stats = tokenStatsSchema.parse(await response.json());
    quotes.push({ price: stats.current_price, tvl: stats.current_tvl });
  }
  return weighted(quotes);
}
