import { ESLint } from 'eslint';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

/**
 * The store's lint zone (eslint.config.js `storeZones`) is "everything in src/service but store/": a
 * store module importing any other folder of the service fails the lint, a folder made tomorrow
 * included, and nothing the store may import does.
 */
const ROOT = resolve(import.meta.dirname, '../..');
/** A service folder no list names: made for this test, removed after it. */
const NEW_FOLDER = `zone-probe-${process.pid}`;

describe("the store's lint zone", () => {
  const eslint = new ESLint({ cwd: ROOT });

  /** The no-restricted-paths messages of a store module holding `source`. */
  async function zoneErrors(source: string): Promise<string[]> {
    const [result] = await eslint.lintText(`${source}\nexport const probe = value;\n`, {
      filePath: join(ROOT, 'src/service/store/zone-probe.ts'),
    });
    return (result?.messages ?? []).filter((m) => m.ruleId === 'import-x/no-restricted-paths').map((m) => m.message);
  }

  beforeAll(() => {
    mkdirSync(join(ROOT, 'src/service', NEW_FOLDER), { recursive: true });
    writeFileSync(join(ROOT, 'src/service', NEW_FOLDER, 'thing.ts'), 'export const value = 1;\n');
  });
  afterAll(() => rmSync(join(ROOT, 'src/service', NEW_FOLDER), { recursive: true, force: true }));

  it('fails a store module importing a service folder that no list names (made after the rule)', async () => {
    expect(await zoneErrors(`import { value } from '../${NEW_FOLDER}/thing';`)).toEqual([
      expect.stringMatching(/store imports only shared/),
    ]);
  }, 60_000);

  it('fails a store module importing the market model, a module at the top of the service, or node', async () => {
    for (const source of [
      "import { LOGO_NONE as value } from '../market/model';",
      "import { parseServiceConfig as value } from '../config';",
      "import { redactedLog as value } from '../../node/log';",
    ])
      expect(await zoneErrors(source), source).toHaveLength(1);
  }, 60_000);

  it('passes a store module importing the store and shared', async () => {
    expect(await zoneErrors("import { BARS_STALE as value } from './statements';")).toEqual([]);
    expect(await zoneErrors("import { RESOLUTIONS as value } from '../../shared/resolutions';")).toEqual([]);
  }, 60_000);
});
