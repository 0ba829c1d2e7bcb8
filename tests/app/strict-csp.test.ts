import { execFile } from 'node:child_process';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

/**
 * src/app/lib/strict-csp.ts sets zod's configuration without importing zod (it keeps zod out of the
 * page's first script). zod must still find it, loaded after or before it. zod is loaded once per
 * process (and kept by the test runner across module resets), so each case runs in a Node process of
 * its own: `Function` watched, the modules loaded in the case's order, an object schema built and
 * used. Under the page's Content-Security-Policy each function made from text (zod's probe, its
 * compiled parsers) is a reported violation. The schema is classic zod's, whose object schemas are the
 * ones zod compiles (zod/mini's, the app's, never are: the last case).
 */
const run = promisify(execFile);
// The test runner's root (the repository), as the other tests that read files from it.
const ROOT = process.cwd();
const STRICT_CSP = resolve(ROOT, 'src/app/lib/strict-csp.ts');

type Order = 'config, then zod' | 'zod, then config' | 'zod alone' | 'zod/mini alone';

async function inProcess(order: Order): Promise<{ jitless: unknown; made: number; parsed: unknown }> {
  const script = `
    const real = globalThis.Function;
    let made = 0;
    globalThis.Function = new Proxy(real, {
      construct(target, args) { made++; return Reflect.construct(target, args); },
      apply(target, self, args) { made++; return Reflect.apply(target, self, args); },
    });
    const order = ${JSON.stringify(order)};
    if (order === 'config, then zod') await import(${JSON.stringify(STRICT_CSP)});
    const { z, config } = await import(order === 'zod/mini alone' ? 'zod/mini' : 'zod');
    if (order === 'zod, then config') await import(${JSON.stringify(STRICT_CSP)});
    const schema = z.object({ s: z.string(), t: z.array(z.number()) });
    let parsed;
    for (let i = 0; i < 3; i++) parsed = schema.parse({ s: 'ok', t: [1, 2, i] });
    console.log(JSON.stringify({ jitless: config().jitless, made, parsed }));
  `;
  const { stdout } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: ROOT,
  });
  return JSON.parse(stdout) as { jitless: unknown; made: number; parsed: unknown };
}

describe("zod's configuration from the page's first script (lib/strict-csp.ts)", () => {
  it('makes zod jitless when zod loads after it, as in the page: no function made from text', async () => {
    expect(await inProcess('config, then zod')).toEqual({ jitless: true, made: 0, parsed: { s: 'ok', t: [1, 2, 2] } });
  }, 30_000);

  it('makes a zod loaded before it jitless too (the object zod holds is changed in place)', async () => {
    expect(await inProcess('zod, then config')).toEqual({ jitless: true, made: 0, parsed: { s: 'ok', t: [1, 2, 2] } });
  }, 30_000);

  it('is what keeps zod from making functions: without it, zod probes and compiles', async () => {
    const alone = await inProcess('zod alone');
    expect(alone.jitless).toBeUndefined();
    expect(alone.made).toBeGreaterThan(0);
  }, 30_000);

  it("needs nothing for zod/mini's object schemas, which the app's code uses: never compiled", async () => {
    expect(await inProcess('zod/mini alone')).toEqual({
      jitless: undefined,
      made: 0,
      parsed: { s: 'ok', t: [1, 2, 2] },
    });
  }, 30_000);
});
