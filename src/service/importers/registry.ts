import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { isTokenUnit } from '../../shared/id-rules';
import { fallbackTicker, identityOf, registryRecord } from '../identity/identity';
import { isPng } from '../logos/identicon';
import { LOGO_NONE, LOGO_STORED, type Market } from '../market/model';
import type { Ingestor } from '../market/ingest';
import type { IdentityRow, MarketStore } from '../store/ports';

/**
 * Importer of CIP-26 token-registry mappings (the format of cardano-foundation/cardano-token-registry:
 * one `<subject>.json` file per token, each property an object with a `value`). See docs/importers.md.
 *
 * Rules:
 * - Every `*.json` file of the directory is read, in name order; other files are ignored.
 * - `subject` = policy ID (56 hex) + asset name (0-64 hex, even length); `name.value` is required;
 *   `ticker.value`, `decimals.value` (integer 0-19, default 0) and `logo.value` (base64) are optional.
 *   A file that is not JSON or not such a mapping is skipped and reported with the reason; so is a
 *   second file with a subject already seen in the same run.
 * - A logo that is not a PNG is reported and ignored; the rest of the token's metadata is kept.
 * - Unknown tokens are added. Known tokens get the registry's ticker, name and decimals, in a pool or
 *   not: reserves, trades and bars are stored in raw units and every answer applies the decimals known
 *   when it is made (docs/decisions.md "Raw units in the store, decimals at the edge").
 * - Without a ticker, a new token's ticker is its decoded asset name (CIP-67/68 labels stripped) when
 *   that is printable text, else its name; a known token keeps its ticker.
 * - Each entry is also kept as the token's `registry` identity record (docs/chain.md "Token identity"), beside
 *   what other sources said; a token with on-chain (CIP-68) metadata keeps its name, ticker and decimals from it.
 * - One transaction per run; a re-run with the same files changes nothing.
 */

/** A file, and what was wrong with it (or with part of it). */
export interface RegistryIssue {
  readonly file: string;
  readonly reason: string;
}

/** What an import did. Units are lowercase token units. */
export interface RegistryReport {
  /** `*.json` files read. */
  readonly files: number;
  /** Units of the tokens added. */
  readonly added: string[];
  /** Units of known tokens whose ticker, name, decimals or logo changed. */
  readonly updated: string[];
  /** Known tokens the run left as they were. */
  unchanged: number;
  /** Logos written (for added or updated tokens). */
  logosStored: number;
  /** Files skipped entirely, with the reason. */
  readonly skipped: RegistryIssue[];
  /** Logos ignored (the rest of the file was imported). */
  readonly logosRejected: RegistryIssue[];
}

/** The parts of an opened store (`MarketHandle`) the importer needs. */
export interface RegistryTarget {
  readonly store: { readonly market: MarketStore };
  readonly market: Market;
  readonly ingestor: Ingestor;
}

/** Largest decimals the store accepts. */
const MAX_DECIMALS = 19;

/** A CIP-26 property: an object whose `value` holds the data (signatures etc. are ignored). */
function property<T extends z.ZodType>(name: string, value: T, expected: string) {
  return z.looseObject(
    { value },
    {
      error: (issue) =>
        issue.input === undefined ? `${name} is required` : `${name} must be an object with a value (${expected})`,
    },
  );
}

const mappingSchema = z.looseObject({
  subject: z
    .string({ error: (issue) => (issue.input === undefined ? 'subject is missing' : 'subject must be a string') })
    .refine(
      isTokenUnit,
      'subject must be a policy ID (56 hex characters) followed by an asset name (0 to 64 hex characters, even length)',
    ),
  name: property(
    'name',
    z.string({ error: 'name.value must be a string' }).trim().min(1, 'name.value must not be empty'),
    'a string',
  ),
  ticker: property('ticker', z.string({ error: 'ticker.value must be a string' }).trim(), 'a string').optional(),
  decimals: property(
    'decimals',
    z
      .number({ error: 'decimals.value must be a number' })
      .int('decimals.value must be a whole number')
      .min(0, 'decimals.value must be at least 0')
      .max(MAX_DECIMALS, `decimals.value must be at most ${MAX_DECIMALS}`),
    'an integer',
  ).optional(),
  logo: property('logo', z.string({ error: 'logo.value must be a base64 string' }), 'a base64 string').optional(),
  // Optional, and never a reason to skip a mapping: a malformed one is dropped (`optionalText`).
  description: z.unknown().optional(),
  url: z.unknown().optional(),
});

