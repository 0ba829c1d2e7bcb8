import { Hono } from 'hono';
import type { LogHook } from '../node/log';
import type { ForcedTrades } from '../service/market/simulator';
import type { ServiceRuntime } from '../service/service-runtime';
import { redactError, redactUrl } from '../shared/redact';

/** Most trades one forced block may hold (POST /__test__/block?trades=). */
export const MAX_FORCED_TRADES = 1000;

/** Throws when test controls are asked for in production (NODE_ENV=production): they never run there. */
export function refuseTestControlsInProduction(env: NodeJS.ProcessEnv = process.env): void {
  if (env.NODE_ENV === 'production')
    throw new Error('Test controls can never be enabled in production (NODE_ENV=production).');
}

/**
 * Reads the query of the test-only `POST /__test__/block`: none (a block as the schedule would make
 * it, at least one trade), or `pool` (a DEX or Aggregate pool ID) with an optional `trades` (1 to
 * 1,000, default 1): a block of exactly that many trades on the pool's pair. An error names the bad parameter.
 */
export function parseBlockQuery(
  pool: string | undefined,
  trades: string | undefined,
): { target: ForcedTrades | undefined } | { errmsg: string } {
  if (pool === undefined)
    return trades === undefined
      ? { target: undefined }
      : { errmsg: 'trades needs a pool: the pool whose pair the block trades' };
  const id = pool.trim().toLowerCase();
  if (id === '') return { errmsg: 'pool must be a pool ID' };
  if (trades === undefined) return { target: { pool: id, trades: 1 } };
  const count = /^\d{1,4}$/.test(trades) ? Number(trades) : Number.NaN;
  if (!(count >= 1 && count <= MAX_FORCED_TRADES))
    return { errmsg: `trades must be a whole number from 1 to ${MAX_FORCED_TRADES} (got "${trades}")` };
  return { target: { pool: id, trades: count } };
}

/**
 * The embedded market's control: `POST /__test__/block` makes the simulator trade a block now (see
 * `parseBlockQuery`). 409 on a market without a simulator, 503 when the block could not be committed.
 */
export function marketTestControls(
  runtime: Pick<ServiceRuntime, 'config' | 'market' | 'simulator'>,
  log?: LogHook,
): Hono {
  refuseTestControlsInProduction();
  log?.('Test controls are ON: POST /__test__/block makes the market trade now. Never use this in production.', {
    level: 'warn',
  });
  const controls = new Hono();
  controls.post('/__test__/block', async (c) => {
    if (runtime.config.source !== 'simulated')
      return c.json(
        { s: 'error', errmsg: `The market's source is ${runtime.config.source}: there is no simulator to trade` },
        409,
      );
    const query = parseBlockQuery(c.req.query('pool'), c.req.query('trades'));
    if ('errmsg' in query) return c.json({ s: 'error', errmsg: query.errmsg }, 400);
    const { target } = query;
    if (target && !runtime.simulator.trades(target.pool)) {
      const known = runtime.market.pools.has(target.pool);
      const errmsg = known
        ? `The simulator does not trade ${target.pool} (a pair with imported history)`
        : `Unknown pool ${target.pool}`;
      return c.json({ s: 'error', errmsg }, known ? 409 : 404);
    }
    try {
      const trades = await runtime.simulator.forceBlock(Date.now() / 1000, target);
      return c.json({ trades, height: runtime.simulator.blockHeight });
    } catch (error) {
      // The block was not committed (a full disk, say): nothing of it happened.
      const errmsg = `The block could not be committed: ${error instanceof Error ? error.message : String(error)}`;
      log?.(`market: ${errmsg}`, { level: 'error' });
      return c.json({ s: 'error', errmsg }, 503);
    }
  });
  return controls;
}

/**
 * A gateway in remote mode passes `POST /__test__/block` (its query included) to its upstream's
 * control, so that browser flows drive the other server's market through this one; 502 when the
 * upstream does not answer (in 15 s).
 */
export function upstreamTestControls(upstream: string, log?: LogHook): Hono {
  refuseTestControlsInProduction();
  log?.(
    `Test controls are ON: POST /__test__/block is passed to the upstream (${redactUrl(upstream)}). Never use this in production.`,
    { level: 'warn' },
  );
  const controls = new Hono();
  controls.post('/__test__/block', async (c) => {
    try {
      const answer = await fetch(new URL(`/__test__/block${new URL(c.req.url).search}`, upstream), {
        method: 'POST',
        redirect: 'manual',
        signal: AbortSignal.timeout(15_000),
      });
      return new Response(answer.body, {
        status: answer.status,
        headers: { 'Content-Type': answer.headers.get('Content-Type') ?? 'application/json' },
      });
    } catch (error) {
      return c.json(
        { s: 'error', errmsg: `The upstream's test control did not answer: ${redactError(error, [upstream])}` },
        502,
      );
    }
  });
  return controls;
}
