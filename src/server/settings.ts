import { parseServiceConfig, type Env, type Flags } from '../service/config';
import { parseGatewayConfig } from '../gateway/config';
import type { PlatformOptions } from './platform';

/** Options of the HTTP server itself (npm run serve). */
export interface ServerSettings {
  readonly port: number;
  readonly host: string;
}

/**
 * Reads everything the server needs from flags (npm run serve -- --port ...) and the environment
 * (the same settings for npm run dev). Throws an Error naming the bad flag or variable.
 */
export function readSettings(flags: Flags, env: Env): { platform: Omit<PlatformOptions, 'hooks' | 'staticDir'>; server: ServerSettings } {
  const portRaw = typeof flags.port === 'string' ? flags.port : env.PORT;
  const port = portRaw === undefined || portRaw === '' ? 8080 : Number(portRaw);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port / PORT must be a port number 0-65535 (got "${portRaw}")`);
  const host = (typeof flags.host === 'string' ? flags.host : env.HOST) || '127.0.0.1';
  const testControls = flags['test-controls'] === true || env.MARKET_TEST_CONTROLS === '1';
  return {
    platform: {
      service: parseServiceConfig(flags, env),
      gateway: parseGatewayConfig(env),
      testControls,
    },
    server: { port, host },
  };
}

/**
 * Every address the settings name that may carry a key (Ogmios, the gateway's upstream, PostgreSQL,
 * Redis), as given: what the server removes (`textRedactor`) from all it prints, before or after the
 * settings are checked. `argv` also counts, so a command line that fails to parse is covered.
 */
export function configuredSecrets(flags: Flags, env: Env, argv: readonly string[] = []): (string | undefined)[] {
  const fromArgs: string[] = [];
  argv.forEach((arg, i) => {
    if (arg === '--ogmios') fromArgs.push(argv[i + 1] ?? '');
    else if (arg.startsWith('--ogmios=')) fromArgs.push(arg.slice('--ogmios='.length));
  });
  return [typeof flags.ogmios === 'string' ? flags.ogmios : undefined, ...fromArgs, env.OGMIOS_URL, env.UPSTREAM_URL, env.DATABASE_URL, env.REDIS_URL];
}
