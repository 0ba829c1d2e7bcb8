import { redactedLog } from '../node/log';
import { redactedError, textRedactor } from '../shared/redact';
import { createApiNode } from './api-node';
import { configuredAddresses, type ServiceConfig } from './config';
import { keepInternals } from './runtime-internals';
import { serveMarket, type ServiceNode } from './serving';
import type { RuntimeHooks, ServiceRuntime } from './service-runtime';
import { createWriterNode } from './writer-node';

/**
 * Builds the service of one process, of a cluster's ingest node or of an API node (`config.role`): the
 * node (writer-node.ts or api-node.ts), its HTTP app (serving.ts), and the one `ServiceRuntime` the
 * composition root holds. Its store, hub, ingestor and key store are kept for tests and benchmarks
 * (`runtimeInternals`), out of the runtime's interface.
 */
export async function createServiceRuntime(config: ServiceConfig, given: RuntimeHooks = {}): Promise<ServiceRuntime> {
  // Every line logged, every error thrown at start and every error text in /healthz without a part of the
  // configured addresses (a hosted Ogmios's or a database's key may be in any of them).
  const redact = textRedactor(configuredAddresses(config));
  const hooks: RuntimeHooks = {
    ...given,
    ...(given.log ? { log: redactedLog(given.log, redact) } : {}),
    ...(given.onFatal ? { onFatal: (line: string) => given.onFatal?.(redact(line)) } : {}),
  };
  let node: ServiceNode;
  try {
    node = await (config.role === 'api' ? createApiNode(config, hooks) : createWriterNode(config, hooks, redact));
  } catch (error) {
    throw redactedError(error, configuredAddresses(config));
  }
  try {
    return assemble(config, hooks, node);
  } catch (error) {
    await node.close();
    throw redactedError(error, configuredAddresses(config));
  }
}

/** The runtime of a node: its HTTP app served, its members the composition root's, its internals kept. */
function assemble(config: ServiceConfig, hooks: RuntimeHooks, node: ServiceNode): ServiceRuntime {
  const { app, internalKey } = serveMarket(config, { ...hooks, nowMs: hooks.nowMs ?? Date.now }, node);
  const noSimulator =
    config.role === 'api'
      ? 'an API node has no simulator: the ingest node trades'
      : `this market's source is ${config.source}: it has no simulator`;
  const runtime: ServiceRuntime = {
    app,
    config,
    market: node.market,
    get simulator() {
      if (!node.simulator) throw new Error(noSimulator);
      return node.simulator;
    },
    internalKey,
    startupTrades: node.startupTrades,
    sharedLimiter: node.sharedLimiter,
    startLive: () => node.startLive(),
    onStreamGap: (listener) => node.onStreamGap(listener),
    readiness: () => node.readiness(),
    close: () => node.close(),
  };
  keepInternals(runtime, {
    store: node.store,
    ingestor: node.ingestor,
    hub: node.hub,
    keyStore: node.keyStore,
    devKey: node.devKey,
  });
  return runtime;
}
