import { statSync } from 'node:fs';
import { formatRegistryReport, importRegistry } from '../importers/registry';
import { main } from './frame';

/** `npm run import:registry -- <dir> [--data-dir d]`: imports CIP-26 token-registry mappings. */
await main({
  usage: 'npm run import:registry -- <dir> [--data-dir <dir>]',
  description: `Imports the CIP-26 token-registry mapping files (*.json) of <dir> into the store: tokens are added or
updated (ticker, name, decimals, PNG logo). Invalid files and non-PNG logos are reported and skipped.
Running it again with the same files changes nothing.`,
  databaseNote: `With DATABASE_URL set, the market is that PostgreSQL database (a cluster's): the import is its single
writer, refused while an ingest node or a server holds it (stop it first); with REDIS_URL too, the
cluster's API nodes reload what the import wrote (docs/scaling.md).`,
  purpose: 'import:registry',
  positionals: { min: 1, max: 1, missing: '<dir>: the directory of registry mapping files' },
  run: async ({ positionals, openMarket, print }) => {
    const dir = positionals[0] ?? '';
    const stat = statSync(dir, { throwIfNoEntry: false });
    if (!stat) throw new Error(`${dir} does not exist`);
    if (!stat.isDirectory()) throw new Error(`${dir} is not a directory`);
    const report = await importRegistry(await openMarket(), dir);
    for (const line of formatRegistryReport(report)) print(line);
  },
});
