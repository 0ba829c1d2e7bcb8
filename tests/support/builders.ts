import type { HistoryResponse } from '../../src/shared/api/history';
import { API } from './service';
import type { WireBar } from './market';

/** Data builders: URLs, identifiers and bodies the tests send. */

/** A query string from defined values only, in the given order (`?a=1&b=2`, or '' when empty). */
export function query(params: Readonly<Record<string, string | number | boolean | undefined>>): string {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) if (value !== undefined) search.append(name, String(value));
  const text = search.toString();
  return text === '' ? '' : `?${text}`;
}

export interface HistoryParams {
  readonly symbol?: string;
  readonly resolution?: string;
  readonly from?: number | string;
  readonly to?: number | string;
  readonly countback?: number | string;
  readonly include_tvl?: boolean | string;
}

export function historyPath(params: HistoryParams): string {
  return `${API}/history${query({ ...params })}`;
}

export function symbolInfoPath(group?: string): string {
  return `${API}/symbol_info${query({ group })}`;
}

export function tokensCurrentPath(params: { readonly policy?: string; readonly pool?: string }): string {
  return `${API}/tokens/current${query(params)}`;
}

export function logoPath(token: string): string {
  return `${API}/tokens/logo/${token}`;
}

export const STREAM_PATH = `${API}/tokens/stream`;

/** Lowercase hex of `bytes` bytes, from a repeated character (valid in form, unknown to the market). */
export function fakeHex(bytes: number, char = 'a'): string {
  return char.repeat(bytes * 2);
}

/** A well-formed token unit no market holds: a 56-hex policy plus a 4-byte asset name. */
export const UNKNOWN_TOKEN = `${fakeHex(28, 'c')}${fakeHex(4, 'd')}`;
/** A well-formed pool ID no market holds. */
export const UNKNOWN_POOL = fakeHex(28, 'e');

/** /history's columns as one object per bar. */
export function barsOf(body: HistoryResponse): WireBar[] {
  return body.t.map((t, i) => ({
    t,
    o: body.o[i] ?? Number.NaN,
    h: body.h[i] ?? Number.NaN,
    l: body.l[i] ?? Number.NaN,
    c: body.c[i] ?? Number.NaN,
    v: body.v[i] ?? Number.NaN,
    ...(body.tvl ? { tvl: body.tvl[i] ?? Number.NaN } : {}),
  }));
}

/** A JSON request body for POST /tokens/stream. */
export function streamInit(body: unknown, headers: Readonly<Record<string, string>> = {}): RequestInit {
  return {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  };
}