/** Longest description and URL kept (the registry's own limits: 500 and 250 characters). */
const MAX_DESCRIPTION = 500;
const MAX_URL = 250;

/** An optional text property's value, trimmed; undefined when absent, empty, too long or not a string. */
function optionalText(property: unknown, max: number): string | undefined {
  if (typeof property !== 'object' || property === null || !('value' in property)) return undefined;
  const value = (property as { value: unknown }).value;
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim();
  return trimmed === '' || trimmed.length > max ? undefined : trimmed;
}

/** A site's address as a token may give it: an https URL, else nothing (the registry requires https). */
export function siteUrl(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' && url.hostname !== '' ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** The metadata of one registry file, validated. */
export interface RegistryEntry {
  readonly unit: string;
  readonly name: string;
  /** Undefined when the mapping has no (non-empty) ticker. */
  readonly ticker: string | undefined;
  readonly decimals: number;
  /** The logo's base64 text, when the mapping has one. */
  readonly logo: string | undefined;
  readonly description: string | undefined;
  /** The token's site (https only). */
  readonly url: string | undefined;
}

/** Parses one mapping file's text; returns the entry or the reason it is not a valid mapping. */
export function parseRegistryEntry(text: string): { entry: RegistryEntry } | { error: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    return { error: `not valid JSON (${(error as Error).message})` };
  }
  return registryEntryOf(raw);
}

