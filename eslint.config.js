import { readdirSync } from 'node:fs';
// @ts-check
import js from '@eslint/js';
import importX from 'eslint-plugin-import-x';
import reactHooks from 'eslint-plugin-react-hooks';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/**
 * The layer rule (README "How it is built"): each zone lists what its folder may NOT import. `node`
 * holds HTTP helpers for Node servers (service and gateway); `server` is the composition root, the one
 * place that sees both the service and the gateway.
 */
const layerZones = [
  {
    target: './src/shared',
    from: ['./src/node', './src/service', './src/gateway', './src/server', './src/datafeed', './src/app'],
    message: 'shared is the wire contract: it imports nothing else of ours.',
  },
  {
    target: './src/node',
    from: ['./src/service', './src/gateway', './src/server', './src/datafeed', './src/app'],
    message: 'node (HTTP helpers for Node servers) imports only shared.',
  },
  {
    target: './src/service',
    from: ['./src/gateway', './src/server', './src/datafeed', './src/app'],
    message: 'service imports only shared and node.',
  },
  {
    target: './src/gateway',
    from: ['./src/service', './src/server', './src/datafeed', './src/app'],
    message: 'gateway imports only shared and node: it reaches the service through its upstream, never its modules.',
  },
  {
    target: './src/server',
    from: ['./src/datafeed'],
    message: 'server (the composition root) imports shared, node, service and gateway.',
  },
  // The three exceptions: the page's skeleton is the app's own first render, made on the server, the page's first
  // chart is read from its URL as the app reads it, and an overview page asks its list from its head by the URL the
  // app asks (src/server/first-paint.ts).
  {
    target: './src/server',
    from: './src/app',
    except: ['./skeleton.tsx', './lib/first-chart.ts', './features/overview/lib/group-stats-url.ts'],
    message:
      "server imports of the app only its skeleton (src/app/skeleton.tsx), its first chart (src/app/lib/first-chart.ts) and the overview's list URL (src/app/features/overview/lib/group-stats-url.ts): the page's first render, first bars and preloads, made on the server.",
  },
  {
    target: './src/datafeed',
    from: ['./src/node', './src/service', './src/gateway', './src/server', './src/app'],
    message: 'datafeed imports shared only.',
  },
  {
    target: './src/app',
    from: ['./src/node', './src/service', './src/gateway', './src/server'],
    message: 'app imports shared and datafeed, never node, service, gateway or server.',
  },
];

/**
 * The store seam (docs/architecture.md "Storage"): the service reaches its data only through the interfaces
 * of src/service/store/ports.ts, opened by store/open.ts. The engines (better-sqlite3, pg) and the engines'
 * folders (store/sqlite/, store/postgres/) stay inside the store; the only exceptions are fault injection at
 * the engine in tests and the benchmark's raw-SQL baseline.
 */
const storeEngine = {
  paths: [
    {
      name: 'better-sqlite3',
      message:
        "The SQLite engine is the store's business: use the interfaces of src/service/store/ports.ts (opened by store/open.ts).",
    },
    {
      name: 'pg',
      message:
        "The PostgreSQL driver is the store's business: use the interfaces of src/service/store/ports.ts (opened by store/open.ts).",
    },
  ],
  patterns: [
    {
      group: ['**/store/sqlite/*', '**/store/postgres/*'],
      message: 'The stores are reached through src/service/store/open.ts and the interfaces of ports.ts.',
    },
  ],
};

/**
 * The store is the service's lowest layer: its rows and its rules (how a commit, a rollback, a re-fold and a
 * rebuild change them: store/rules.ts). It imports nothing else of the service, whatever folder the service
 * grows (everything in src/service but store/ is the zone's `from`), nor node's HTTP helpers.
 */
const storeMessage =
  'store imports only shared: the market model, HTTP and the rest of the service build on it, not the reverse.';
const storeZones = [
  { target: './src/service/store', from: './src/service', except: ['./store'], message: storeMessage },
  { target: './src/service/store', from: './src/node', message: storeMessage },
];

