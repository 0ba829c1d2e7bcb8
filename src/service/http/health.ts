import type { ChainDecodes } from '../chain/follower';

/** What /healthz answers (docs/operations.md): the node's state, its market's size and its source's progress. */
export interface HealthReport {
  /** `degraded`: reads are served, but the last write failed (a full disk...): see `lastCommitError`. */
  readonly status: 'ok' | 'degraded';
  /** Why the last commit failed and when (Unix ms), while writes keep failing. */
  readonly lastCommitError?: { readonly message: string; readonly at: number };
  readonly pools: number;
  readonly tokens: number;
  readonly streams: number;
  readonly blockHeight?: number;
  readonly lastBlockTime?: number;
  /** The node's role in a cluster (absent: one process). */
  readonly role?: 'all' | 'ingest' | 'api';
  /** An API node's link to the writer: Redis connected, gaps seen, resyncs from the store. */
  readonly cluster?: { readonly redis: boolean; readonly gaps: number; readonly resyncs: number };
  /** Where the market's trades come from (docs/chain.md). */
  readonly source: 'simulated' | 'chain' | 'none';
  /**
   * The token identity resolver (`--token-registry`): tokens named by a source, lookups waiting, whether Kupo and the
   * metadata server are used, and the last lookup that failed (docs/chain.md "Token identity").
   */
  readonly identity?: {
    readonly known: number;
    readonly registry: number;
    readonly cip68: number;
    readonly pending: number;
    readonly registryServer: 'on' | 'off';
    readonly kupo: 'on' | 'off';
    readonly lastError: string | null;
    /**
     * Logos from where token metadata says (docs/chain.md "Logos"): whether the gateways are configured, logos fetched
     * and stored since the start, found stored already (not fetched again), waiting or retrying, and tokens whose
     * logo could not be had (they keep their generated picture), with the last reason.
     */
    readonly logos?: {
      readonly ipfsGateway: 'on' | 'off';
      readonly arweaveGateway: 'on' | 'off';
      readonly fetched: number;
      readonly cached: number;
      readonly pending: number;
      readonly failed: number;
      readonly lastError: string | null;
    };
  };
  /** The chain source's progress (source `chain`). */
  readonly chain?: {
    readonly state: string;
    readonly tipSlot: number | null;
    readonly tipTime: number | null;
    readonly nodeTipSlot: number | null;
    readonly lagSeconds: number | null;
    /** Seconds since the applied tip's block was made (wall clock). */
    readonly tipAgeSeconds: number | null;
    /** Blocks applied and not yet committed (a batch while catching up); blocks and trades committed since the start. */
    readonly pendingBlocks: number;
    readonly blocks: number;
    readonly trades: number;
    /** Pool outputs skipped as undecodable (logged with transaction and index), in all and by DEX. */
    readonly undecodable: number;
    readonly undecodableByDex: Readonly<Record<string, number>>;
    /** Pool outputs decoded and undecodable by DEX over the last hour and day of block time applied. */
    readonly decodes: ChainDecodes;
    /** Height of the last block applied. */
    readonly tipHeight: number | null;
    /** Blocks skipped whole because they could not be read. */
    readonly unreadableBlocks: number;
    /** Rollbacks applied, and the most blocks one undid. */
    readonly rollbacks: number;
    readonly deepestRollback: number;
    /** Frames that were not JSON, blocks without a header, rollbacks to no point or to one the source does not have (each drops the connection). */
    readonly garbage: number;
    /** Of those, rollbacks refused (to `origin`, before the journal, a wrong id at a slot of ours, after the tip): the tip kept. */
    readonly refusedRollbacks: number;
    readonly reconnects: number;
    readonly lastError: string | null;
  };
}