/** One mapping, as a registry file or a metadata server's answer holds it: the entry, or why it is not a valid mapping. */
export function registryEntryOf(raw: unknown): { entry: RegistryEntry } | { error: string } {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    return { error: 'not a mapping: expected a JSON object' };
  const parsed = mappingSchema.safeParse(raw);
  if (!parsed.success) {
    return { error: parsed.error.issues.map((issue) => issue.message).join('; ') };
  }
  const { subject, name, ticker, decimals, logo, description, url } = parsed.data;
  const tickerValue = ticker?.value;
  return {
    entry: {
      unit: subject.toLowerCase(),
      name: name.value,
      ticker: tickerValue === undefined || tickerValue === '' ? undefined : tickerValue,
      decimals: decimals?.value ?? 0,
      logo: logo?.value,
      description: optionalText(description, MAX_DESCRIPTION),
      url: siteUrl(optionalText(url, MAX_URL)),
    },
  };
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The logo's PNG bytes, or why it cannot be used. */
function decodeLogo(base64: string): { png: Buffer } | { error: string } {
  const compact = base64.replace(/\s+/g, '');
  if (compact === '') return { error: 'logo is empty' };
  if (!BASE64.test(compact)) return { error: 'logo is not valid base64' };
  const bytes = Buffer.from(compact, 'base64');
  if (isPng(bytes)) return { png: bytes };
  const kind = bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff ? ' (it is a JPEG image)' : '';
  return { error: `logo is not a PNG${kind}; logo ignored, the rest of the token kept` };
}

/**
 * Imports every `*.json` CIP-26 mapping of `dir` into the store, in one transaction, and returns what
 * it did. Throws only when the directory cannot be read or the store fails: nothing is then written,
 * but the in-memory market may already hold some of the run's changes, so close the handle and reopen.
 */
export async function importRegistry(
  target: RegistryTarget,
  dir: string,
  now: number = Date.now() / 1000,
): Promise<RegistryReport> {
  const files = readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.toLowerCase().endsWith('.json'))
    .map((entry) => entry.name)
    .sort();
  const report: RegistryReport = {
    files: files.length,
    added: [],
    updated: [],
    unchanged: 0,
    logosStored: 0,
    skipped: [],
    logosRejected: [],
  };
  const { store, market, ingestor } = target;
  const seen = new Map<string, string>();

  // The whole import is one commit: all of it or none of it.
  {
    for (const file of files) {
      let text: string;
      try {
        text = readFileSync(join(dir, file), 'utf8');
      } catch (error) {
        report.skipped.push({ file, reason: `cannot be read (${(error as Error).message})` });
        continue;
      }
      const parsed = parseRegistryEntry(text);
      if ('error' in parsed) {
        report.skipped.push({ file, reason: parsed.error });
        continue;
      }
      const { entry } = parsed;
      const first = seen.get(entry.unit);
      if (first !== undefined) {
        report.skipped.push({ file, reason: `subject ${entry.unit} was already imported from ${first}` });
        continue;
      }
      seen.set(entry.unit, file);

      let png: Buffer | undefined;
      if (entry.logo !== undefined) {
        const logo = decodeLogo(entry.logo);
        if ('error' in logo)
          report.logosRejected.push({ file, reason: `${entry.ticker ?? entry.name}: ${logo.error}` });
        else png = logo.png;
      }

      const record = registryRecord(entry, now, png ? createHash('sha256').update(png).digest('hex') : undefined);
      const stored = market.identities.get(entry.unit);
      if (!sameRecord(stored?.get('registry'), record)) ingestor.setIdentity(record);

      const known = market.tokens.get(entry.unit);
      // On-chain metadata (CIP-68) comes first: a token that has some keeps the name, ticker and decimals it gives.
      const onChain = stored?.has('cip68') === true;
      if (!known) {
        const identity = onChain ? identityOf(entry.unit, market.identityRecords(entry.unit)) : undefined;
        const token = ingestor.addToken({
          unit: entry.unit,
          ticker: identity?.ticker ?? entry.ticker ?? fallbackTicker(entry.unit, entry.name),
          name: identity?.name ?? entry.name,
          decimals: identity?.decimals ?? entry.decimals,
          logoKind: LOGO_NONE,
        });
        if (png) {
          ingestor.setLogo(token, LOGO_STORED, png);
          report.logosStored++;
        }
        report.added.push(entry.unit);
        continue;
      }

      let changed = false;
      const { decimals } = entry;
      const ticker = entry.ticker ?? known.ticker;
      if (!onChain && (ticker !== known.ticker || entry.name !== known.name || decimals !== known.decimals)) {
        ingestor.updateToken(known, { ticker, name: entry.name, decimals });
        changed = true;
      }
      if (png && !(known.logoKind === LOGO_STORED && (await store.market.logo(known.id))?.equals(png) === true)) {
        ingestor.setLogo(known, LOGO_STORED, png);
        report.logosStored++;
        changed = true;
      }
      if (changed) report.updated.push(entry.unit);
      else report.unchanged++;
    }
  }
  await ingestor.commit();
  return report;
}

/** Whether a stored record says what `record` says (their times aside). */
function sameRecord(stored: IdentityRow | undefined, record: IdentityRow): boolean {
  return (
    stored !== undefined &&
    (['name', 'ticker', 'decimals', 'description', 'url', 'logo'] as const).every((key) => stored[key] === record[key])
  );
}

/** The report as printable lines (the CLI's summary). */
export function formatRegistryReport(report: RegistryReport): string[] {
  const lines = [
    `Read ${report.files} mapping file(s): ${report.added.length} token(s) added, ${report.updated.length} updated, ` +
      `${report.unchanged} unchanged, ${report.logosStored} logo(s) stored, ${report.skipped.length} file(s) skipped.`,
  ];
  const section = (title: string, issues: readonly RegistryIssue[]) => {
    if (issues.length === 0) return;
    lines.push(`${title} (${issues.length}):`);
    for (const issue of issues) lines.push(`  ${issue.file}: ${issue.reason}`);
  };
  section('Skipped files', report.skipped);
  section('Logos not imported', report.logosRejected);
  return lines;
}
