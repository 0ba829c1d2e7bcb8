import type { FetchLike } from '@/datafeed';

/**
 * Requests the page starts before the app's code has loaded (src/app/boot.ts), handed to the app's
 * first identical request (`earlyFirst`, the fetch the datafeed is given in start.tsx) instead of
 * asking twice. Each is taken once; one nobody takes is simply dropped with the page.
 */
const early = new Map<string, Promise<Response>>();

/** Starts a GET of `url` now (once per URL); its answer waits for the app's first request of `url`. */
export function startEarly(url: string, fetchImpl: FetchLike = (input, init) => fetch(input, init)): Promise<Response> {
  let pending = early.get(url);
  if (!pending) {
    pending = fetchImpl(url, { headers: { Accept: 'application/json' } });
    early.set(url, pending);
  }
  return pending;
}

/**
 * Gives `url` a JSON answer the page already has (the page's copies of /info and of the first bars):
 * the app's first request of it takes this one.
 */
export function provideEarly(url: string, json: string): void {
  early.set(url, Promise.resolve(new Response(json, { status: 200, headers: { 'Content-Type': 'application/json' } })));
}

/** The early answer of `url`, if one was started and not yet taken (taking it removes it). */
export function takeEarly(url: string): Promise<Response> | undefined {
  const pending = early.get(url);
  early.delete(url);
  return pending;
}

/** `fetchImpl`, except that a URL asked early is answered by that request the first time. */
export function earlyFirst(fetchImpl: FetchLike): FetchLike {
  return (input, init) => takeEarly(input) ?? fetchImpl(input, init);
}
