/**
 * What the store CLIs (keys, import-registry, import-trades, rebuild-bars) share: the data directory
 * setting and one way to end. Exit codes: 0 done, 1 an error (one line on stderr, no stack trace),
 * 2 bad usage (the error and the usage text on stderr).
 */

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
  try {
    await main();
  } catch (error) {
    if (error instanceof UsageError || isParseArgsError(error)) {
      process.stderr.write(`error: ${error.message}\n\n${usage}\n`);
      process.exitCode = 2;
      return;
    }
    const message = error instanceof Error ? error.message : String(error);
    process.stderr.write(`error: ${message}\n`);
    if (process.env.DEBUG && error instanceof Error && error.stack) process.stderr.write(`${error.stack}\n`);
    process.exitCode = 1;
  }
}
