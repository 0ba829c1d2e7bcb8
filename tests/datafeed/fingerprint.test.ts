import { describe, expect, it } from 'vitest';
import { assetFingerprint, isAssetFingerprint } from '../../src/datafeed/fingerprint';

/** The test vectors of CIP-14 (policy ID, asset name, fingerprint). */
const CIP14_VECTORS: readonly (readonly [string, string, string])[] = [
  ['7eae28af2208be856f7a119668ae52a49b73725e326dc16579dcc373', '', 'asset1rjklcrnsdzqp65wjgrg55sy9723kw09mlgvlc3'],
  ['7eae28af2208be856f7a119668ae52a49b73725e326dc16579dcc37e', '', 'asset1nl0puwxmhas8fawxp8nx4e2q3wekg969n2auw3'],
  ['1e349c9bdea19fd6c147626a5260bc44b71635f398b67c59881df209', '', 'asset1uyuxku60yqe57nusqzjx38aan3f2wq6s93f6ea'],
  [
    '7eae28af2208be856f7a119668ae52a49b73725e326dc16579dcc373',
    '504154415445',
    'asset13n25uv0yaf5kus35fm2k86cqy60z58d9xmde92',
  ],
  [
    '1e349c9bdea19fd6c147626a5260bc44b71635f398b67c59881df209',
    '504154415445',
    'asset1hv4p5tv2a837mzqrst04d0dcptdjmluqvdx9k3',
  ],
  [
    '1e349c9bdea19fd6c147626a5260bc44b71635f398b67c59881df209',
    '7eae28af2208be856f7a119668ae52a49b73725e326dc16579dcc373',
    'asset1aqrdypg669jgazruv5ah07nuyqe0wxjhe2el6f',
  ],
  [
    '7eae28af2208be856f7a119668ae52a49b73725e326dc16579dcc373',
    '1e349c9bdea19fd6c147626a5260bc44b71635f398b67c59881df209',
    'asset17jd78wukhtrnmjh3fngzasxm8rck0l2r4hhyyt',
  ],
  [
    '7eae28af2208be856f7a119668ae52a49b73725e326dc16579dcc373',
    '00'.repeat(32),
    'asset1pkpwyknlvul7az0xx8czhl60pyel45rpje4z8w',
  ],
];

describe('assetFingerprint', () => {
  it.each(CIP14_VECTORS)('policy %s, name "%s" -> %s', (policyId, assetName, expected) => {
    expect(assetFingerprint(policyId, assetName)).toBe(expected);
    expect(isAssetFingerprint(expected)).toBe(true);
  });

  it('accepts hex in either case', () => {
    const [policyId, assetName, expected] = CIP14_VECTORS[3] ?? ['', '', ''];
    expect(assetFingerprint(policyId.toUpperCase(), assetName.toUpperCase())).toBe(expected);
  });

  it('refuses a malformed policy ID or asset name', () => {
    expect(() => assetFingerprint('', '')).toThrow(RangeError);
    expect(() => assetFingerprint('7eae28af', '')).toThrow(/policy ID/);
    expect(() => assetFingerprint('7eae28af2208be856f7a119668ae52a49b73725e326dc16579dcc373', '504')).toThrow(
      /asset name/,
    );
    expect(() => assetFingerprint('7eae28af2208be856f7a119668ae52a49b73725e326dc16579dcc373', '00'.repeat(33))).toThrow(
      /asset name/,
    );
    expect(isAssetFingerprint('asset1rjklcrnsdzqp65wjgrg55sy9723kw09mlgvlc')).toBe(false);
  });
});

describe("the fingerprint's bech32", () => {
  it("is @scure/base's bech32 for random digests, checksum included", async () => {
    const { bech32 } = await import('@scure/base');
    const { blake2b } = await import('@noble/hashes/blake2.js');
    for (let i = 0; i < 300; i++) {
      const policy = Array.from({ length: 28 }, (_, k) => ((i * 31 + k * 7) % 256).toString(16).padStart(2, '0')).join(
        '',
      );
      const name = Array.from({ length: i % 33 }, (_, k) => ((i + k * 13) % 256).toString(16).padStart(2, '0')).join(
        '',
      );
      const digest = blake2b(Uint8Array.from(Buffer.from(policy + name, 'hex')), { dkLen: 20 });
      expect(assetFingerprint(policy, name)).toBe(bech32.encode('asset', bech32.toWords(digest)));
    }
  });
});
