/**
 * Names anyone can choose (on-chain asset names, registry tickers, imported tokens) shown so that two
 * that look alike cannot pass for one another: characters that show nothing, or that reorder what
 * follows, are written out as `\u202E`, and names are compared for look-alikes after Unicode
 * normalisation (an attacker's `SNEK` + a zero-width space, + a word joiner, `U+202E` + `KENS`).
 */

/**
 * Characters that show nothing or move other characters, Unicode properties from the Unicode Character
 * Database (UAX #44) as JavaScript knows them:
 * - `\p{C}`: controls, format characters (zero-width space U+200B, word joiner U+2060, the bidi
 *   embeddings, overrides and isolates U+202A–U+202E and U+2066–U+2069, the byte-order mark U+FEFF,
 *   tags U+E0000–U+E007F), surrogates, private use and unassigned code points (their glyph, if any, is
 *   a font's choice);
 * - `\p{Zl}`, `\p{Zp}`: the line and paragraph separators U+2028, U+2029;
 * - `\p{Default_Ignorable_Code_Point}`: what a renderer shows nothing for when it cannot (Hangul fillers
 *   U+115F, U+1160, U+3164, variation selectors, the combining grapheme joiner U+034F...);
 * - `\p{Bidi_Control}`: the bidi controls (also in `\p{C}`, named for the reader);
 * - U+2800 (braille pattern blank), a character of a script that renders as nothing.
 */
const INVISIBLE_SOURCE = '[\\p{C}\\p{Zl}\\p{Zp}\\p{Default_Ignorable_Code_Point}\\p{Bidi_Control}\\u2800]';
const INVISIBLE = new RegExp(INVISIBLE_SOURCE, 'gu');
/** Printable ASCII: nothing to write out, and its own NFKC form (the common case, answered without Unicode work). */
const PLAIN = /^[\x20-\x7e]*$/;

/** Whether `text` holds a character {@link visibleText} would write out. */
export function hasInvisible(text: string): boolean {
  return !PLAIN.test(text) && new RegExp(INVISIBLE_SOURCE, 'u').test(text);
}

/** One character as the escape JavaScript would write: `\u202E`, `\u{E0041}` above U+FFFF. */
function escapeOf(char: string): string {
  const code = char.codePointAt(0) ?? 0;
  const hex = code.toString(16).toUpperCase();
  return code > 0xffff ? `\\u{${hex}}` : `\\u${hex.padStart(4, '0')}`;
}

/**
 * `text` with every invisible or bidi-control character written out as its escape (`SNEK\u200B`,
 * `\u202EKENS`): what a symbol name, a ticker or a token name shows. Visible text is left as it is, so
 * a shown name stays as it was given (`ＳＮＥＫ` in full-width letters shows as such). Idempotent.
 */
export function visibleText(text: string): string {
  return PLAIN.test(text) ? text : text.replace(INVISIBLE, escapeOf);
}

/**
 * What two names are compared by for look-alikes: Unicode compatibility normalisation (NFKC: full-width
 * `ＳＮＥＫ` and ligatures become their plain letters), invisible characters removed, in capitals. Two
 * names with one key may look the same on screen.
 */
export function lookAlikeKey(text: string): string {
  if (PLAIN.test(text)) return text.toUpperCase();
  return text.normalize('NFKC').replace(INVISIBLE, '').toUpperCase().normalize('NFKC');
}
