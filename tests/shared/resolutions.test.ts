import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normaliseResolution, resolutionSeconds } from '../../src/app/lib/first-chart';
import { RESOLUTION_CHOICES } from '../../src/app/lib/selection';
import {
  INTRADAY_MULTIPLIERS,
  SUPPORTED_RESOLUTIONS,
  toLibraryResolution,
  toWireResolution,
} from '../../src/datafeed/resolution-map';
import { historyResponseSchema } from '../../src/shared/api/history';
import { UDF_RESOLUTIONS, udfConfigSchema, udfHistoryQuerySchema } from '../../src/shared/api/udf';
import {
  CHART_RESOLUTIONS,
  chartResolution,
  entryBucketStart,
  RESOLUTION_SECONDS,
  RESOLUTIONS,
  resolutionOfSpelling,
  UDF_NAMES,
} from '../../src/shared/resolutions';
import { busiestPools } from '../support/market';
import { API, createTestService, type TestService } from '../support/service';

/**
 * One table of resolutions (src/shared/resolutions.ts), and every layer that names them agrees with it:
 * the API's names and seconds, the /udf routes and their schema, the datafeed's mapping, the page's
 * first chart (the URL's spellings) and the resolution buttons.
 */
const served = CHART_RESOLUTIONS.filter((entry) => entry.api !== undefined);

describe('the resolution table', () => {
  it('names every API resolution once, with its seconds, finest first', () => {
    expect(served.map((entry) => entry.api)).toEqual(RESOLUTIONS);
    for (const entry of served) expect(entry.seconds).toBe(RESOLUTION_SECONDS[entry.api ?? '1min']);
    const seconds = CHART_RESOLUTIONS.map((entry) => entry.seconds);
    expect(seconds).toEqual([...seconds].sort((a, b) => a - b));
  });

  it('gives each spelling one resolution, and a chart-only one a finer resolution that divides it', () => {
    const owners = new Map<string, string>();
    for (const entry of CHART_RESOLUTIONS) {
      for (const spelling of new Set(
        [entry.chart, ...(entry.udf ?? []), ...entry.aliases].map((s) => s.toLowerCase()),
      )) {
        expect(owners.get(spelling), `${spelling} is ${entry.chart}`).toBeUndefined();
        owners.set(spelling, entry.chart);
      }
    }
    for (const entry of CHART_RESOLUTIONS) {
      expect((entry.api === undefined) !== (entry.foldOf === undefined), entry.chart).toBe(true);
      if (entry.foldOf === undefined) continue;
      const finer = chartResolution(entry.foldOf);
      expect(finer?.api, entry.chart).toBeDefined();
      expect(entry.seconds % (finer?.seconds ?? 1)).toBe(0);
      expect(entry.offset % (finer?.seconds ?? 1)).toBe(0);
    }
  });

  it('starts buckets on UTC boundaries (weeks on Monday)', () => {
    const time = Date.UTC(2026, 0, 29, 17, 42, 13) / 1000; // a Thursday
    for (const entry of CHART_RESOLUTIONS) {
      const start = entryBucketStart(time, entry);
      expect(start).toBeLessThanOrEqual(time);
      expect(time - start).toBeLessThan(entry.seconds);
    }
    const week = chartResolution('1W');
    if (week) expect(new Date(entryBucketStart(time, week) * 1000).toISOString()).toBe('2026-01-26T00:00:00.000Z');
  });
});

describe('every consumer agrees with the table', () => {
  it('the datafeed announces, maps and names them as the table does', () => {
    expect(SUPPORTED_RESOLUTIONS).toEqual(CHART_RESOLUTIONS.map((entry) => entry.chart));
    expect(INTRADAY_MULTIPLIERS).toEqual(CHART_RESOLUTIONS.filter((e) => e.seconds < 86_400).map((e) => e.chart));
    for (const entry of CHART_RESOLUTIONS) {
      for (const name of [entry.chart, ...(entry.udf ?? []), ...entry.aliases])
        expect(toWireResolution(name), name).toBe(entry.api);
      if (entry.api) expect(toLibraryResolution(entry.api)).toBe(entry.chart);
    }
    // As TradingView writes it: 1M is a month, never a minute.
    expect(toWireResolution('1M')).toBeUndefined();
  });

  it('the URL reads every spelling in any case, and the buttons are the table', () => {
    for (const entry of CHART_RESOLUTIONS) {
      for (const name of [entry.chart, ...(entry.udf ?? []), ...entry.aliases]) {
        expect(normaliseResolution(name), name).toBe(entry.chart);
        expect(normaliseResolution(` ${name.toUpperCase()} `), name).toBe(entry.chart);
        expect(resolutionOfSpelling(name)).toBe(entry);
      }
      expect(resolutionSeconds(entry.chart)).toBe(entry.seconds);
    }
    expect(RESOLUTION_CHOICES).toEqual(
      CHART_RESOLUTIONS.map((entry) => ({ value: entry.chart, label: entry.label, name: entry.name })),
    );
    expect(normaliseResolution('weekly')).toBeUndefined();
  });

  it('the UDF schema takes every UDF name and announces the first of each', () => {
    expect(UDF_RESOLUTIONS).toEqual(served.map((entry) => entry.udf?.[0]));
    for (const [name, api] of UDF_NAMES) {
      expect(served.find((entry) => entry.udf?.includes(name))?.api).toBe(api);
      expect(udfHistoryQuerySchema.safeParse({ symbol: 's', resolution: name, to: '1' }).success, name).toBe(true);
    }
    expect(udfHistoryQuerySchema.safeParse({ symbol: 's', resolution: '240', to: '1' }).success).toBe(false);
  });
});

describe('the /udf routes serve the table', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await createTestService();
  });
  afterAll(async () => service.close());

  it('announce the UDF names and answer each with the bars of its API resolution', async () => {
    const config = udfConfigSchema.parse(await (await service.request('/udf/config')).json());
    expect(config.supported_resolutions).toEqual([...UDF_RESOLUTIONS]);
    const { aggregate } = await busiestPools(service.runtime);
    const to = service.clock.seconds();
    const from = to - 2 * 86_400;
    for (const [name, api] of UDF_NAMES) {
      const response = await service.request(
        `/udf/history?symbol=${aggregate.poolId}&resolution=${name}&from=${from}&to=${to}`,
      );
      expect(response.status, name).toBe(200);
      const spec = await service.getJson(
        `${API}/history?symbol=${aggregate.poolId}&resolution=${api}&from=${from}&to=${to}`,
      );
      expect(historyResponseSchema.parse(await response.json()), name).toEqual(historyResponseSchema.parse(spec));
    }
    const unknown = await service.request(`/udf/history?symbol=${aggregate.poolId}&resolution=1W&from=0&to=${to}`);
    expect(unknown.status).toBe(400);
  });
});
