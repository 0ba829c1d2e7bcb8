import { statSync } from 'node:fs';
import { SingleBar } from 'cli-progress';
import { formatTradesReport, importTrades } from '../importers/trades';
import { main } from './frame';

/** `npm run import:trades -- <file.jsonl> [--data-dir d]`: imports token, pool and trade lines. */
await main({
  usage: 'npm run import:trades -- <file.jsonl> [--data-dir <dir>]',
  description: `Imports a JSON Lines file into the store. Each line is one JSON object:
  {"kind":"token","unit":"<policy+asset hex>","ticker":"SNEK","name":"Snek","decimals":0}
  {"kind":"pool","pool_id":"<hex>","group":"MinswapV2","base":"","quote":"<unit>","fee_bps":30}
  {"id":"<unique>","block_time":1718000000,"pool_id":"<hex>","previous_price":0.0037,"current_price":0.00371,
   "previous_tvl":2000000,"current_tvl":2000400,"volume":200}          (a trade; "kind":"trade" optional)
Trades must be in time order per pair. Bad lines are reported with their line number; good lines are
kept. Trades already imported (same id) are skipped, so a re-run changes nothing. See docs/importers.md.`,
  databaseNote: `With DATABASE_URL set, the market is that PostgreSQL database (a cluster's): the import is its single
writer, refused while an ingest node or a server holds it (stop it first); with REDIS_URL too, the
cluster's API nodes reload what the import wrote (docs/scaling.md).`,
  purpose: 'import:trades',
  positionals: { min: 1, max: 1, missing: '<file.jsonl>' },
  run: async ({ positionals, openMarket, print }) => {
    const file = positionals[0] ?? '';
    const stat = statSync(file, { throwIfNoEntry: false });
    if (!stat) throw new Error(`${file} does not exist`);
    if (!stat.isFile()) throw new Error(`${file} is not a file`);
    const size = stat.size;
    const handle = await openMarket();
    // A progress bar on an interactive terminal only: logs and pipes get the summary alone.
    const bar = process.stderr.isTTY
      ? new SingleBar(
          { format: 'importing [{bar}] {percentage}% | {value}/{total} bytes', stream: process.stderr },
          undefined,
        )
      : undefined;
    bar?.start(size, 0);
    try {
      const report = await importTrades(handle, file, { onProgress: (bytes) => bar?.update(Math.min(bytes, size)) });
      bar?.update(size);
      bar?.stop();
      for (const line of formatTradesReport(report)) print(line);
    } finally {
      bar?.stop();
    }
  },
});
