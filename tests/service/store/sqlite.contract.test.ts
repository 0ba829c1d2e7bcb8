import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqliteStore } from '../../../src/service/store/sqlite/store';
import { describeStoreContract } from './contract';

describeStoreContract('SQLite', () => {
  const dir = mkdtempSync(join(tmpdir(), 'store-contract-'));
  return {
    open: () => Promise.resolve(openSqliteStore(dir)),
    reopen: () => Promise.resolve(openSqliteStore(dir)),
    dispose: () => Promise.resolve(rmSync(dir, { recursive: true, force: true })),
  };
});
