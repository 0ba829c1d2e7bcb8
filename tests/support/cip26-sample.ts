import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Real CIP-26 registry mapping files (cardano-foundation/cardano-token-registry, a sample kept beside the project in
 * ../shared/data/cip26-sample, never committed), read at test time.
 */
export const CIP26_SAMPLE_DIR = '/work/shared/data/cip26-sample';

/** Every mapping of the sample, parsed, by subject (lowercase). */
export function cip26Mappings(): Map<string, Record<string, unknown>> {
  const mappings = new Map<string, Record<string, unknown>>();
  for (const file of readdirSync(CIP26_SAMPLE_DIR)
    .filter((f) => f.endsWith('.json'))
    .sort()) {
    const mapping = JSON.parse(readFileSync(join(CIP26_SAMPLE_DIR, file), 'utf8')) as Record<string, unknown>;
    mappings.set(String(mapping.subject).toLowerCase(), mapping);
  }
  return mappings;
}

/** The sample's mapping of the token with this ticker (its registry `ticker.value`), or an error naming it. */
export function cip26ByTicker(ticker: string): Record<string, unknown> {
  for (const mapping of cip26Mappings().values())
    if ((mapping.ticker as { value?: unknown } | undefined)?.value === ticker) return mapping;
  throw new Error(`no mapping with ticker ${ticker} in ${CIP26_SAMPLE_DIR}`);
}
