import { parseArgs } from 'node:util';
import { SingleBar } from 'cli-progress';
import { openCliMarket, runCli, storeLocation, UsageError } from './cli-support';

/** `npm run rebuild-bars [-- --data-dir d]`: deletes every bar and folds every stored trade again. */

const USAGE = `Usage: npm run rebuild-bars [-- --data-dir <dir>]

Deletes every bar of the store and rebuilds them from the stored trades (one transaction). Use it after
a bar-rule change or to check that bars and trades agree. The server must not be running.

Options:
  --data-dir <dir>  data directory of the store (default: $DATA_DIR, else ./data)

With DATABASE_URL set, the store is that PostgreSQL database: the rebuild is its single writer (stop
the ingest node or server first); with REDIS_URL too, the cluster's API nodes reload afterwards.
  -h, --help        show this help`;

await runCli(USAGE, async () => {
  const { values, positionals } = parseArgs({
    options: { 'data-dir': { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    allowPositionals: true,
  });
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0] ?? ''}`);

  const handle = await openCliMarket(storeLocation(values['data-dir']), 'rebuild-bars', { existing: true });
  const bar = new SingleBar(
    { format: 'rebuilding bars [{bar}] {percentage}% | {value}/{total} trades', stream: process.stderr, noTTYOutput: false },
    undefined,
  );
  try {
    const started = performance.now();
    let begun = false;
    const folded = await handle.store.bars.rebuild((done, total) => {
      if (begun) {
        bar.update(done);
      } else {
        bar.start(total, done);
        begun = true;
      }
    });
    if (begun) bar.stop();
    // A cluster's API nodes cache bars: they reload (the rebuild wrote outside the commits they hear of).
    await handle.reloadReaders();
    const seconds = (performance.now() - started) / 1000;
    process.stdout.write(`Rebuilt bars from ${folded} trade(s) in ${seconds.toFixed(1)} s.\n`);
  } finally {
    bar.stop();
    await handle.close();
  }
});
