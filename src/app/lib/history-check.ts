import type { HistoryResponse } from '@/shared/api/history';

const numbers = (value: unknown): value is number[] =>
  Array.isArray(value) && value.every((n) => typeof n === 'number' && Number.isFinite(n));

/**
 * GET /history's answer with bars, checked as history.ts's historyResponseSchema checks it, without zod:
 * the page's first paint (src/app/first-paint.ts) checks the bars the page carries before the app's code
 * (and zod with it) has loaded; building zod's schemas and running them cost about a fifth of that
 * script's run. tests/app/history-check.test.ts holds the two to the same verdicts. Undefined for
 * anything else.
 */
export function historyAnswerOf(body: unknown): HistoryResponse | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return undefined;
  const b = body as Record<string, unknown>;
  const keys = Object.keys(b);
  if (keys.some((key) => !['s', 't', 'o', 'h', 'l', 'c', 'v', 'tvl'].includes(key))) return undefined;
  if (b.s !== 'ok' || !numbers(b.t) || !b.t.every((t) => Number.isSafeInteger(t))) return undefined;
  const n = b.t.length;
  const columns = [b.o, b.h, b.l, b.c, b.v];
  if (!columns.every((column) => numbers(column) && column.length === n)) return undefined;
  if (b.tvl !== undefined && !(numbers(b.tvl) && b.tvl.length === n)) return undefined;
  return body as HistoryResponse;
}