/** The app's features do not import each other (app.tsx composes them): one zone per feature folder. */
const features = readdirSync(new URL('./src/app/features', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name);
const featureZones = features.map((name) => ({
  target: `./src/app/features/${name}`,
  from: features.filter((other) => other !== name).map((other) => `./src/app/features/${other}`),
  message: 'features do not import each other: app.tsx composes them and passes what one needs from another as props.',
}));

/**
 * Inside the app, imports go one way (docs/app.md "Layout"): `lib` (pure functions) at the bottom, then
 * `stores`, then what features share (`api`, `hooks`, `components`, `providers`), then the features, and
 * the shell (app.tsx and page/, start.tsx, main.tsx, first-paint.ts, skeleton.tsx) on top, which composes them.
 * Each zone lists what its folder may not import: nothing of the app imports a level above its own.
 */
const APP_SHELL = [
  './src/app/app.tsx',
  './src/app/start.tsx',
  './src/app/main.tsx',
  './src/app/first-paint.ts',
  './src/app/skeleton.tsx',
  './src/app/page',
];
const appZones = [
  {
    target: './src/app/lib',
    from: [
      './src/app/stores',
      './src/app/api',
      './src/app/hooks',
      './src/app/components',
      './src/app/providers',
      './src/app/features',
      ...APP_SHELL,
    ],
    message: 'lib holds pure functions: it imports only other lib modules, shared and datafeed.',
  },
  {
    target: './src/app/stores',
    from: [
      './src/app/api',
      './src/app/hooks',
      './src/app/components',
      './src/app/providers',
      './src/app/features',
      ...APP_SHELL,
    ],
    message: 'stores import only lib (and shared, datafeed): what is above them reads them, not the reverse.',
  },
  ...['api', 'hooks', 'components', 'providers'].map((folder) => ({
    target: `./src/app/${folder}`,
    from: ['./src/app/features', ...APP_SHELL],
    message: `${folder} is shared by the features: it never imports a feature or the shell that composes them.`,
  })),
  {
    target: './src/app/features',
    from: APP_SHELL,
    message:
      'features never import the shell (app.tsx, start.tsx, main.tsx, first-paint.ts): it composes them and hands them what they need.',
  },
];

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'dist-server/**',
      'node_modules/**',
      'test-results/**',
      'playwright-report/**',
      'data/**',
      '.data-*/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module', globals: { ...globals.node, ...globals.browser } },
    plugins: { 'import-x': importX },
    settings: {
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })],
      // TypeScript files are parsed for what they import (import-x/no-cycle follows them), not only resolved.
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
      'import-x/extensions': ['.ts', '.tsx', '.js'],
    },
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        { zones: [...layerZones, ...storeZones, ...featureZones, ...appZones] },
      ],
      'no-restricted-imports': ['error', storeEngine],
      'import-x/no-default-export': 'error',
      '@typescript-eslint/no-non-null-assertion': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'off',
    },
  },
  {
    // Inside the store, and the two places that must touch the engine itself.
    files: [
      'src/service/store/**',
      'tests/support/sqlite-faults.ts',
      'tests/support/postgres-faults.ts',
      'tests/service/store/**',
      'bench/service.ts',
    ],
    rules: { 'no-restricted-imports': 'off' },
  },
  {
    files: ['src/app/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: reactHooks.configs.recommended.rules,
  },
  {
    // No circular import anywhere in src/ (type-only imports too: tests/tools/import-cycles.test.ts).
    files: ['src/**/*.{ts,tsx}'],
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  {
    // One path for browser data: the app reaches the gateway through the datafeed (its GatewayClient
    // and live connection), handed the browser's fetch and EventSource by start.tsx alone; the page's
    // first paint is the one other caller (its early answers go to the datafeed's first requests).
    files: ['src/app/**/*.{ts,tsx}'],
    ignores: ['src/app/start.tsx', 'src/app/first-paint.ts'],
    rules: {
      'no-restricted-globals': [
        'error',
        {
          name: 'fetch',
          message:
            'The app asks the gateway through the datafeed (useApi / useDatafeed), not fetch: one browser HTTP client.',
        },
        {
          name: 'EventSource',
          message: "The live connection is the datafeed's (onBars, onTrades, onLiveStatus), not a second EventSource.",
        },
        { name: 'XMLHttpRequest', message: 'The app asks the gateway through the datafeed, not XMLHttpRequest.' },
      ],
      'no-restricted-properties': [
        'error',
        {
          object: 'window',
          property: 'fetch',
          message:
            'The app asks the gateway through the datafeed (useApi / useDatafeed), not fetch: one browser HTTP client.',
        },
        {
          object: 'globalThis',
          property: 'fetch',
          message:
            'The app asks the gateway through the datafeed (useApi / useDatafeed), not fetch: one browser HTTP client.',
        },
        {
          object: 'window',
          property: 'EventSource',
          message: "The live connection is the datafeed's, not a second EventSource.",
        },
      ],
    },
  },
  {
    // Tool configs (and Playwright's global setup) must default-export.
    files: ['vite.config.ts', 'playwright.config.ts', 'eslint.config.js', 'e2e/support/browser-version.ts'],
    rules: { 'import-x/no-default-export': 'off' },
  },
);
