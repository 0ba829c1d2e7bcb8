import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type TestPostgres } from '../../support/engines';
import { openSqliteSide, postgresSide, runScenario, type OpenSide } from '../../support/rollback-property';

/**
 * After any sequence of roll-forwards and roll-backwards, the store (identity records included) and every answer of
 * /history, /tokens/current, symbol_info and /api/x/token-info equal those of a fresh store that ingested only the final chain
 * (tests/support/rollback-property.ts). A seeded sample here — SCENARIOS on SQLite, a subset on
 * PostgreSQL — and many more in `npm run soak -- --only rollbacks`.
 */
const SCENARIOS = Number(process.env.ROLLBACK_SCENARIOS ?? 500);
const PG_SCENARIOS = Number(process.env.ROLLBACK_PG_SCENARIOS ?? 25);

async function check(
  open: OpenSide,
  seeds: readonly number[],
): Promise<{ blocks: number; rollbacks: number; deepest: number; references: number }> {
  const totals = { blocks: 0, rollbacks: 0, deepest: 0, references: 0 };
  for (const seed of seeds) {
    const result = await runScenario(seed, open);
    // The seed names the scenario: `runScenario(seed, …)` replays it.
    expect(result.ours, `scenario ${seed}`).toEqual(result.fresh);
    totals.blocks += result.blocks;
    totals.rollbacks += result.rollbacks;
    totals.references += result.references;
    totals.deepest = Math.max(totals.deepest, result.deepest);
  }
  return totals;
}

const seeds = (count: number, first = 1) => Array.from({ length: count }, (_, i) => first + i);

describe('the chain source through rollbacks', () => {
  it(`leaves the store and every answer as a fresh store fed only the final chain: ${SCENARIOS} seeded fork trees on SQLite`, async () => {
    const totals = await check(openSqliteSide, seeds(SCENARIOS));
    // The sample really exercised rollbacks, deep ones among them.
    expect(totals.rollbacks).toBeGreaterThan(SCENARIOS);
    expect(totals.deepest).toBeGreaterThanOrEqual(40);
    // And CIP-68 metadata changing block by block (a token's identity put back by each rollback).
    expect(totals.references).toBeGreaterThan(SCENARIOS);
  }, 900_000);
});

describe('the chain source through rollbacks on PostgreSQL', () => {
  let pg: TestPostgres;
  beforeAll(async () => {
    pg = await startPostgres();
  }, 60_000);
  afterAll(async () => {
    await pg?.destroy();
  });

  it(`leaves the store and every answer as a fresh store fed only the final chain: ${PG_SCENARIOS} seeded fork trees`, async () => {
    const totals = await check(
      postgresSide((name) => pg.createDatabase(name)),
      seeds(PG_SCENARIOS, 10_001),
    );
    expect(totals.rollbacks).toBeGreaterThan(PG_SCENARIOS / 2);
  }, 900_000);
});
