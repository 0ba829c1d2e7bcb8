import { config } from 'zod/mini';

/**
 * zod 4 compiles each object schema's parser with `new Function` when the page allows it, and finds
 * out by trying: an eval, which the page's Content-Security-Policy refuses (no 'unsafe-eval') and
 * reports as a violation even though zod catches the error. Without it (`jitless`), zod parses with
 * its ordinary code and never tries. zod reads this when each schema is built, so the entry imports
 * this module before anything else (src/app/main.tsx).
 */
config({ jitless: true });
