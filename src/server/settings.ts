import { parseServiceConfig, type Env, type Flags } from '../service/config';
import { parseGatewayConfig } from '../gateway/config';
import { parseLogSettings, type LogFormat, type LoggerLevel } from '../node/log';
import type { PlatformOptions } from './platform';

/** Seconds a SIGTERM leaves the server draining (not ready, still serving) before it stops, by default. */
export const DEFAULT_DRAIN_SECONDS = 5;

/** Options of the HTTP server itself (npm run serve). */
export interface ServerSettings {
  readonly port: number;
  readonly host: string;
  /** `--metrics-port`: serve /metrics on this port instead of the public one. */
  readonly metricsPort?: number;
  /** `--metrics-host`: the interface of the metrics port (default: `host`). */
  readonly metricsHost: string;
  /**
   * Whether the public port answers /metrics: never with `--metrics-port`; else when `host` is a
   * loopback interface, or the operator said so (`--metrics-public`, METRICS_PUBLIC=1).
   */
  readonly metricsOnPublicPort: boolean;
  /** `--drain-seconds`: after SIGTERM, how long the server stays up not ready before it stops. */
  readonly drainSeconds: number;
  readonly log: { readonly level: LoggerLevel; readonly format: LogFormat };
}

/** An interface only this machine reaches (what `--host` binds). */
export function isLoopbackHost(host: string): boolean {
  const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
  return bare === 'localhost' || bare === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(bare);
}

const flagOr = (flags: Flags, env: Env, flag: string, variable: string): string | undefined => {
  const value = flags[flag];
  if (typeof value === 'string') return value;
  const fromEnv = env[variable];
  return fromEnv === undefined || fromEnv === '' ? undefined : fromEnv;
};

function portOf(raw: string | undefined, name: string, fallback: number): number;
function portOf(raw: string | undefined, name: string): number | undefined;
function portOf(raw: string | undefined, name: string, fallback?: number): number | undefined {
  if (raw === undefined || raw === '') return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`${name} must be a port number 0-65535 (got "${raw}")`);
  return port;
}

/**
 * Reads everything the server needs from flags (npm run serve -- --port ...) and the environment
 * (the same settings for npm run dev). Throws an Error naming the bad flag or variable.
 */
export function readSettings(
  flags: Flags,
  env: Env,
  isTty = false,
): { platform: Omit<PlatformOptions, 'hooks' | 'staticDir'>; server: ServerSettings } {
  const port = portOf(flagOr(flags, env, 'port', 'PORT'), '--port / PORT', 8080);
  const host = flagOr(flags, env, 'host', 'HOST') || '127.0.0.1';
  const metricsPort = portOf(flagOr(flags, env, 'metrics-port', 'METRICS_PORT'), '--metrics-port / METRICS_PORT');
  if (metricsPort !== undefined && metricsPort !== 0 && metricsPort === port)
    throw new Error(
      `--metrics-port / METRICS_PORT must differ from --port (both ${port}): leave it unset to serve /metrics on the public port`,
    );
  const metricsHost = flagOr(flags, env, 'metrics-host', 'METRICS_HOST') || host;
  const metricsPublicRaw = flags['metrics-public'] === true ? '1' : env.METRICS_PUBLIC;
  if (metricsPublicRaw !== undefined && !['', '0', '1'].includes(metricsPublicRaw))
    throw new Error(`METRICS_PUBLIC must be 1 or 0 (got "${metricsPublicRaw.slice(0, 100)}")`);
  if (metricsPublicRaw === '1' && metricsPort !== undefined)
    throw new Error(
      '--metrics-public / METRICS_PUBLIC=1 and --metrics-port / METRICS_PORT: choose one place for /metrics',
    );
  const metricsOnPublicPort = metricsPort === undefined && (metricsPublicRaw === '1' || isLoopbackHost(host));
  const drainRaw = flagOr(flags, env, 'drain-seconds', 'DRAIN_SECONDS');
  const drainSeconds = drainRaw === undefined ? DEFAULT_DRAIN_SECONDS : Number(drainRaw);
  if (!Number.isFinite(drainSeconds) || drainSeconds < 0 || drainSeconds > 3600)
    throw new Error(`--drain-seconds / DRAIN_SECONDS must be a number of seconds 0-3600 (got "${drainRaw}")`);
  const testControls = flags['test-controls'] === true || env.MARKET_TEST_CONTROLS === '1';
  return {
    platform: {
      service: parseServiceConfig(flags, env),
      gateway: parseGatewayConfig(env),
      testControls,
    },
    server: {
      port,
      host,
      ...(metricsPort !== undefined ? { metricsPort } : {}),
      metricsHost,
      metricsOnPublicPort,
      drainSeconds,
      log: parseLogSettings(env, isTty),
    },
  };
}

/**
 * Every address the settings name that may carry a key (Ogmios, Kupo, the gateway's upstream,
 * PostgreSQL, Redis), as given: what the server removes (`textRedactor`) from all it prints, before or after the
 * settings are checked. `argv` also counts, so a command line that fails to parse is covered.
 */
export function configuredSecrets(flags: Flags, env: Env, argv: readonly string[] = []): (string | undefined)[] {
  const fromArgs: string[] = [];
  argv.forEach((arg, i) => {
    for (const flag of ['--ogmios', '--kupo', '--token-registry']) {
      if (arg === flag) fromArgs.push(argv[i + 1] ?? '');
      else if (arg.startsWith(`${flag}=`)) fromArgs.push(arg.slice(flag.length + 1));
    }
  });
  const flag = (name: string) => (typeof flags[name] === 'string' ? flags[name] : undefined);
  return [
    flag('ogmios'),
    flag('kupo'),
    flag('token-registry'),
    ...fromArgs,
    env.OGMIOS_URL,
    env.KUPO_URL,
    env.TOKEN_REGISTRY_URL,
    env.UPSTREAM_URL,
    env.DATABASE_URL,
    env.REDIS_URL,
  ];
}
