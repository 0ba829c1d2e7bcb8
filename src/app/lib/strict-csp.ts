/**
 * Classic zod 4 compiles each object schema's parser with `new Function` when the page allows it, and
 * finds out by trying: an eval, which the page's Content-Security-Policy refuses (no 'unsafe-eval') and
 * reports as a violation even though zod catches the error. Without it (`jitless`), zod parses with its
 * ordinary code and never tries. The app's code uses zod/mini, whose object schemas are never compiled;
 * this keeps a classic zod schema that comes to the page from reporting violations. zod reads it when
 * each schema is built, so the entry imports this module before anything else (src/app/main.tsx).
 *
 * zod keeps its configuration (what `config()` sets) in `globalThis.__zod_globalConfig` and takes the
 * one already there when it loads (zod/v4/core/core.js). Set here without importing zod, it keeps zod
 * out of the page's first script, which builds no schema (the first bars are checked without zod,
 * lib/history-check.ts). The object is changed in place, so that a zod already loaded sees it too.
 * tests/app/strict-csp.test.ts holds zod to this; every e2e flow fails on a violation of the policy.
 */
const holder = globalThis as { __zod_globalConfig?: { jitless?: boolean } };
(holder.__zod_globalConfig ??= {}).jitless = true;
