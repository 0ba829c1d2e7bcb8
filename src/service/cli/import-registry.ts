import { statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { formatRegistryReport, importRegistry } from '../importers/registry';
import { openCliMarket, runCli, storeLocation, UsageError } from './cli-support';

/** `npm run import:registry -- <dir> [--data-dir d]`: imports CIP-26 token-registry mappings. */

const USAGE = `Usage: npm run import:registry -- <dir> [--data-dir <dir>]

Imports the CIP-26 token-registry mapping files (*.json) of <dir> into the store: tokens are added or
updated (ticker, name, decimals, PNG logo). Invalid files and non-PNG logos are reported and skipped.
Running it again with the same files changes nothing.

Options:
  --data-dir <dir>  data directory of the store (default: $DATA_DIR, else ./data)

With DATABASE_URL set, the market is that PostgreSQL database (a cluster's): the import is its single
writer, refused while an ingest node or a server holds it (stop it first); with REDIS_URL too, the
cluster's API nodes reload what the import wrote (docs/scaling.md).
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
  const [dir, ...extra] = positionals;
  if (dir === undefined) throw new UsageError('missing <dir>: the directory of registry mapping files');
  if (extra.length > 0) throw new UsageError(`unexpected argument ${extra[0] ?? ''}`);
  const stat = statSync(dir, { throwIfNoEntry: false });
  if (!stat) throw new Error(`${dir} does not exist`);
  if (!stat.isDirectory()) throw new Error(`${dir} is not a directory`);

  const handle = await openCliMarket(storeLocation(values['data-dir']), 'import:registry');
  try {
    const report = await importRegistry(handle, dir);
    for (const line of formatRegistryReport(report)) process.stdout.write(`${line}\n`);
  } finally {
    await handle.close();
  }
});
