import Database from 'better-sqlite3';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { parseServiceConfig } from '../src/service/config';
import { createServiceRuntime } from '../src/service/runtime';
import type { ServiceRuntime, StartupProgress } from '../src/service/service-runtime';
import { DATABASE_FILE } from '../src/service/store/open';
import { historyResponseSchema } from '../src/shared/api/history';
import { gatewayHistoryRows } from './gateway-history';
import { median, round, timeRuns, type BenchRow } from './measure';
import { runtimeInternals } from '../src/service/runtime-internals';

const SUITE = 'service';

/**
 * Issue 2's targets: cold start of the default market; /history of the busiest Aggregate (30 days of
 * 1min bars with TVL) against JSON.stringify of the same arrays and against one SQL GROUP BY over the
 * raw trades; /symbol_info without group.
 */
export async function serviceBench(options: {
  pools?: number;
  days?: number;
  log: (line: string) => void;
}): Promise<{ rows: BenchRow[]; runtime: ServiceRuntime; dir: string }> {
  const rows: BenchRow[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'bench-service-'));
  const flags = {
    'data-dir': dir,
    ...(options.pools ? { pools: String(options.pools) } : {}),
    ...(options.days ? { days: String(options.days) } : {}),
  };
  const config = parseServiceConfig(flags, { TOKEN_API_KEYS: 'bench-enterprise-key:enterprise' });

  options.log(`cold start: ${config.pools} pools, ${config.days} days...`);
  const started = performance.now();
  // The backfill's first trade is at most `days` before this moment: a window from here holds every
  // trade, however long the start takes (from the moment after it, a start past a minute cut the
  // first bar, and the GROUP BY check below failed on a loaded machine).
  const startedAt = Math.floor(Date.now() / 1000);
  // When the bars' phase starts: every trade made and written (docs/architecture.md, "The first start").
  let barsAt: number | undefined;
  const onProgress = (progress: StartupProgress) => {
    if (progress.phase === 'bars') barsAt ??= performance.now();
  };
  const runtime = await createServiceRuntime(config, { onProgress });
  const ended = performance.now();
  const seconds = (ended - started) / 1000;
  const dexPools = [...runtime.market.pools.values()].filter((p) => p.group !== 'Aggregate').length;
  rows.push({
    suite: SUITE,
    name: `cold start to serving (${dexPools} DEX pools, ${config.days} days)`,
    value: round(seconds),
    unit: 's',
    target: '<= 10 s',
    pass: seconds <= 10,
  });
  if (barsAt !== undefined) {
    rows.push({
      suite: SUITE,
      name: '… of which the market made and every trade written',
      value: round((barsAt - started) / 1000),
      unit: 's',
    });
    rows.push({
      suite: SUITE,
      name: '… of which every bar written after the last trade',
      value: round((ended - barsAt) / 1000),
      unit: 's',
    });
  }
  rows.push({
    suite: SUITE,
    name: 'backfill throughput',
    value: Math.round(runtime.startupTrades / seconds),
    unit: 'trades/s',
    note: `${runtime.startupTrades} trades`,
  });

  // The busiest Aggregate pool: the one with most trades.
  const [busiest] = await runtimeInternals(runtime).store.trades.busiestAggregates(1);
  const aggregate = busiest ? runtime.market.poolsById.get(busiest.series) : undefined;
  if (!aggregate || !busiest) throw new Error('no trades');
  const now = Math.floor(Date.now() / 1000);
  const from = startedAt - config.days * 86_400 - 60;
  const url = `/api/v1/history?symbol=${aggregate.poolId}&resolution=1min&from=${from}&to=${now + 60}&include_tvl=true`;
  const headers = { Authorization: 'Bearer bench-enterprise-key' };
  // Server time: from the request to the response's bytes (what goes on the wire).
  const request = async () => new Uint8Array(await (await runtime.app.request(url, { headers })).arrayBuffer());
  const coldStarted = performance.now();
  const bytes = await request();
  const cold = performance.now() - coldStarted;
  const body = historyResponseSchema.parse(JSON.parse(new TextDecoder().decode(bytes)));
  const serverTimes = await timeRuns(100, request, 10);
  const arrays = { s: body.s, t: body.t, o: body.o, h: body.h, l: body.l, c: body.c, v: body.v, tvl: body.tvl };
  const stringifyTimes = await timeRuns(100, () => JSON.stringify(arrays), 10);
  // The baseline reads the store file directly (its own read-only connection): what a service without
  // stored bars would do for each request.
  const baseline = new Database(join(dir, DATABASE_FILE), { readonly: true });
  const groupBy = baseline
    .prepare(
      `WITH x AS (
       SELECT block_time / 60 * 60 AS t, agg_prev_price AS pp, agg_price AS p, volume,
              first_value(agg_prev_price) OVER w AS o, last_value(agg_price) OVER w AS c, last_value(agg_tvl) OVER w AS tvl
       FROM trades WHERE agg = ? AND block_time >= ? AND block_time < ?
       WINDOW w AS (PARTITION BY block_time / 60 ORDER BY seq ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING))
     SELECT t, o, max(max(pp, p)) AS h, min(min(pp, p)) AS l, c, sum(volume) / 1e6 AS v, tvl FROM x GROUP BY t ORDER BY t`,
    )
    .raw(true);
  const sqlBars = groupBy.all(aggregate.id, from, now + 60) as number[][];
  if (sqlBars.length !== body.t.length || sqlBars.some((row, i) => row[0] !== body.t[i] || row[4] !== body.c[i])) {
    throw new Error(`GROUP BY bars differ from /history (${sqlBars.length} vs ${body.t.length})`);
  }
  const sqlTimes = await timeRuns(7, () => groupBy.all(aggregate.id, from, now + 60), 1);
  const server = median(serverTimes);
  const stringify = median(stringifyTimes);
  const sql = median(sqlTimes);
  baseline.close();
  const label = `${body.t.length} bars, ${busiest.trades} trades`;
  rows.push({
    suite: SUITE,
    name: `/history busiest Aggregate, 1min + tvl (${label}): first request (cold cache)`,
    value: round(cold),
    unit: 'ms',
    note: `${round(bytes.byteLength / 1024)} KiB`,
  });
  rows.push({ suite: SUITE, name: '/history same request: median server time', value: round(server), unit: 'ms' });
  rows.push({ suite: SUITE, name: 'JSON.stringify of the same arrays: median', value: round(stringify), unit: 'ms' });
  rows.push({
    suite: SUITE,
    name: '/history vs JSON.stringify',
    value: round(server / stringify),
    unit: 'x',
    target: '<= 2x',
    pass: server / stringify <= 2,
  });
  rows.push({
    suite: SUITE,
    name: 'one SQL GROUP BY over raw trades (same bars): median',
    value: round(sql),
    unit: 'ms',
  });
  rows.push({
    suite: SUITE,
    name: '/history speed-up over SQL GROUP BY',
    value: round(sql / server, 1),
    unit: 'x',
    target: '>= 50x',
    pass: sql / server >= 50,
  });
  options.log('/gw/v1/history beside /api/v1/history...');
  rows.push(...(await gatewayHistoryRows(runtime, url, 'bench-enterprise-key')));

  // symbol_info without group: first build, then cached; gzip size.
  const all = '/api/v1/symbol_info';
  const gzipHeaders = { ...headers, 'Accept-Encoding': 'gzip' };
  const firstStarted = performance.now();
  const first = await runtime.app.request(all, { headers: gzipHeaders });
  const compressed = new Uint8Array(await first.arrayBuffer());
  const firstMs = performance.now() - firstStarted;
  const raw = gunzipSync(compressed);
  const symbols = (JSON.parse(raw.toString('utf8')) as { symbol: unknown[] }).symbol.length;
  const cachedTimes = await timeRuns(20, async () =>
    (await runtime.app.request(all, { headers: gzipHeaders })).arrayBuffer(),
  );
  rows.push({
    suite: SUITE,
    name: `/symbol_info without group (${symbols} symbols): first answer`,
    value: round(firstMs),
    unit: 'ms',
  });
  rows.push({
    suite: SUITE,
    name: '/symbol_info without group: cached answer, median',
    value: round(median(cachedTimes)),
    unit: 'ms',
  });
  rows.push({
    suite: SUITE,
    name: '/symbol_info without group: gzip size',
    value: round(compressed.byteLength / 1024, 1),
    unit: 'KiB',
    note: `${round(raw.byteLength / 1024 / 1024, 1)} MiB uncompressed`,
  });

  return { rows, runtime, dir };
}

export async function disposeService(runtime: ServiceRuntime, dir: string): Promise<void> {
  await runtime.close();
  rmSync(dir, { recursive: true, force: true });
}
