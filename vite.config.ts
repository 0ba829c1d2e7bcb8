/// <reference types="vitest/config" />
import { getRequestListener } from '@hono/node-server';
import react from '@vitejs/plugin-react';
import { defineConfig, type Plugin, type PreviewServer, type ViteDevServer } from 'vite';
import { compression } from 'vite-plugin-compression2';
import { createPlatform, type Platform } from './src/server/platform';
import { progressReporter } from './src/server/progress';
import { readSettings } from './src/server/settings';
import { NODE_SERVER_OPTIONS } from './src/node/response-sink';
import { guardRawPaths } from './src/node/raw-path';

/** Paths the platform answers; everything else is Vite's (the SPA and its modules). */
const PLATFORM_PATHS = /^\/(api|gw|healthz|__test__)(\/|$|\?)/;

/**
 * Mounts the data service (/api/v1, /healthz) and the gateway (/gw/v1) on `vite` and `vite preview`,
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
    platform = await createPlatform({ ...options, hooks: { log: (line) => server.config.logger.info(line), onProgress: progress.onProgress } });
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

/** The module that draws the page's first picture of the chart (src/app/boot.ts loads it at once). */
const PICTURE_MODULE = 'src/app/boot/boot-chart.ts';
/**
 * The picture's module and what it needs beyond the entry, in one chunk: no second round trip for its
 * imports (about 5 ms sooner). The build fails when it needs a module left out here (loadPictureEarly).
 */
const PICTURE_CHUNK =
  /node_modules[\\/](lightweight-charts|fancy-canvas)[\\/]|src[\\/]app[\\/](boot[\\/]boot-chart|features[\\/]chart[\\/]lib[\\/](chart-parts|chart-style)|lib[\\/](palette|format|chart-time|time-format|orientation))\.ts$|src[\\/]datafeed[\\/]history-bars\.ts$|src[\\/]shared[\\/]time\.ts$/;

/**
 * The built page runs the picture's module from its head (a module script after the entry: fetched at
 * once, evaluated as soon as it and the entry are in), rather than once the entry has asked for it: the
 * first candles wait for no script but their own, as a page that only draws them would (the app
 * benchmark's floor). Preloading it instead (`modulepreload`) was measured too: the picture came
 * 10-20 ms later. The app's own chunks are loaded after the picture (src/app/main.tsx).
 */
function loadPictureEarly(): Plugin {
  let base = '/';
  return {
    name: 'load-picture-early',
    apply: 'build',
    configResolved(config) {
      base = config.base;
    },
    transformIndexHtml: {
      order: 'post',
      handler(_html, ctx) {
        const bundle = ctx.bundle;
        if (!bundle) return [];
        const chunks = Object.values(bundle).filter((item) => item.type === 'chunk');
        const picture = chunks.find((chunk) => chunk.moduleIds.some((id) => id.replaceAll('\\', '/').endsWith(PICTURE_MODULE)));
        if (!picture) throw new Error(`${PICTURE_MODULE} is not a chunk of the build: the page could not load the first picture early`);
        // The picture waits for no chunk but the entry (and the bundler's few-hundred-byte runtime), and
        // the entry (which asks the first requests) never waits for the picture's.
        const entries = chunks.filter((chunk) => chunk.isEntry);
        const beyondEntry = picture.imports.filter((file) => !entries.some((entry) => entry.fileName === file));
        const waits = beyondEntry.filter((file) => !/(^|\/)rolldown-runtime-[^/]*\.js$/.test(file));
        if (waits.length > 0) throw new Error(`the picture's chunk imports ${waits.join(', ')}: add their modules to PICTURE_CHUNK (vite.config.ts)`);
        if (entries.some((entry) => entry.imports.includes(picture.fileName))) throw new Error(`the entry imports the picture's chunk: keep the entry's modules out of PICTURE_CHUNK (vite.config.ts)`);
        // The runtime (all that is left beyond the entry) is asked with the page, not once the entry or
        // the picture has come and named it (its answer came after the picture's chunk and held its evaluation back).
        return [
          ...beyondEntry.map((file) => ({ tag: 'link', attrs: { rel: 'modulepreload', crossorigin: true, href: `${base}${file}` }, injectTo: 'head' as const })),
          { tag: 'script', attrs: { type: 'module', crossorigin: true, src: `${base}${picture.fileName}` }, injectTo: 'head' as const },
        ];
      },
    },
  };
}

export default defineConfig(({ isSsrBuild }) => ({
  plugins: [
    react(),
    tokenPriceService(),
    loadPictureEarly(),
    // The app's assets also as .br and .gz beside them: npm run serve sends those as they are
    // (serveStatic's precompressed), never compressing on the fly. The server build needs none.
    ...(isSsrBuild ? [] : [compression({ algorithms: ['brotliCompress', 'gzip'], include: /\.(js|css|html|svg)$/, logLevel: 'silent' })]),
  ],
  build: {
    target: 'es2022',
    sourcemap: true,
    rolldownOptions: { output: { codeSplitting: { groups: [{ name: 'picture', test: PICTURE_CHUNK, includeDependenciesRecursively: false }] } } },
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
