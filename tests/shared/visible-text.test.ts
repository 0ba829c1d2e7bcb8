import { describe, expect, it } from 'vitest';
import { hasInvisible, lookAlikeKey, visibleText } from '../../src/shared/visible-text';

/** The look-alikes of issue 29, and more of the same kind. */
const LOOK_ALIKES = {
  zeroWidthSpace: 'SNEK\u200B',
  wordJoiner: 'SNEK\u2060',
  rightToLeftOverride: '\u202EKENS',
  zeroWidthJoiner: 'S\u200DNEK',
  byteOrderMark: '\uFEFFSNEK',
  softHyphen: 'SN\u00ADEK',
  isolate: '\u2066SNEK\u2069',
  tag: 'SNEK\u{E0041}',
  hangulFiller: 'SNEK\u3164',
  variationSelector: 'SNEK\uFE0F',
};

describe('visibleText', () => {
  it('writes out every invisible and bidi-control character as its escape', () => {
    expect(visibleText(LOOK_ALIKES.zeroWidthSpace)).toBe('SNEK\\u200B');
    expect(visibleText(LOOK_ALIKES.wordJoiner)).toBe('SNEK\\u2060');
    expect(visibleText(LOOK_ALIKES.rightToLeftOverride)).toBe('\\u202EKENS');
    expect(visibleText(LOOK_ALIKES.tag)).toBe('SNEK\\u{E0041}');
    expect(visibleText('a\tb\nc\u2028')).toBe('a\\u0009b\\u000Ac\\u2028');
    for (const text of Object.values(LOOK_ALIKES)) {
      const shown = visibleText(text);
      expect(hasInvisible(shown), shown).toBe(false);
      expect(shown).not.toBe(text);
    }
  });

  it('leaves visible text alone, whatever its script, and is idempotent', () => {
    for (const text of ['SNEK', 'ＳＮＥＫ', 'Ĳ', 'ΔΣ', 'スネーク', 'a b', 'iUSD', '$hosky', '']) {
      expect(visibleText(text)).toBe(text);
      expect(hasInvisible(text)).toBe(false);
    }
    for (const text of Object.values(LOOK_ALIKES)) expect(visibleText(visibleText(text))).toBe(visibleText(text));
  });
});

describe('lookAlikeKey', () => {
  it('gives the look-alikes the key of the name they imitate', () => {
    for (const [what, text] of Object.entries(LOOK_ALIKES)) {
      if (what === 'rightToLeftOverride') continue;
      expect(lookAlikeKey(text), what).toBe('SNEK');
    }
    expect(lookAlikeKey('ＳＮＥＫ')).toBe('SNEK');
    expect(lookAlikeKey('snek')).toBe('SNEK');
    expect(lookAlikeKey('\uFB01nance')).toBe('FINANCE');
  });

  it('keeps names that differ on screen apart', () => {
    expect(lookAlikeKey('SNEK')).not.toBe(lookAlikeKey('SNEKK'));
    expect(lookAlikeKey(LOOK_ALIKES.rightToLeftOverride)).toBe('KENS');
  });
});
