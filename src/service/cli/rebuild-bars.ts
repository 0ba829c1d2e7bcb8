import { SingleBar } from 'cli-progress';
import { main } from './frame';

/** `npm run rebuild-bars [-- --data-dir d]`: deletes every bar and folds every stored trade again. */
await main({
  usage: 'npm run rebuild-bars [-- --data-dir <dir>]',
  description: `Deletes every bar of the store and rebuilds them from the stored trades (one transaction). Use it after
a bar-rule change or to check that bars and trades agree. The server must not be running.`,
  databaseNote: `With DATABASE_URL set, the store is that PostgreSQL database: the rebuild is its single writer (stop
the ingest node or server first); with REDIS_URL too, the cluster's API nodes reload afterwards.`,
  purpose: 'rebuild-bars',
  positionals: { min: 0, max: 0 },
  run: async ({ openMarket, print }) => {
    const handle = await openMarket({ existing: true });
    const bar = new SingleBar(
      {
        format: 'rebuilding bars [{bar}] {percentage}% | {value}/{total} trades',
        stream: process.stderr,
        noTTYOutput: false,
      },
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
      bar.stop();
      // A cluster's API nodes cache bars: they reload (the rebuild wrote outside the commits they hear of).
      await handle.reloadReaders();
      print(`Rebuilt bars from ${folded} trade(s) in ${((performance.now() - started) / 1000).toFixed(1)} s.`);
    } finally {
      bar.stop();
    }
  },
});
