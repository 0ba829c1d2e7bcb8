import { join, resolve } from 'node:path';
import { serveStatic } from '@hono/node-server/serve-static';
import { Hono } from 'hono';
import type { Gateway } from '../gateway/gateway';
import type { LogHook } from '../node/log';
import type { PageBudget } from './first-paint';
import { NON_PAGE } from './routes';

export interface StaticAppOptions {
  /** Directory of the built app (vite build's dist/). */
  readonly dir: string;
  /** The gateway the page's first paint asks for its first answers (first-paint.ts). */
  readonly gateway: Gateway;
  readonly log?: LogHook;
  /** Server renders per client address (first-paint.ts); none: every page is rendered. */
  readonly budget?: PageBudget;
}

/**
 * The built app: its page on / and /index.html (with the skeleton and first bars of first-paint.ts),
 * its files (the build's .br/.gz when the browser accepts them; hashed assets cached for good), and the
 * page again on any other path that is not an API's (the app's own routes).
 */
export async function staticApp(options: StaticAppOptions): Promise<Hono> {
  const root = resolve(options.dir);
  const app = new Hono({ strict: false });
  app.use('/assets/*', async (c, next) => {
    await next();
    if (c.res.status === 200) c.res.headers.set('Cache-Control', 'public, max-age=31536000, immutable');
  });
  // Loaded here only: under Vite's servers (no static directory) the page is Vite's, and the app's code is not imported.
  const { firstPaintPage } = await import('./first-paint');
  const page = firstPaintPage({
    indexFile: join(root, 'index.html'),
    gateway: options.gateway,
    ...(options.log ? { log: options.log } : {}),
    ...(options.budget ? { budget: options.budget } : {}),
  });
  app.get('/', page);
  app.get('/index.html', page);
  // The build's manifest is the server's (the overview page's preloads, first-paint.ts), not the browser's.
  app.get('/.vite/*', (c) => c.notFound());
  app.get('*', serveStatic({ root, precompressed: true }));
  app.get('*', (c) => {
    if (NON_PAGE.test(c.req.path)) return c.notFound();
    return page(c);
  });
  return app;
}
