import { KeyStore, type StoredKey } from '../auth/keys';
import { parsePlans } from '../auth/plans';
import { requireStore } from '../open-market';
import { openReaderStore, openStore } from '../store/open';
import type { Store } from '../store/ports';
import { main, UsageError } from './frame';

/**
 * `npm run keys -- create|list|revoke`: manages the API keys of a data directory's key store, or of
 * `DATABASE_URL`'s PostgreSQL database (a cluster's: every node reads keys from there). It only
 * touches the api_keys table, so it opens the database directly (no writer lock) and may run while
 * the servers run; they see new and revoked keys on the next request.
 */

const COMMANDS = ['create', 'list', 'revoke'] as const;

function formatTime(ms: number | null): string {
  return ms === null ? '-' : new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** A plain text table: a header row, then one row per key, columns padded to their widest cell. */
function table(keys: readonly StoredKey[]): string[] {
  const rows = [
    ['id', 'prefix', 'plan', 'label', 'created', 'revoked'],
    ...keys.map((k) => [String(k.id), k.prefix, k.plan, k.label, formatTime(k.createdAt), formatTime(k.revokedAt)]),
  ];
  const widths = rows[0]?.map((_, col) => Math.max(...rows.map((row) => (row[col] ?? '').length))) ?? [];
  return rows.map((row) =>
    row
      .map((cell, col) => cell.padEnd(widths[col] ?? 0))
      .join('  ')
      .trimEnd(),
  );
}

await main({
  usage: `  npm run keys -- create [--plan <plan>] [--label <text>] [--data-dir <dir>]
  npm run keys -- list [--data-dir <dir>]
  npm run keys -- revoke <id-or-prefix> [--data-dir <dir>]`,
  description: `create  makes a new API key and prints it once (only its hash is stored). The plan defaults to free;
        plans are free, pro, enterprise and any defined in TOKEN_API_PLANS.
list    shows every key: id, prefix, plan, label, created, revoked.
revoke  revokes the key with that id (a number) or prefix (the first 12 characters, e.g. cdx_AbCdEfGh).`,
  options: { plan: { type: 'string' }, label: { type: 'string' } },
  optionHelp: [
    '  --plan <plan>     plan of the new key (default: free)',
    '  --label <text>    a note to recognise the key by',
  ],
  databaseNote: `With DATABASE_URL set, the keys are stored in that PostgreSQL database (every node of a cluster reads
them there), and --data-dir does not apply.`,
  purpose: 'keys',
  positionals: { min: 1, max: 2, missing: 'command: create, list or revoke' },
  run: async ({ positionals, option, where, env, print }) => {
    const [command, ...args] = positionals;
    if (!COMMANDS.some((known) => known === command))
      throw new UsageError(`unknown command ${command ?? ''} (expected create, list or revoke)`);
    if (command !== 'create' && (option('plan') !== undefined || option('label') !== undefined))
      throw new UsageError('--plan and --label apply to create only');
    const expectedArgs = command === 'revoke' ? 1 : 0;
    if (args.length < expectedArgs) throw new UsageError('missing <id-or-prefix> of the key to revoke');
    if (args.length > expectedArgs) throw new UsageError(`unexpected argument ${args[expectedArgs] ?? ''}`);

    // Checked before the store is opened, so a typo leaves no trace.
    const plans = command === 'create' ? parsePlans(env.TOKEN_API_PLANS) : undefined;
    const plan = option('plan') ?? 'free';
    if (plans && !Object.hasOwn(plans, plan))
      throw new Error(`unknown plan "${plan}" (known plans: ${Object.keys(plans).join(', ')})`);

    // Keys may be created before the first start; listing or revoking needs an existing store.
    if (command !== 'create' && where.databaseUrl === undefined) requireStore(where.dataDir);
    // No writer lock: keys are managed beside running servers (each key write is its own transaction).
    const opened: Store =
      where.databaseUrl !== undefined ? await openReaderStore(where.databaseUrl) : openStore(where.dataDir);
    try {
      const store = new KeyStore(opened.keys);
      if (command === 'create') {
        const label = option('label') ?? '';
        const { key, stored } = await store.create(plan, label);
        print(
          `Created key ${stored.id} (plan ${stored.plan}${stored.label ? `, label "${stored.label}"` : ''}):\n\n    ${key}\n\nCopy it now: only its hash is stored, it cannot be shown again.`,
        );
      } else if (command === 'list') {
        const keys = await store.list();
        if (keys.length === 0) print('No keys.');
        else for (const line of table(keys)) print(line);
      } else {
        const target = args[0] ?? '';
        const revoked = await store.revoke(target);
        if (revoked === 0) throw new Error(`no active key with id or prefix "${target}" (see npm run keys -- list)`);
        print(`Revoked ${revoked} key${revoked === 1 ? '' : 's'} (${target}).`);
      }
    } finally {
      await opened.close();
    }
  },
});
