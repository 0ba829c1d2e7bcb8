/// <reference types="vitest/config" />
import { fileURLToPath } from 'node:url';
import { getRequestListener } from '@hono/node-server';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin, type PreviewServer, type ViteDevServer } from 'vite';
import { compression } from 'vite-plugin-compression2';
import { createPlatform, type Platform } from './src/server/platform';
import { progressReporter } from './src/server/progress';
import { readSettings } from './src/server/settings';
import { NODE_SERVER_OPTIONS } from './src/node/response-sink';
import { guardRawPaths } from './src/node/raw-path';
import { securityHeadersPlugin } from './src/server/vite-security-headers';

/** Paths the platform answers; everything else is Vite's (the SPA and its modules). */
const PLATFORM_PATHS = /^\/(api|gw|healthz|livez|readyz|metrics|__test__)(\/|$|\?)/;

/**
 * Mounts the data service (/api/v1, /healthz), the gateway (/gw/v1), the probes and /metrics on `vite` and `vite preview`,
 * configured by the same environment variables as `npm run serve`. The market lives in SQLite, so a
 * dev-server restart (Vite restarts when this file's imports change) picks up where it left off.
 */
function tokenPriceService(): Plugin {
  let platform: Platform | undefined;
  const mount = async (server: ViteDevServer | PreviewServer) => {
    // Vitest loads this config too: no market there (tests build their own).
    if (process.env.VITEST) return;
    const { platform: options } = readSettings({}, process.env);
    const progress = progressReporter();
    platform = await createPlatform({
      ...options,
      hooks: { log: (line) => server.config.logger.info(line), onProgress: progress.onProgress },
    });
    progress.stop();
    platform.startLive();
    const listener = guardRawPaths(getRequestListener(platform.app.fetch, NODE_SERVER_OPTIONS));
    // No path argument: with one, connect strips the prefix and Hono would not see /api/v1.
    server.middlewares.use((req, res, next) => {
      if (req.url && PLATFORM_PATHS.test(req.url)) listener(req, res);
      else next();
    });
    server.httpServer?.once('close', () => {
      void platform?.close();
      platform = undefined;
    });
  };
  return {
    name: 'token-price-service',
    configureServer: mount,
    configurePreviewServer: mount,
  };
}

/** The page's first paint in the browser (src/app/main.tsx imports it): it draws the app's chart. */
const FIRST_PAINT_MODULE = 'src/app/first-paint.ts';

/**
 * The page loads one script before its first candles: the entry, with every module it imports
 * statically (the first paint, the app's chart and lightweight-charts), as the benchmark's floor page
 * does. Each further chunk the page asks at once is another request before the first candles, and on
 * HTTP/1.1 another connection: the chart in a chunk of its own beside the entry (and the bundler's
 * common chunks beside them, five requests in all) came 15-20 ms later. Fails the build when the entry
 * would import a chunk, or no longer hold the first paint's module.
 */
function onePageScript(): Plugin {
  return {
    name: 'one-page-script',
    apply: 'build',
    transformIndexHtml: {
      order: 'post',
      handler(_html, ctx) {
        const bundle = ctx.bundle;
        if (!bundle) return;
        const entries = Object.values(bundle).filter((item) => item.type === 'chunk' && item.isEntry);
        for (const entry of entries) {
          if (entry.type !== 'chunk') continue;
          if (entry.imports.length > 0)
            throw new Error(
              `the entry ${entry.fileName} imports ${entry.imports.join(', ')}: the page would ask more than one script before its first candles (vite.config.ts, onePageScript)`,
            );
          if (!entry.moduleIds.some((id) => id.replaceAll('\\', '/').endsWith(FIRST_PAINT_MODULE)))
            throw new Error(
              `the entry ${entry.fileName} does not hold ${FIRST_PAINT_MODULE}: the first candles would wait for another script (vite.config.ts, onePageScript)`,
            );
        }
        // No chunk lists a stylesheet: Vite's chunk loader would add a link to it, and the page carries it inline.
        for (const item of Object.values(bundle)) {
          const css = item.type === 'chunk' ? [...(item.viteMetadata?.importedCss ?? [])] : [];
          if (css.length > 0)
            throw new Error(
              `the chunk ${item.fileName} lists the stylesheet ${css.join(', ')}: its loader would fetch what the page carries inline (vite.config.ts, cssCodeSplit)`,
            );
        }
      },
    },
  };
}

export default defineConfig(({ isSsrBuild }) => ({
  // `@/…` is `src/…` (tsconfig.json's paths): the app's imports name what they reach instead of climbing to it.
  resolve: { alias: [{ find: /^@\//, replacement: fileURLToPath(new URL('./src/', import.meta.url)) }] },
  plugins: [
    react(),
    // Before the platform's paths are mounted: Vite's own answers (the page, its modules) get the headers too.
    securityHeadersPlugin(),
    tokenPriceService(),
    onePageScript(),
    // The app's assets also as .br and .gz beside them: npm run serve sends those as they are
    // (serveStatic's precompressed), never compressing on the fly. The server build needs none.
    ...(isSsrBuild
      ? []
      : [compression({ algorithms: ['brotliCompress', 'gzip'], include: /\.(js|css|html|svg)$/, logLevel: 'silent' })]),
  ],
  build: {
    target: 'es2022',
    // One stylesheet for the whole app, which the page carries inline (src/server/first-paint.ts,
    // inlineStylesheets). Split per chunk, the entry's stylesheet is listed among the dependencies of
    // every chunk that imports from the entry, and Vite's loader of those chunks adds a link to it
    // unless the page has one: the page then fetched a stylesheet it already had (a `disabled` link
    // kept to stop that was fetched anyway by Chromium 150). Unsplit, no chunk lists a stylesheet
    // (onePageScript fails the build if one does), so nothing adds it, whatever the browser.
    cssCodeSplit: false,
    sourcemap: true,
    // dist/.vite/manifest.json: each module's chunk and what it imports, which the server reads to preload
    // the overview's chunks from an overview page's head (src/server/first-paint.ts, overviewPreloads).
    manifest: !isSsrBuild,
    rolldownOptions: isSsrBuild
      ? {
          // The server, and the thread of the first start's bulk load, which src/service/store/sqlite/bulk.ts
          // starts from its own file beside the server's: every file at the top of dist-server.
          input: { serve: 'src/server/cli/serve.ts', 'sqlite-bulk-worker': 'src/service/store/sqlite/bulk-worker.ts' },
          output: { chunkFileNames: '[name]-[hash].js' },
        }
      : // Every module the entry imports statically in the entry's own chunk ('$initial': reachable from the
        // entry by static imports), not in common chunks beside it that the page would ask too (onePageScript).
        { output: { codeSplitting: { groups: [{ name: 'index', tags: ['$initial'] }] } } },
  },
  test: {
    projects: [
      {
        extends: true,
        test: {
          name: 'node',
          environment: 'node',
          include: ['tests/{shared,node,service,gateway,server,datafeed,tools}/**/*.test.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'app',
          environment: 'jsdom',
          include: ['tests/app/**/*.test.{ts,tsx}'],
          setupFiles: ['tests/app/setup.ts'],
          testTimeout: 30_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
}));
