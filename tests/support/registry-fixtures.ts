import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { identiconPng } from '../../src/service/logos/identicon';

/**
 * CIP-26 token-registry mapping files (cardano-foundation/cardano-token-registry format) built in a
 * directory, covering the importer's good and bad cases.
 */

/** A property as the registry writes it: the value plus signatures and a sequence number. */
function property<T>(value: T) {
  return {
    value,
    sequenceNumber: 0,
    signatures: [{ signature: 'ab'.repeat(64), publicKey: 'cd'.repeat(32) }],
  };
}

export interface MappingInput {
  readonly subject: string;
  readonly name?: string;
  readonly ticker?: string;
  readonly decimals?: number;
  /** Raw logo bytes (written base64). */
  readonly logo?: Uint8Array;
  readonly description?: string;
}

/** The JSON text of one mapping file. */
export function mappingJson(input: MappingInput): string {
  const mapping: Record<string, unknown> = {
    subject: input.subject,
    policy: `82008200581c${input.subject.slice(0, 56)}`,
  };
  if (input.name !== undefined) mapping.name = property(input.name);
  mapping.description = property(input.description ?? `${input.name ?? 'A token'} for tests`);
  if (input.ticker !== undefined) mapping.ticker = property(input.ticker);
  if (input.decimals !== undefined) mapping.decimals = property(input.decimals);
  if (input.logo !== undefined) mapping.logo = property(Buffer.from(input.logo).toString('base64'));
  return JSON.stringify(mapping, null, 2);
}

/** Writes one mapping as `<subject>.json` (or `file`); returns the file name. */
export function writeMapping(dir: string, input: MappingInput, file = `${input.subject}.json`): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, file), mappingJson(input));
  return file;
}

const hex = (text: string) => Buffer.from(text, 'utf8').toString('hex');
const policy = (digit: string) => digit.repeat(56);

/** A small real PNG. */
export const FIXTURE_PNG = identiconPng('registry-fixture');
/** The start of a JPEG (JFIF) file: not a PNG. */
export const FIXTURE_JPEG = Uint8Array.from([
  0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00,
]);

/** Token units of the valid fixtures. */
export const REGISTRY_UNITS = {
  /** Ticker TKA, 6 decimals, PNG logo. */
  withLogo: policy('a') + hex('TOKA'),
  /** No ticker (falls back to the decoded asset name TOKB), no decimals (0), no logo. */
  withoutLogo: policy('b') + hex('TOKB'),
  /** Ticker JPG, a JPEG logo (reported; the token is kept). */
  jpegLogo: policy('c') + hex('JPGT'),
  /** Subject is a bare policy ID (empty asset name); no ticker: falls back to the name. */
  barePolicy: policy('d'),
  /** CIP-68 fungible-token label 0014df10 before the name; no ticker: falls back to CIPSIX. */
  cip68: `${policy('e')}0014df10${hex('CIPSIX')}`,
} as const;

/** The bad files, by file name, and a word their reason must contain. */
export const REGISTRY_BAD_FILES = {
  'broken.json': 'not valid JSON',
  'missing-name.json': 'name is required',
  'bad-subject.json': 'subject must be a policy ID',
} as const;

/** Writes every fixture (5 valid mappings, 3 bad files, 1 non-JSON file that is ignored) into `dir`. */
export function writeRegistryFixtures(dir: string): void {
  writeMapping(dir, {
    subject: REGISTRY_UNITS.withLogo,
    name: 'Token A',
    ticker: 'TKA',
    decimals: 6,
    logo: FIXTURE_PNG,
  });
  writeMapping(dir, { subject: REGISTRY_UNITS.withoutLogo, name: 'Token B' });
  writeMapping(dir, {
    subject: REGISTRY_UNITS.jpegLogo,
    name: 'Jpeg Token',
    ticker: 'JPG',
    decimals: 2,
    logo: FIXTURE_JPEG,
  });
  writeMapping(dir, { subject: REGISTRY_UNITS.barePolicy, name: 'Bare Policy', decimals: 3 });
  writeMapping(dir, { subject: REGISTRY_UNITS.cip68, name: 'CIP-68 Six', decimals: 6, logo: FIXTURE_PNG });
  writeFileSync(join(dir, 'broken.json'), '{ "subject": "aaaa", "name": ');
  writeMapping(dir, { subject: policy('f') + hex('NONAME'), ticker: 'NN' }, 'missing-name.json');
  writeMapping(dir, { subject: `${policy('1').slice(1)}00`, name: 'Odd Subject', ticker: 'ODD' }, 'bad-subject.json');
  writeFileSync(join(dir, 'README.md'), 'not a mapping: ignored (only *.json files are read)\n');
}
