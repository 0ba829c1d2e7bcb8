import { parseArgs, type ParseArgsConfig } from 'node:util';
import { redactText } from '../../shared/redact';
import { clusterUrls } from '../config';
import { openMarket, type MarketHandle } from '../open-market';

/**
 * The one frame of the store commands (keys, import-registry, import-trades, rebuild-bars): their
 * arguments read with Node's `util.parseArgs` (strict: an unknown option is bad usage), `--data-dir` and
 * `--help` for all, the market opened under the data directory's lock (or PostgreSQL's writer lock) and
 * closed after, errors in one shape and the exit codes below, which every `--help` ends with.
 */

/** What every command's `--help` ends with: the exit codes and how an error is written. */
export const EXIT_CODES = `Exit codes:
  0  done
  1  failed: one line on stderr, "error: <what went wrong>" (DEBUG=1 adds the stack trace)
  2  bad usage: "error: <what was wrong>" and this help on stderr`;

/** Default data directory when neither `--data-dir` nor DATA_DIR is given (as for `npm run serve`). */
export const DEFAULT_DATA_DIR = './data';

/** Bad command-line usage: reported with the help text and exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

type Options = NonNullable<ParseArgsConfig['options']>;
type Env = Readonly<Record<string, string | undefined>>;

/** Where a command's market is: the data directory's SQLite store, or `DATABASE_URL`'s PostgreSQL database. */
export interface StoreLocation {
  readonly dataDir: string;
  readonly databaseUrl?: string;
  /** `REDIS_URL` (with `DATABASE_URL`): a cluster's API nodes are told to reload after the command's writes. */
  readonly redisUrl?: string;
}

/** What a command's `run` is given: its parsed arguments, where its store is, and the market opened for it. */
export interface CliContext<O extends Options> {
  /** A string option's value (undefined when not given). */
  option(name: keyof O & string): string | undefined;
  readonly positionals: readonly string[];
  readonly env: Env;
  /** The store the command works on (read after the arguments, so a bad one is bad usage). */
  readonly where: StoreLocation;
  /** Writes one line to stdout. */
  print(line: string): void;
  /**
   * Opens the market as its single writer: the data directory's lock (or PostgreSQL's writer lock),
   * refused clearly while a server or another command holds it; closed by the frame when `run` ends.
   * With `existing`, only a store that is already there (no empty one where a typo pointed).
   */
  openMarket(options?: { readonly existing?: boolean }): Promise<MarketHandle>;
}

export interface CliCommand<O extends Options> {
  /** How the command is run, e.g. `npm run rebuild-bars [-- --data-dir <dir>]`; several ways, one an indented line. */
  readonly usage: string;
  /** What it does, then anything its options need said (shown under the usage by --help). */
  readonly description: string;
  /** Its own options (`--data-dir` and `--help` are every command's). */
  readonly options?: O;
  /** `--help` lines of its own options, e.g. `  --plan <plan>     plan of the new key`. */
  readonly optionHelp?: readonly string[];
  /** What `DATABASE_URL` (and `REDIS_URL`) mean for this command, for --help. */
  readonly databaseNote: string;
  /** The command's name for the locks it takes (shown to whoever finds the store held). */
  readonly purpose: string;
  /** How many positional arguments it takes, and what the first missing one is called (for the error). */
  readonly positionals: { readonly min: number; readonly max: number; readonly missing?: string };
  run(context: CliContext<O>): Promise<void>;
}

/** Where the command writes; `process`'s by default. */
export interface CliIo {
  readonly stdout: { write(text: string): unknown };
  readonly stderr: { write(text: string): unknown };
  readonly env: Env;
}

