import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { tokenNamesSchema } from '../../src/shared/api/extensions';
import { groupsResponseSchema } from '../../src/shared/api/groups';
import { symbolInfoResponseSchema } from '../../src/shared/api/symbol-info';
import { fuzz, type FuzzSeeds } from './fuzz';
import { crashes } from './crash';
import { faults } from './faults';
import { FAIR_PROXY, fairCapacity } from './fair';
import { hardenedPage } from './page';
import { csvSoak, tickers } from './names';
import { hostile } from './hostile';
import { secrets } from './secrets';
import { load, slowConsumers } from './load';
import { SOAK_KEY, SoakServer } from './server';

/**
 * npm run soak [-- --only fuzz,page,load,slow,crash,faults,fair,secrets,tickers,csv,hostile] [--out soak-results.json] [--fuzz n] [--seed n]
 * [--load-seconds n] [--load-clients n] [--kills n] [--page-requests n] [--fair-seconds n] [--tickers n] [--csv n]
 * [--storm n] [--flood-seconds n]: the reliability suite (docs/reliability.md). Each part runs against a real server
 * process on a small market, prints what it found and the whole run is written as JSON. Exit code 1
 * when any part found a defect (a 5xx, a hang, an answer in no documented shape, a lost or doubled
 * trade, unbounded memory...).
 */

interface PartResult {
  readonly part: string;
  readonly ok: boolean;
  /** A part this machine cannot run (shown as SKIPPED, never as ok). */
  readonly skipped?: boolean;
  readonly summary: string;
  readonly details: unknown;
}

const log = (line: string) => console.error(`[soak] ${line}`);

