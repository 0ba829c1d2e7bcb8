import type { KeyStore } from './auth/keys';
import type { Ingestor } from './market/ingest';
import type { ServiceRuntime } from './service-runtime';
import type { Store } from './store/ports';
import type { StreamHub } from './stream/hub';

/**
 * What tests and benchmarks reach behind a runtime, and nothing in src/ does: its store (through the
 * interfaces of ports.ts), its ingestor, its stream hub, its key store, and the dev key of a
 * first start. Taken from a runtime by `runtimeInternals`, so that `ServiceRuntime` stays the few
 * members the composition root uses.
 */
export interface RuntimeInternals {
  readonly store: Store;
  readonly ingestor: Ingestor;
  readonly hub: StreamHub;
  readonly keyStore: KeyStore;
  /** The dev key created on a first start without keys (for curl and scripts), when known. */
  readonly devKey: string | undefined;
}

const internals = new WeakMap<ServiceRuntime, RuntimeInternals>();

/** Records a runtime's internals; called once, by the one place that builds runtimes (runtime.ts). */
export function keepInternals(runtime: ServiceRuntime, parts: RuntimeInternals): void {
  internals.set(runtime, parts);
}

/** The store, ingestor, hub, key store and dev key behind a runtime (for tests and benchmarks). */
export function runtimeInternals(runtime: ServiceRuntime): RuntimeInternals {
  const parts = internals.get(runtime);
  if (!parts) throw new Error('this runtime was not built by createServiceRuntime');
  return parts;
}