const COMMON = {
  'data-dir': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies Options;

/** The whole `--help` text of a command. */
export function helpText(
  command: Pick<CliCommand<Options>, 'usage' | 'description' | 'optionHelp' | 'databaseNote'>,
): string {
  return [
    // One way to run it on the Usage line; several under it, indented.
    command.usage.includes('\n') ? `Usage:\n${command.usage}` : `Usage: ${command.usage}`,
    '',
    command.description,
    '',
    'Options:',
    ...(command.optionHelp ?? []),
    '  --data-dir <dir>  data directory of the store (default: $DATA_DIR, else ./data)',
    '  -h, --help        show this help',
    '',
    command.databaseNote,
    '',
    EXIT_CODES,
  ].join('\n');
}

/** The data directory: the `--data-dir` flag, else the DATA_DIR environment variable, else ./data. */
export function resolveDataDir(flag: string | undefined, env: Env): string {
  if (flag !== undefined) {
    if (flag.trim() === '') throw new UsageError('--data-dir must not be empty');
    return flag;
  }
  const fromEnv = env.DATA_DIR;
  return fromEnv === undefined || fromEnv.trim() === '' ? DEFAULT_DATA_DIR : fromEnv;
}

/** The store a command works on: `DATABASE_URL` when set (as the server reads it), else the data directory. */
export function storeLocation(dataDirFlag: string | undefined, env: Env): StoreLocation {
  const { databaseUrl, redisUrl } = clusterUrls(env);
  const dataDir = resolveDataDir(dataDirFlag, env);
  if (databaseUrl === undefined) return { dataDir };
  if (dataDirFlag !== undefined)
    throw new UsageError(
      '--data-dir names a SQLite store, but DATABASE_URL is set: the market is in that PostgreSQL database (unset DATABASE_URL to use the data directory)',
    );
  return { dataDir, databaseUrl, ...(redisUrl !== undefined ? { redisUrl } : {}) };
}

/** Errors thrown by `node:util` parseArgs (unknown option, missing value, extra positional). */
function isParseArgsError(error: unknown): error is Error {
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof Error && typeof code === 'string' && code.startsWith('ERR_PARSE_ARGS_');
}

/**
 * Runs a command on `argv` and returns its exit code (see `EXIT_CODES`); what it prints goes to `io`.
 * Whatever it opened through the context is closed before this returns.
 */
export async function runCommand<O extends Options>(
  command: CliCommand<O>,
  argv: readonly string[],
  io: CliIo,
): Promise<number> {
  const help = helpText(command);
  // A client library's error (pg's `database "NAME" does not exist`) may repeat part of an address.
  const shown = (text: string) => redactText(text, [io.env.DATABASE_URL, io.env.REDIS_URL]);
  const opened: MarketHandle[] = [];
  try {
    const parsed = parseArgs({
      args: [...argv],
      options: { ...command.options, ...COMMON },
      allowPositionals: true,
      strict: true,
    });
    const { positionals } = parsed;
    const values = parsed.values as Readonly<Record<string, string | boolean | (string | boolean)[] | undefined>>;
    const option = (name: string): string | undefined => {
      const value = values[name];
      return typeof value === 'string' ? value : undefined;
    };
    if (values.help === true) {
      io.stdout.write(`${help}\n`);
      return 0;
    }
    const { min, max, missing } = command.positionals;
    if (positionals.length < min) throw new UsageError(`missing ${missing ?? 'argument'}`);
    if (positionals.length > max) throw new UsageError(`unexpected argument ${positionals[max] ?? ''}`);
    const where = storeLocation(option('data-dir'), io.env);
    await command.run({
      option,
      positionals,
      env: io.env,
      where,
      print: (line) => io.stdout.write(`${line}\n`),
      openMarket: async (options = {}) => {
        const handle = await openMarket(where.dataDir, command.purpose, {
          ...options,
          ...(where.databaseUrl !== undefined ? { databaseUrl: where.databaseUrl } : {}),
          ...(where.redisUrl !== undefined ? { redisUrl: where.redisUrl, announce: 'reloads' as const } : {}),
        });
        opened.push(handle);
        return handle;
      },
    });
    return 0;
  } catch (error) {
    if (error instanceof UsageError || isParseArgsError(error)) {
      io.stderr.write(`error: ${shown(error.message)}\n\n${help}\n`);
      return 2;
    }
    const message = error instanceof Error ? error.message : String(error);
    io.stderr.write(`error: ${shown(message)}\n`);
    if (io.env.DEBUG && error instanceof Error && error.stack) io.stderr.write(`${shown(error.stack)}\n`);
    return 1;
  } finally {
    for (const handle of opened) await handle.close();
  }
}

/** A command's entry: runs it on the process's arguments and sets the process's exit code. */
export async function main<O extends Options>(command: CliCommand<O>): Promise<void> {
  process.exitCode = await runCommand(command, process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    env: process.env,
  });
}
