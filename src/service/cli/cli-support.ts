/**
 * What the store CLIs (keys, import-registry, import-trades, rebuild-bars) share: the data directory
 * setting and one way to end. Exit codes: 0 done, 1 an error (one line on stderr, no stack trace),
 * 2 bad usage (the error and the usage text on stderr).
 */

import { redactText } from '../../shared/redact';
import { clusterUrls } from '../config';
import { openMarket, type MarketHandle } from '../open-market';
import { shownDatabase } from '../store/open';

/** Bad command-line usage: reported with the usage text and exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

/** Default data directory when neither `--data-dir` nor DATA_DIR is given (as for `npm run serve`). */
export const DEFAULT_DATA_DIR = './data';

/** The data directory: the `--data-dir` flag, else the DATA_DIR environment variable, else ./data. */
export function resolveDataDir(flag: string | undefined, env: Readonly<Record<string, string | undefined>> = process.env): string {
  if (flag !== undefined) {
    if (flag.trim() === '') throw new UsageError('--data-dir must not be empty');
    return flag;
  }
  const fromEnv = env.DATA_DIR;
  return fromEnv === undefined || fromEnv.trim() === '' ? DEFAULT_DATA_DIR : fromEnv;
}

/** Where a store CLI's market is: the data directory's SQLite store, or `DATABASE_URL`'s PostgreSQL database. */
export interface StoreLocation {
  readonly dataDir: string;
  readonly databaseUrl?: string;
  /** `REDIS_URL` (with `DATABASE_URL`): a cluster's API nodes are told to reload after the CLI's writes. */
  readonly redisUrl?: string;
}

/** The store a CLI works on: `DATABASE_URL` when set (as the server reads it), else the data directory. */
export function storeLocation(dataDirFlag: string | undefined, env: Readonly<Record<string, string | undefined>> = process.env): StoreLocation {
  const { databaseUrl, redisUrl } = clusterUrls(env);
  const dataDir = resolveDataDir(dataDirFlag, env);
  if (databaseUrl === undefined) return { dataDir };
  if (dataDirFlag !== undefined) throw new UsageError('--data-dir names a SQLite store, but DATABASE_URL is set: the market is in that PostgreSQL database (unset DATABASE_URL to use the data directory)');
  return { dataDir, databaseUrl, ...(redisUrl !== undefined ? { redisUrl } : {}) };
}

/** Where a location's store is, for messages (a database only as `redactUrl` shows it). */
export function shownLocation(where: StoreLocation): string {
  return where.databaseUrl !== undefined ? shownDatabase(where.databaseUrl) : where.dataDir;
}

/**
 * Opens the market for a CLI that writes it, as its single writer: a data directory's lock, or the
 * PostgreSQL writer lock (refused, clearly, while a cluster's ingest node or a server holds it: imports
 * go through the single-writer rule). With `REDIS_URL`, the API nodes reload after the writes.
 */
export function openCliMarket(where: StoreLocation, purpose: string, options: { readonly existing?: boolean } = {}): Promise<MarketHandle> {
  return openMarket(where.dataDir, purpose, {
    ...options,
    ...(where.databaseUrl !== undefined ? { databaseUrl: where.databaseUrl } : {}),
    ...(where.redisUrl !== undefined ? { redisUrl: where.redisUrl, announce: 'reloads' as const } : {}),
  });
}

/** Errors thrown by `node:util` parseArgs (unknown option, missing value, extra positional). */
function isParseArgsError(error: unknown): error is Error {
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof Error && typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_');
}

/**
 * Runs a CLI's main function and turns its outcome into an exit code and one line on stderr.
 * Set DEBUG=1 to see the stack of an unexpected error.
 */
export async function runCli(usage: string, main: () => void | Promise<void>): Promise<void> {
  // A client library's error (pg's `database "NAME" does not exist`) may repeat part of an address.
  const shown = (text: string) => redactText(text, [process.env.DATABASE_URL, process.env.REDIS_URL]);
  try {
    await main();
  } catch (error) {
    if (error instanceof UsageError || isParseArgsError(error)) {
      process.stderr.write(`error: ${shown(error.message)}\n\n${usage}\n`);
      process.exitCode = 2;
      return;
    }
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`error: ${shown(message)}\n`);
    if (process.env.DEBUG && error instanceof Error && error.stack) process.stderr.write(`${shown(error.stack)}\n`);
    process.exitCode = 1;
  }
}
