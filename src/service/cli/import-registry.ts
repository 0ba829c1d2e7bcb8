import { statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { formatRegistryReport, importRegistry } from '../importers/registry';
import { openMarket } from '../runtime';
import { resolveDataDir, runCli, UsageError } from './cli-support';

/** `npm run import:registry -- <dir> [--data-dir d]`: imports CIP-26 token-registry mappings. */

const USAGE = `Usage: npm run import:registry -- <dir> [--data-dir <dir>]

Imports the CIP-26 token-registry mapping files (*.json) of <dir> into the store: tokens are added or
updated (ticker, name, decimals, PNG logo). Invalid files and non-PNG logos are reported and skipped.
Running it again with the same files changes nothing.

Options:
  --data-dir <dir>  data directory of the store (default: $DATA_DIR, else ./data)
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

  const dataDir = resolveDataDir(values['data-dir']);
  const handle = await openMarket(dataDir, 'import:registry');
  try {
    const report = await importRegistry(handle, dir);
    for (const line of formatRegistryReport(report)) process.stdout.write(`${line}\n`);
  } finally {
    await handle.close();
  }
});
