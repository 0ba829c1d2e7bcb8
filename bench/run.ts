import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { appBench } from './app';
import { cacheFloodBench } from './cache-flood';
import { chainBench } from './chain';
import { clusterBench } from './cluster';
import type { BenchRow } from './measure';
import { disposeService, serviceBench } from './service';
import { STREAM_MODES, streamBench } from './stream';

/**
 * npm run bench [-- --out file.json] [--only service,...,cache-flood] [--pools n --days n] [--stream-modes
 * gateway,floor] [--cpu-prof-dir dir]: prints a table and writes the rows as JSON.
 */
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      out: { type: 'string', default: 'bench-results.json' },
      only: { type: 'string' },
      pools: { type: 'string' },
      days: { type: 'string' },
      'stream-modes': { type: 'string' },
      'cpu-prof-dir': { type: 'string' },
    },
  });
  const only = values.only?.split(',');
  const wanted = (suite: string) => !only || only.includes(suite);
  const log = (line: string) => console.error(`[bench] ${line}`);
  const rows: BenchRow[] = [];

  if (wanted('service')) {
    const {
      rows: serviceRows,
      runtime,
      dir,
    } = await serviceBench({
      ...(values.pools ? { pools: Number(values.pools) } : {}),
      ...(values.days ? { days: Number(values.days) } : {}),
      log,
    });
    rows.push(...serviceRows);
    await disposeService(runtime, dir);
  }
  if (wanted('stream')) {
    const modes = values['stream-modes']?.split(',').map((mode) => {
      const known = STREAM_MODES.find((m) => m === mode);
      if (!known) throw new Error(`--stream-modes: unknown mode ${mode} (${STREAM_MODES.join(', ')})`);
      return known;
    });
    const cpuProfileDir = values['cpu-prof-dir'];
    rows.push(
      ...(await streamBench({
        log,
        ...(modes ? { modes } : {}),
        ...(cpuProfileDir !== undefined ? { cpuProfileDir } : {}),
      })),
    );
  }
  if (wanted('app')) rows.push(...(await appBench({ log })));
  if (wanted('chain')) rows.push(...(await chainBench({ log })));
  if (wanted('cluster')) rows.push(...(await clusterBench({ log })));
  if (wanted('cache-flood')) rows.push(...(await cacheFloodBench({ log })));

  printTable(rows);
  const failed = rows.filter((r) => r.pass === false);
  writeFileSync(
    values.out,
    `${JSON.stringify({ date: new Date().toISOString(), node: process.version, rows }, null, 2)}\n`,
  );
  console.log(
    `\nWrote ${values.out}. ${failed.length === 0 ? 'Every target met.' : `${failed.length} target(s) missed.`}`,
  );
}

function printTable(rows: readonly BenchRow[]): void {
  const cells = rows.map((r) => [
    r.suite,
    r.name,
    `${r.value} ${r.unit}`,
    r.target ?? '',
    r.pass === undefined ? '' : r.pass ? 'ok' : 'MISSED',
    r.note ?? '',
  ]);
  const header = ['suite', 'measure', 'value', 'target', '', 'note'];
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] ?? '').length)));
  const line = (c: readonly string[]) => c.map((x, i) => x.padEnd(widths[i] ?? 0)).join('  ');
  console.log(line(header));
  console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  for (const c of cells) console.log(line(c));
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exit(1);
});
