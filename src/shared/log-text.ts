/**
 * Characters that could forge or hide a log line: C0 and C1 controls (a line break starts a forged
 * line, ESC sequences recolour or rewrite a terminal, CR overwrites a line), DEL, the Unicode line
 * and paragraph separators, and the bidirectional controls that reorder what a reader sees.
 */
// eslint-disable-next-line no-control-regex -- the control characters are what this matches
const UNSAFE_LOG_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const SHORT_ESCAPES: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/**
 * A text from outside (a path, an Ogmios object's keys, an upstream's message) as a log line may hold
 * it: every character of `UNSAFE_LOG_CHARACTERS` written as its JSON-style escape (`\n`, `\u001b`), the
 * rest as it is. Both formats apply it to every message and every text field, so one rule holds.
 */
export function escapeLogText(text: string): string {
  return text.replace(
    UNSAFE_LOG_CHARACTERS,
    (c) => SHORT_ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}
