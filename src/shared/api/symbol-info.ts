import * as z from 'zod/mini';

const strings = z.array(z.string());

/** Columnar symbol information (spec "Symbol information"); the hyphenated keys are the wire's. */
export const symbolInfoResponseSchema = z
  .strictObject({
    s: z.literal('ok'),
    symbol: strings,
    description: strings,
    currency: strings,
    'base-currency': strings,
    'exchange-listed': strings,
    'exchange-traded': strings,
    ticker: strings,
    type: strings,
    timezone: strings,
    'session-regular': strings,
    pricescale: z.array(z.int().check(z.positive())),
    minmovement: z.array(z.number().check(z.positive())),
    'has-intraday': z.array(z.boolean()),
  })
  .check(
    z.refine((body) => {
      const n = body.symbol.length;
      return Object.values(body).every((value) => typeof value === 'string' || value.length === n);
    }, 'all arrays must have the same length'),
  );
export type SymbolInfoResponse = z.infer<typeof symbolInfoResponseSchema>;

/** One row of the columnar response, for code that works symbol by symbol. */
export interface SymbolInfoRow {
  readonly symbol: string;
  readonly description: string;
  readonly currency: string;
  readonly baseCurrency: string;
  readonly exchange: string;
  readonly ticker: string;
  readonly type: string;
  readonly timezone: string;
  readonly session: string;
  readonly pricescale: number;
  readonly minmovement: number;
  readonly hasIntraday: boolean;
}

/** Splits the columnar response into rows. */
export function symbolInfoRows(body: SymbolInfoResponse): SymbolInfoRow[] {
  return body.symbol.map((symbol, i) => ({
    symbol,
    description: body.description[i] ?? '',
    currency: body.currency[i] ?? '',
    baseCurrency: body['base-currency'][i] ?? '',
    exchange: body['exchange-listed'][i] ?? '',
    ticker: body.ticker[i] ?? '',
    type: body.type[i] ?? 'spot',
    timezone: body.timezone[i] ?? 'Etc/UTC',
    session: body['session-regular'][i] ?? '24x7',
    pricescale: body.pricescale[i] ?? 1,
    minmovement: body.minmovement[i] ?? 1,
    hasIntraday: body['has-intraday'][i] ?? true,
  }));
}
