import { describe, expect, it } from 'vitest';
import { DatumError } from '../../../src/service/chain/plutus';
import { decodeCip68Datum, fungibleUnitOf, referenceUnitOf } from '../../../src/service/identity/cip68';
import { logoReference } from '../../../src/service/identity/resolver';
import { CIP68_DATUMS } from '../../support/cip68-fixtures';

/** Real mainnet reference datums (tests/fixtures/identity, provenance in its README), expected values read by hand. */
const FIXTURES = CIP68_DATUMS;

/** Plutus data as CBOR hex, written by hand for the hostile cases. */
const bytes = (text: string) => {
  const b = Buffer.from(text, 'utf8');
  if (b.length > 23) throw new Error('short strings only');
  return (0x40 + b.length).toString(16).padStart(2, '0') + b.toString('hex');
};

describe('CIP-68 reference datums', () => {
  it.each(FIXTURES.map((f) => [f.expected.ticker, f] as const))(
    'reads %s as it is on mainnet: name, ticker, decimals, description, site and logo',
    (_ticker, fixture) => {
      expect(referenceUnitOf(fixture.ftUnit)).toBe(fixture.unit);
      expect(fungibleUnitOf(fixture.unit)).toBe(fixture.ftUnit);
      const { metadata, ignored } = decodeCip68Datum(fixture.datum, fixture.unit);
      const { expected } = fixture;
      expect({
        name: metadata.name,
        ticker: metadata.ticker,
        decimals: metadata.decimals ?? null,
        description: metadata.description,
      }).toEqual({
        name: expected.name,
        ticker: expected.ticker,
        decimals: expected.decimals,
        description: expected.description,
      });
      // FLDT's site is under `website`, read as its url (the fixture's `url` is the datum's own key, absent).
      if (expected.ticker === 'FLDT') expect(metadata.url).toBe('https://fluidtokens.com/');
      else expect(metadata.url ?? null).toBe(expected.url);
      const logo = metadata.logo ? logoReference(metadata.logo) : null;
      // A bare CID (Hustler's) is read as the IPFS URI it names.
      expect(logo).toBe(expected.logo && !/^[a-z]+:/.test(expected.logo) ? `ipfs://${expected.logo}` : expected.logo);
      expect(ignored).toEqual([]);
    },
  );

  it('holds at least six real datums, among them a two-field one (USDM) and one of version 0 (GNRC)', () => {
    expect(FIXTURES.length).toBeGreaterThanOrEqual(6);
    expect(FIXTURES.map((f) => f.expected.ticker)).toEqual(expect.arrayContaining(['USDM', 'GNRC', 'FLDT']));
  });

  it('finds the reference NFT of fungible, NFT and rich tokens only', () => {
    const policy = 'c48cbb3d5e57ed56e276bc45f99ab39abe94e6cd7ac39fb402da47ad';
    expect(referenceUnitOf(`${policy}0014df105553444d`)).toBe(`${policy}000643b05553444d`);
    expect(referenceUnitOf(`${policy}000de1405553444d`)).toBe(`${policy}000643b05553444d`);
    expect(referenceUnitOf(`${policy}5553444d`)).toBeUndefined();
    expect(referenceUnitOf(`${policy}000643b05553444d`)).toBeUndefined();
    expect(referenceUnitOf('not a unit')).toBeUndefined();
  });

  it('ignores unusable fields by name and keeps the rest', () => {
    // Constr 0 [{name: "Ok", decimals: 300, ticker: 7, logo: [1]}, 1]
    const datum = `d8799fa4${bytes('name')}${bytes('Ok')}${bytes('decimals')}19012c${bytes('ticker')}07${bytes('logo')}9f01ff01ff`;
    const { metadata, ignored } = decodeCip68Datum(datum);
    expect(metadata).toMatchObject({ name: 'Ok', decimals: undefined, ticker: undefined, logo: undefined, version: 1 });
    expect([...ignored].sort()).toEqual([
      'decimals 300 is outside 0-19',
      'logo is neither bytes nor a list of byte chunks',
      'ticker is neither bytes nor a list of byte chunks',
    ]);
  });

  it('joins a logo given as a list of byte chunks', () => {
    const datum = `d8799fa1${bytes('logo')}9f${bytes('data:image/png;')}${bytes('base64,iVBORw0KGgo=')}ff01ff`;
    expect(decodeCip68Datum(datum).metadata.logo?.toString()).toBe('data:image/png;base64,iVBORw0KGgo=');
  });

  it.each([
    ['not Plutus data (a text string)', '6161'],
    ['not a constructor', `a1${bytes('name')}${bytes('x')}`],
    ['another constructor', `d87a9fa0 01ff`.replace(' ', '')],
    ['one field only', 'd8799fa0ff'],
    ['metadata that is not a map', 'd8799f8001ff'],
    ['a negative version', 'd8799fa020ff'],
    ['a shared-reference bomb', 'd8799fd81c4100d81d00ff'],
  ])('refuses %s with a DatumError', (_what, datum) => {
    expect(() => decodeCip68Datum(datum)).toThrow(DatumError);
  });
});
