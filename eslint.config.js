// @ts-check
import js from '@eslint/js';
import importX from 'eslint-plugin-import-x';
import reactHooks from 'eslint-plugin-react-hooks';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import globals from 'globals';
import tseslint from 'typescript-eslint';

/** The layer rule (DEVELOPERS.md "Layout"): each zone lists what its folder may NOT import. */
const layerZones = [
  { target: './src/shared', from: ['./src/service', './src/gateway', './src/datafeed', './src/app'], message: 'shared is the wire contract: it imports nothing else of ours.' },
  { target: './src/service', from: ['./src/gateway', './src/datafeed', './src/app'], message: 'service imports only shared.' },
  { target: './src/gateway', from: ['./src/datafeed', './src/app'], message: 'gateway imports shared and service only.' },
  { target: './src/datafeed', from: ['./src/service', './src/gateway', './src/app'], message: 'datafeed imports shared only.' },
  { target: './src/app', from: ['./src/service', './src/gateway'], message: 'app imports shared and datafeed, never service or gateway.' },
];

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'test-results/**', 'playwright-report/**', 'data/**', '.data-*/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { ecmaVersion: 2023, sourceType: 'module', globals: { ...globals.node, ...globals.browser } },
    plugins: { 'import-x': importX },
    settings: { 'import-x/resolver-next': [createTypeScriptImportResolver({ project: './tsconfig.json' })] },
    rules: {
      'import-x/no-restricted-paths': ['error', { zones: layerZones }],
      'import-x/no-default-export': 'error',
      '@typescript-eslint/no-non-null-assertion': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      'no-console': 'off',
    },
  },
  {
    files: ['src/app/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    rules: { ...reactHooks.configs.recommended.rules },
  },
  {
    // Tool configs must default-export.
    files: ['vite.config.ts', 'playwright.config.ts', 'eslint.config.js'],
    rules: { 'import-x/no-default-export': 'off' },
  },
);
