import { readFileSync } from 'node:fs';

/**
 * Real mainnet CIP-68 reference datums (tests/fixtures/identity/cip68-reference-datums.json; where each comes from is
 * in that folder's README), with what they say written by hand: the reference NFT's unit, its fungible token's, the
 * datum (CBOR hex) and the expected metadata.
 */
export interface Cip68Fixture {
  readonly unit: string;
  readonly ftUnit: string;
  readonly datum: string;
  readonly expected: {
    readonly name: string;
    readonly ticker: string;
    readonly decimals: number;
    readonly description: string | null;
    readonly url: string | null;
    readonly logo: string | null;
  };
}

export const CIP68_DATUMS = JSON.parse(
  readFileSync(new URL('../fixtures/identity/cip68-reference-datums.json', import.meta.url), 'utf8'),
) as readonly Cip68Fixture[];

/** The fixture of the token with this ticker (throws when there is none). */
export function cip68ByTicker(ticker: string): Cip68Fixture {
  const found = CIP68_DATUMS.find((d) => d.expected.ticker === ticker);
  if (!found) throw new Error(`no CIP-68 fixture of ${ticker}`);
  return found;
}
