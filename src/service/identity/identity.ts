import { ADA_UNIT, displayAssetName, splitTokenUnit } from '../../shared/id-rules';
import { visibleText } from '../../shared/visible-text';
import { CATALOG } from '../market/catalog';
import type { Market } from '../market/model';
import type { IdentityRow, IdentitySourceName } from '../store/ports';
import { referenceUnitOf } from './cip68';

/**
 * Who a token is: its name, ticker, decimals, description, site and logo, and where that comes from. Sources, most
 * trusted first (docs/chain.md "Token identity"):
 * 1. `cip68`: the datum of the token's CIP-68 reference NFT, on chain;
 * 2. `registry`: the CIP-26 token registry (a mappings directory imported, or a metadata server asked);
 * 3. `asset-name`: nothing but the asset name (unverified: anyone can mint a token named like another).
 * The first source that knows a token gives its identity whole; a field it lacks takes the default (name and ticker
 * from the asset name, decimals 0), except the logo, which falls back to the next source's.
 */
export type IdentitySource = 'cip68' | 'registry' | 'asset-name';

/** Sources that are records of their own (the asset name is always known). */
export type RecordSource = IdentitySourceName;

/** The order sources are trusted in. */
export const RECORD_SOURCES: readonly RecordSource[] = ['cip68', 'registry'];

/** What one source says of a token: a row of the store's `token_identity` (store/ports.ts). */
export type IdentityRecord = IdentityRow;

/** A token's identity as served. */
export interface TokenIdentity {
  readonly unit: string;
  readonly source: IdentitySource;
  readonly name: string;
  readonly ticker: string;
  readonly decimals: number;
  readonly description: string | undefined;
  readonly url: string | undefined;
  /** The logo to use (see IdentityRecord.logo), from the first source that has one. */
  readonly logo: string | undefined;
}

export const ADA_IDENTITY: TokenIdentity = {
  unit: ADA_UNIT,
  source: 'registry',
  name: 'Cardano',
  ticker: 'ADA',
  decimals: 6,
  description: undefined,
  url: 'https://cardano.org/',
  logo: undefined,
};

/**
 * The ticker of a new token without one: its decoded asset name when printable, else its name; with
 * invisible and bidi-control characters written out (`SNEK\u200B`, `\u202EKENS`): a ticker made here
 * from a name anyone can mint never passes for another on screen (symbol names do the same with any
 * ticker, `SymbolNames`).
 */
export function fallbackTicker(unit: string, name: string): string {
  const { assetName } = splitTokenUnit(unit);
  const decoded = displayAssetName(assetName);
  return visibleText(assetName !== '' && decoded !== assetName ? decoded : name);
}

/** A token's name from its asset name alone: the printable text, else the short policy and name. */
export function assetNameOnly(unit: string): { name: string; ticker: string } {
  const { policyId, assetName } = splitTokenUnit(unit);
  const decoded = displayAssetName(assetName);
  const text = assetName !== '' && decoded !== assetName;
  const name = text ? decoded : `${policyId.slice(0, 8)}…${assetName.slice(0, 8)}`;
  return { name: visibleText(name), ticker: visibleText(name) };
}

/** The identity of `unit` from what its sources say (`records` in any order; unknown sources ignored). */
export function identityOf(unit: string, records: readonly IdentityRecord[]): TokenIdentity {
  if (unit === ADA_UNIT) return ADA_IDENTITY;
  const bySource = new Map(records.filter((r) => r.unit === unit).map((r) => [r.source, r]));
  const fallback = assetNameOnly(unit);
  const logo = RECORD_SOURCES.map((source) => bySource.get(source)?.logo).find((l) => l !== undefined);
  const first = RECORD_SOURCES.map((source) => bySource.get(source)).find((r) => r !== undefined);
  if (!first)
    return { unit, source: 'asset-name', ...fallback, decimals: 0, description: undefined, url: undefined, logo };
  const name = first.name !== undefined ? visibleText(first.name) : fallback.name;
  return {
    unit,
    source: first.source,
    name,
    ticker: first.ticker !== undefined ? visibleText(first.ticker) : fallbackTicker(unit, name),
    decimals: first.decimals ?? 0,
    description: first.description,
    url: first.url,
    logo,
  };
}

/** Units of the simulated market's catalogue tokens (market/catalog.ts): real tokens with their real identities. */
const CATALOG_UNITS = new Set(CATALOG.map((t) => t.policyId + t.assetName));

/**
 * Where the identity a market serves for `unit` comes from, with the description and site its source gave (`/api/x`
 * token answers): what the token's records make of it. The simulated market keeps no records: its catalogue tokens
 * carry their real public identities, copied from their real source (`cip68` for a CIP-68 token such as USDM, whose
 * metadata is its reference datum on chain; `registry` for the others), and every generated token is `asset-name`
 * (docs/decisions.md "The simulated market's token sources").
 */
export function servedIdentity(
  market: Market,
  unit: string,
  simulated: boolean,
): Pick<TokenIdentity, 'source' | 'description' | 'url'> {
  if (market.identities.has(unit) || unit === ADA_UNIT) {
    const { source, description, url } = identityOf(unit, market.identityRecords(unit));
    return { source, description, url };
  }
  const source = simulated && CATALOG_UNITS.has(unit) ? (referenceUnitOf(unit) ? 'cip68' : 'registry') : 'asset-name';
  return { source, description: undefined, url: undefined };
}

/**
 * What a registry entry (importers/registry.ts: a mapping file's, or a metadata server's answer) says of its token, as
 * a record. The logo stays with the entry's bytes (`png:` + their SHA-256).
 */
export function registryRecord(
  entry: Pick<IdentityRow, 'unit' | 'name' | 'ticker' | 'decimals' | 'description' | 'url'>,
  at: number,
  logoHash?: string,
): IdentityRecord {
  return {
    unit: entry.unit,
    source: 'registry',
    name: entry.name,
    ticker: entry.ticker,
    decimals: entry.decimals,
    description: entry.description,
    url: entry.url,
    logo: logoHash ? `png:${logoHash}` : undefined,
    at,
  };
}
