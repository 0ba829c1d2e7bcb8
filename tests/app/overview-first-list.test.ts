import { QueryClient } from '@tanstack/react-query';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { groupStatsQueryOptions, prefetchList } from '../../src/app/features/overview/api/group-stats';
import { GatewayClient } from '../../src/datafeed/gateway-client';
import { groupStatsSchema } from '../../src/shared/api/extensions';
import { createTestPlatform, type TestPlatform } from '../support/platform';

/**
 * The overview's list before the app's first render of a page opened on it (src/app/start.tsx waits
 * for prefetchList): in the query cache under its table's own query, asked once, and never holding the
 * first render back long.
 */
let tp: TestPlatform;
beforeAll(async () => {
  tp = await createTestPlatform({ pools: 120, days: 1 });
});
afterAll(async () => tp.close());

const clientOf = (fetchImpl: typeof tp.fetch) => {
  const asked: string[] = [];
  const api = new GatewayClient('/gw/v1', (input, init) => {
    asked.push(String(input));
    return fetchImpl(input, init);
  });
  return { api, asked, queryClient: new QueryClient({ defaultOptions: { queries: { retry: false } } }) };
};

describe('the overview list before the first render', () => {
  it("is in the query cache of the table's own query once prefetchList resolves, asked once", async () => {
    const { api, asked, queryClient } = clientOf(tp.fetch);
    await prefetchList({ api, queryClient }, 'Aggregate');
    const cached = queryClient.getQueryData(groupStatsQueryOptions(api, 'Aggregate').queryKey);
    const direct = groupStatsSchema.parse(await (await tp.fetch('/gw/v1/group-stats?group=Aggregate')).json());
    expect(cached?.ticker).toEqual(direct.ticker);
    expect(cached?.ticker.length).toBeGreaterThan(0);
    // The table's query, mounted now, takes the cached answer: nothing is asked again.
    await queryClient.fetchQuery(groupStatsQueryOptions(api, 'Aggregate'));
    expect(asked).toEqual(['/gw/v1/group-stats?group=Aggregate']);
  });

  it('does not hold the first render back past its wait when the list is slow; the list lands when it comes', async () => {
    vi.useFakeTimers();
    try {
      let answer: (() => void) | undefined;
      const { api, queryClient } = clientOf(
        (input, init) =>
          new Promise<Response>((resolve) => {
            answer = () => void tp.fetch(input, init).then(resolve);
          }),
      );
      let done = false;
      const waiting = prefetchList({ api, queryClient }, 'MinswapV2').then(() => (done = true));
      await vi.advanceTimersByTimeAsync(200);
      expect(done).toBe(false);
      await vi.advanceTimersByTimeAsync(100);
      await waiting;
      expect(done).toBe(true);
      const key = groupStatsQueryOptions(api, 'MinswapV2').queryKey;
      expect(queryClient.getQueryState(key)?.fetchStatus).toBe('fetching');
      vi.useRealTimers();
      answer?.();
      await vi.waitFor(() => expect(queryClient.getQueryData(key)?.group).toBe('MinswapV2'), { timeout: 10_000 });
    } finally {
      vi.useRealTimers();
    }
  });
});
