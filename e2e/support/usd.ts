import { expect, type APIRequestContext } from '@playwright/test';
import { WIRE_RESOLUTION } from './chart';
import type { Origin } from './market';

/**
 * ADA/USD as the flows expect it, computed here from the gateway's answers (not by the app's code):
 * the USD stablecoins' Aggregate pairs against ADA, each one's 1/price weighted by its TVL.
 */

/** USDM, DJED, iUSD, USDA: their mainnet units (policy ID + asset name). */
export const STABLECOIN_UNITS = [
  'c48cbb3d5e57ed56e276bc45f99ab39abe94e6cd7ac39fb402da47ad0014df105553444d',
  '8db269c3ec630e06ae29f74bc39edd1f87c819f1056206e879a1cd61446a65644d6963726f555344',
  'f66d78b4a3cb3d37afa0ec36461e51ecbde00f26c8f0a68f94b6988069555344',
  'fe7c786ab321f41c654ef6c1af7b3250a613c24e4213e0425a7ae45655534441',
];

/** The stablecoins' Aggregate pools against ADA. */
export async function stablecoinPools(request: APIRequestContext, origin: Origin = ''): Promise<string[]> {
  const response = await request.get(`${origin}/gw/v1/symbol_info?group=Aggregate`);
  expect(response.ok()).toBe(true);
  const body = (await response.json()) as { ticker: string[]; currency: string[]; 'base-currency': string[] };
  return body.ticker.filter(
    (_, i) => body['base-currency'][i] === '' && STABLECOIN_UNITS.includes(body.currency[i] ?? ''),
  );
}

function weighted(quotes: readonly { price: number; tvl: number }[]): number {
  let weight = 0;
  let sum = 0;
  for (const { price, tvl } of quotes) {
    if (!(price > 0) || !(tvl > 0)) continue;
    weight += tvl;
    sum += tvl / price;
  }
  expect(weight, 'a stablecoin pool with liquidity').toBeGreaterThan(0);
  return sum / weight;
}

/** USD per ADA for the bar starting at `time` (app resolution): each stablecoin's last bar at or before it. */
export async function usdPerAdaAt(
  request: APIRequestContext,
  time: number,
  resolution = '60',
  origin: Origin = '',
): Promise<number> {
  const quotes: { price: number; tvl: number }[] = [];
  for (const pool of await stablecoinPools(request, origin)) {
    const response = await request.get(
      `${origin}/gw/v1/history?symbol=${pool}&resolution=${WIRE_RESOLUTION[resolution] ?? resolution}&to=${time + 1}&countback=1&include_tvl=true`,
    );
    expect(response.ok()).toBe(true);
    const body = (await response.json()) as { c?: number[]; tvl?: number[] };
    quotes.push({ price: body.c?.[0] ?? 0, tvl: body.tvl?.[0] ?? 0 });
  }
  return weighted(quotes);
}

/** USD per ADA now: each stablecoin's /tokens/current?policy=. */
export async function usdPerAdaNow(request: APIRequestContext, origin: Origin = ''): Promise<number> {
  const quotes: { price: number; tvl: number }[] = [];
  for (const unit of STABLECOIN_UNITS) {
    const response = await request.get(`${origin}/gw/v1/tokens/current?policy=${unit}`);
    if (response.status() === 404) continue;
    expect(response.ok()).toBe(true);
    const body = (await response.json()) as { current_price: number; current_tvl: number };
    quotes.push({ price: body.current_price, tvl: body.current_tvl });
  }
  return weighted(quotes);
}