async function seedsOf(server: SoakServer): Promise<FuzzSeeds> {
  const get = async (path: string) =>
    (await fetch(`${server.origin}${path}`, { headers: server.auth() })).json() as Promise<unknown>;
  const groups = groupsResponseSchema.parse(await get('/api/v1/groups'));
  const groupList = groups.d.groups.map((g) => g.id);
  const symbols: string[] = [];
  const pools: string[] = [];
  let aggregates: string[] = [];
  for (const group of groupList) {
    const info = symbolInfoResponseSchema.parse(await get(`/api/v1/symbol_info?group=${encodeURIComponent(group)}`));
    symbols.push(...info.symbol.slice(0, 50));
    pools.push(...info.ticker.slice(0, 50));
    if (group === 'Aggregate') aggregates = info.ticker;
  }
  const tokens = tokenNamesSchema.parse(await get('/api/x/token-info')).unit.slice(0, 100);
  return { key: SOAK_KEY, groups: groupList, symbols, pools, aggregates, tokens };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      only: { type: 'string' },
      out: { type: 'string', default: 'soak-results.json' },
      fuzz: { type: 'string', default: '10000' },
      seed: { type: 'string', default: '42' },
      'load-seconds': { type: 'string', default: '60' },
      'load-clients': { type: 'string', default: '200' },
      kills: { type: 'string', default: '10' },
      'page-requests': { type: 'string', default: '3000' },
      'fair-seconds': { type: 'string', default: '45' },
      tickers: { type: 'string', default: '3000' },
      csv: { type: 'string', default: '10000' },
      storm: { type: 'string', default: '1500' },
      'flood-seconds': { type: 'string', default: '20' },
    },
  });
  const only = values.only?.split(',');
  const wanted = (part: string) => !only || only.includes(part);
  const results: PartResult[] = [];
  const dataDir = mkdtempSync(join(tmpdir(), 'soak-'));
  const server = new SoakServer({
    dataDir,
    pools: 200,
    days: 2,
    extraArgs: ['--trades-per-block', '20'],
    env: { GATEWAY_REQUESTS_PER_MINUTE_PER_ADDRESS: '0' },
  });
  try {
    if (wanted('fuzz') || wanted('page') || wanted('load') || wanted('slow')) {
      log('starting a server on a small market (200 pools, 2 days)');
      await server.start();
      const seeds = await seedsOf(server);
      log(`market: ${seeds.groups.length} groups, ${seeds.pools.length} pools sampled, ${seeds.tokens.length} tokens`);

      if (wanted('fuzz')) {
        const count = Number(values.fuzz);
        log(`fuzz: ${count} generated requests (seed ${values.seed})`);
        const started = performance.now();
        const r = await fuzz(server, seeds, count, Number(values.seed));
        const seconds = (performance.now() - started) / 1000;
        const ok = r.status5xx === 0 && r.badShape === 0 && r.hangs === 0 && server.running;
        results.push({
          part: 'fuzz',
          ok,
          summary: `${r.requests} requests in ${seconds.toFixed(0)} s: 5xx ${r.status5xx}, undocumented shape ${r.badShape}, hangs > 5 s ${r.hangs} (statuses ${JSON.stringify(r.byStatus)})`,
          details: { ...r, seconds: Math.round(seconds) },
        });
        for (const e of r.examples) log(`  ${e}`);
      }

      if (wanted('page')) {
        const requests = Number(values['page-requests']);
        log(
          `page: the security headers of ${requests} answers of every kind, then the app and /docs in Chromium with the policy on`,
        );
        const r = await hardenedPage(server, seeds, { requests, loads: 12, seed: Number(values.seed) });
        const b = r.browser;
        const browserOk =
          b === undefined ||
          (b.violations === 0 &&
            !b.docsKeyStored &&
            b.docsRequestWithKey === 200 &&
            !b.injectedRan &&
            b.injectionRefused >= 2 &&
            !b.framed);
        results.push({
          part: 'page',
          ok: r.missingHeaders === 0 && r.pagePolicyMismatches === 0 && r.answers >= requests * 0.9 && browserOk,
          summary: `${r.answers} answers: without a security header ${r.missingHeaders}, page policies not fitting the page ${r.pagePolicyMismatches} (statuses ${JSON.stringify(r.byStatus)}); ${
            b
              ? `Chromium: ${b.pageLoads} app loads and /docs, CSP violations ${b.violations}, /docs request with the key ${b.docsRequestWithKey}, key stored ${b.docsKeyStored ? 'YES' : 'nowhere'}, injected script ran ${b.injectedRan ? 'YES' : 'no'} (${b.injectionRefused} refusals), framed ${b.framed ? 'YES' : 'no'}`
              : `browser part skipped: ${r.browserSkipped}`
          }`,
          details: r,
        });
        for (const e of r.examples) log(`  ${e}`);
      }

      if (wanted('load')) {
        const seconds = Number(values['load-seconds']);
        const clients = Number(values['load-clients']);
        log(`load: ${clients} clients for ${seconds} s, 100 open streams, the market trading`);
        const r = await load(server, seeds, { clients, seconds, streams: 100 });
        results.push({
          part: 'load',
          ok: r.errors === 0 && r.streamsAliveAtEnd === r.streams,
          summary: `${r.requests} requests (${r.requestsPerSecond}/s), errors ${r.errors}, p50 ${r.p50Ms} ms, p99 ${r.p99Ms} ms; streams alive ${r.streamsAliveAtEnd}/${r.streams} (${r.streamBytes} bytes); RSS ${r.rssBeforeMiB} -> ${r.rssAfterMiB} MiB (peak ${r.rssPeakMiB})`,
          details: r,
        });
        for (const e of r.errorExamples) log(`  ${e}`);

        // The gateway is what faces the public: once more with its per-address limit on.
        await server.stop('SIGTERM');
        await server.start(120_000, { GATEWAY_REQUESTS_PER_MINUTE_PER_ADDRESS: '3000' });
        log('load: 50 clients for 20 s through the gateway, its per-address limit on (3,000 a minute)');
        const limited = await load(server, seeds, { clients: 50, seconds: 20, streams: 10, gatewayLimit: true });
        results.push({
          part: 'load (gateway limit)',
          ok: limited.errors === 0 && limited.rateLimited > 0 && limited.streamsAliveAtEnd === limited.streams,
          summary: `${limited.requests} requests (${limited.requestsPerSecond}/s) through /gw/v1 limited to 3,000 a minute per address: ${limited.rateLimited} answered 429 as documented, errors ${limited.errors}, p50 ${limited.p50Ms} ms, p99 ${limited.p99Ms} ms`,
          details: limited,
        });
        for (const e of limited.errorExamples) log(`  ${e}`);
        await server.stop('SIGTERM');
        await server.start();
      }

      if (wanted('slow')) {
        log('slow consumers: 40 streams over every Aggregate pool that never read, the market trading hard');
        const r = await slowConsumers(server, seeds, { stalled: 40, seconds: 90 });
        results.push({
          part: 'slow',
          ok: r.streamsLeft === 0 && r.rssGrowthMiB < 256,
          summary: `${r.stalled} stalled readers, ${r.trades} trades: ${r.streamsLeft === 0 ? `all dropped within ${r.droppedWithinSeconds} s` : `${r.streamsLeft} still held`}; RSS ${r.rssBeforeMiB} -> peak ${r.rssPeakMiB} MiB (+${r.rssGrowthMiB})`,
          details: r,
        });
      }
      await server.stop('SIGTERM');
    }

    if (wanted('crash')) {
      const kills = Number(values.kills);
      log(
        `crash: ${kills} kill -9 of the server at random moments while the market trades, each followed by a restart`,
      );
      const aggregates = server.running
        ? []
        : await (async () => {
            await server.start();
            const seeds = await seedsOf(server);
            await server.stop('SIGTERM');
            return seeds.aggregates;
          })();
      const r = await crashes(server, dataDir, aggregates, kills, Number(values.seed));
      results.push({
        part: 'crash',
        ok: r.lost === 0 && r.brokenChains === 0 && r.duplicateIds === 0 && r.barsEqualRebuild,
        summary: `${r.kills} kill -9 + restart, the store checked after each: ${r.tradesAfter} trades stored, ${r.streamedEvents} streamed events checked: lost ${r.lost}, doubled ${r.duplicateIds}, broken chains ${r.brokenChains}, bars ${r.barsEqualRebuild ? 'equal' : 'DIFFER from'} a rebuild every time`,
        details: r,
      });
      for (const e of r.examples) log(`  ${e}`);
    }

    if (wanted('fair')) {
      // A market with more than 1,000 Aggregate pools (3,000 pools), the gateway's default limits, one trusted proxy.
      const fairDir = mkdtempSync(join(tmpdir(), 'soak-fair-'));
      const fairServer = new SoakServer({
        dataDir: fairDir,
        pools: 3000,
        days: 1,
        env: { TRUST_PROXY: FAIR_PROXY, GATEWAY_REQUESTS_PER_MINUTE_PER_ADDRESS: '0' },
      });
      try {
        const seconds = Number(values['fair-seconds']);
        log(
          `fair: hostile clients hold every live connection they may and ask for more, 10 honest clients follow 50 pools each, for ${seconds} s`,
        );
        await fairServer.start();
        const r = await fairCapacity(fairServer, { seconds });
        const hostileWithinShare = Object.values(r.hostilePoolsHeld).every((n) => n <= 250);
        results.push({
          part: 'fair',
          ok:
            r.honestConnected === r.honestClients &&
            r.honestLost === 0 &&
            r.forcedTrades > 0 &&
            r.honestTradesDelivered === r.forcedTrades &&
            hostileWithinShare &&
            fairServer.running,
          summary: `${r.hostileAttempts} hostile connection attempts in ${r.seconds} s (${r.hostileRefused} refused), hostile pools held ${JSON.stringify(r.hostilePoolsHeld)}; honest clients connected ${r.honestConnected}/${r.honestClients}, their forced trades delivered ${r.honestTradesDelivered}/${r.forcedTrades} (p50 ${r.deliveryP50Ms} ms, p99 ${r.deliveryP99Ms} ms); RSS peak ${r.rssPeakMiB} MiB`,
          details: r,
        });
        for (const e of r.examples) log(`  ${e}`);
      } finally {
        if (fairServer.running) await fairServer.stop('SIGTERM');
        rmSync(fairDir, { recursive: true, force: true });
      }
    }

    if (wanted('faults')) {
      log('shutdown and storage faults: SIGTERM while streaming and trading, damaged store files, a full disk');
      await server.start();
      const seeds = await seedsOf(server);
      await server.stop('SIGTERM');
      const root = mkdtempSync(join(tmpdir(), 'soak-faults-'));
      try {
        const checks = await faults(server, dataDir, seeds.aggregates, root);
        for (const check of checks) {
          results.push({
            part: `faults: ${check.name}`,
            ok: check.ok,
            ...(check.skipped ? { skipped: true } : {}),
            summary: check.detail,
            details: check,
          });
        }
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    }

    // Issue 29: no key of a configured address shown, unambiguous tickers, CSV cells no spreadsheet runs.
    if (wanted('secrets')) {
      log(
        'secrets: keys in every part of the Ogmios, upstream and database addresses, each endpoint refusing, silent, answering garbage, unresolvable',
      );
      const r = await secrets({ observeSeconds: 8, log });
      results.push({
        part: 'secrets',
        ok: r.leaks.length === 0 && r.problems.length === 0,
        summary: `${r.scenarios} server processes in ${r.seconds} s (each failure kind, configuration errors, --help): ${r.answers} answers and ${r.lines} printed lines searched, ${r.errorTexts} failures surfaced, keys shown ${r.leaks.length}${r.problems.length > 0 ? `, problems ${r.problems.length}` : ''}`,
        details: r,
      });
      for (const e of [...r.leaks, ...r.problems].slice(0, 10)) log(`  ${e}`);
    }
    let symbolNames: readonly string[] = [];
    if (wanted('tickers')) {
      const root = mkdtempSync(join(tmpdir(), 'soak-tickers-'));
      try {
        log(`tickers: the issue's look-alikes and ${values.tickers} generated adversarial tokens, served`);
        const r = await tickers({ root, tokens: Number(values.tickers), byName: 500, seed: Number(values.seed), log });
        symbolNames = r.symbolNames;
        const { symbolNames: _names, ...details } = r;
        results.push({
          part: 'tickers',
          ok: r.duplicates + r.lookAlikes + r.invisible + r.wrongPool === 0,
          summary: `${r.tokens} adversarial tokens, ${r.names} symbol names (symbol_info in ${r.symbolInfoMs} ms): given twice ${r.duplicates}, looking alike ${r.lookAlikes}, with invisible characters ${r.invisible}; ${r.checkedByName} requested by name: another pool answered ${r.wrongPool}`,
          details,
        });
        for (const e of r.examples) log(`  ${e}`);
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    }
    if (wanted('csv')) {
      log(
        `csv: ${values.csv} generated exports with hostile headers${symbolNames.length > 0 ? ' and the adversarial symbol names' : ''}, parsed back`,
      );
      const r = csvSoak({ files: Number(values.csv), symbolNames, seed: Number(values.seed) });
      results.push({
        part: 'csv',
        ok: r.formulas + r.badNumbers + r.unparsable === 0,
        summary: `${r.files} exports parsed back: ${r.textCells} text cells, formulas left ${r.formulas}; ${r.numberCells} numbers, not read back as written ${r.badNumbers}; unparsable ${r.unparsable}`,
        details: r,
      });
      for (const e of r.examples) log(`  ${e}`);
    }
    // Issue 45: rollbacks to points we do not have, a rollback storm, a hostile Kupo, the cache flood.
    if (wanted('hostile')) {
      const checks = await hostile({
        log,
        storm: Number(values.storm),
        floodSeconds: Number(values['flood-seconds']),
      });
      for (const check of checks)
        results.push({ part: `hostile: ${check.name}`, ok: check.ok, summary: check.detail, details: check });
    }
  } finally {
    if (server.running) await server.stop('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }

  console.log('');
  const width = Math.max(...results.map((r) => r.part.length), 4);
  for (const r of results)
    console.log(`${r.part.padEnd(width)}  ${r.skipped ? 'SKIPPED' : r.ok ? 'ok     ' : 'FAILED '}  ${r.summary}`);
  writeFileSync(
    values.out,
    `${JSON.stringify({ date: new Date().toISOString(), node: process.version, results }, null, 2)}\n`,
  );
  const failed = results.filter((r) => !r.ok);
  console.log(
    `\nWrote ${values.out}. ${failed.length === 0 ? 'No defect found.' : `${failed.length} part(s) found defects.`}`,
  );
  if (failed.length > 0) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
