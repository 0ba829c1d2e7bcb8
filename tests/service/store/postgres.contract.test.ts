import { afterAll, beforeAll } from 'vitest';
import { PostgresStore } from '../../../src/service/store/postgres/store';
import { startPostgres, type TestPostgres } from '../../support/engines';
import { describeStoreContract } from './contract';

/** The same contract as SQLite's, on a real PostgreSQL 15 started for this file (tests/support/engines.ts). */
let server: TestPostgres;
let counter = 0;

beforeAll(async () => {
  server = await startPostgres();
}, 120_000);
afterAll(async () => server.destroy());

describeStoreContract('PostgreSQL', () => {
  let url: string | undefined;
  return {
    open: async () => {
      url = await server.createDatabase(`contract_${counter++}`);
      return PostgresStore.open(url);
    },
    reopen: () => PostgresStore.open(url ?? ''),
    dispose: () => Promise.resolve(),
  };
});
