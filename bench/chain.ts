import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { safeJSON } from '@cardano-ogmios/client';
import { ChainIngest, JOURNAL_BLOCKS } from '../src/service/chain/chain-ingest';
import { poolOutputs } from '../src/service/chain/dexes';
import { BATCH_MAX_BLOCKS, BATCH_MAX_MS } from '../src/service/chain/follower';
import { fromOgmiosBlock, parseFrame } from '../src/service/chain/ogmios-block';
import { openMarket, type MarketHandle } from '../src/service/open-market';
import { startIdentityRun, type IdentityRun } from './identity';
import { hasPrise, realOgmiosBlocks, wireJson, type OgmiosWireBlock } from '../tests/support/prise';
import {
  nextSyntheticBlock,
  syntheticPools,
  type ChainCursor,
  type SyntheticPool,
} from '../tests/support/synthetic-chain';
import { median, round, type BenchRow } from './measure';

/**
 * The chain source catching up: Ogmios v6 `nextBlock` frames (JSON text, as they come off the
 * WebSocket) parsed, converted, decoded and applied through ChainIngest and the Ingestor into a real
 * SQLite store (production durability), committed in batches as the follower does while catching up
 * (1,000 blocks or 1 s), after a warm-up that fills the rollback journal to its steady 2,160 rows.
 * Beside each rate, the floor of the same run: parsing the same frames alone (`parseFrame`, the
 * exact parse the follower does), and the ratio. Two shapes of block:
 *
 * - mainnet: prise's ten real mainnet blocks (9,894,906-915, February 2024; ../shared/data/prise)
 *   replayed in turn with fresh ids — each with its real transactions, outputs and datums (18.4
 *   transactions, 59 outputs, 1.3 pool outputs of the four DEXs decoded then a block, on average) —
 *   plus as many Minswap V2 swaps again as the block's own pool outputs (the other DEXs' share);
 * - stress: 50 Minswap V2 pool updates and 40 small transactions a block over 1,000 pools.
 */
/** Tokens of the identity rows (issue 39: 6,000 tokens, at least 500 a second). */
const IDENTITY_TOKENS = 6_000;

/** Token identity alone, in a market of its own: the seconds until every token is named. */
async function identityAlone(log: (line: string) => void): Promise<{ seconds: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-identity-'));
  const handle = await openMarket(dir, 'bench');
  try {
    log(`chain identity: naming ${IDENTITY_TOKENS} CIP-68 tokens...`);
    const run = await startIdentityRun(handle, IDENTITY_TOKENS);
    try {
      const { seconds } = await run.done;
      log(`chain identity: ${IDENTITY_TOKENS} tokens named in ${seconds.toFixed(2)} s`);
      return { seconds };
    } finally {
      await run.close();
    }
  } finally {
    await handle.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Mainnet blocks a day: one every 20 s on average. */
const BLOCKS_PER_DAY = 4_320;

interface ShapeResult {
  readonly blocks: number;
  readonly updates: number;
  readonly trades: number;
  readonly seconds: number;
  readonly floorSeconds: number;
  readonly librarySeconds: number;
  readonly commits: number;
}

/** A `nextBlock` response frame as Ogmios sends it. */
function frame(block: OgmiosWireBlock, tipSlot: number): string {
  return wireJson({
    jsonrpc: '2.0',
    method: 'nextBlock',
    result: { direction: 'forward', block, tip: { slot: tipSlot, id: 'ff'.repeat(32), height: 1e8 } },
    id: null,
  });
}

/** Runs frames through the follower's path: parse, convert, apply, commit in catch-up batches. */
async function apply(ingest: ChainIngest, frames: readonly string[]): Promise<{ trades: number; commits: number }> {
  let trades = 0;
  let commits = 0;
  let batchStarted = performance.now();
  for (const text of frames) {
    const message = parseFrame(text) as { result: { block: unknown } };
    const block = fromOgmiosBlock(message.result.block);
    if (ingest.pendingBlocks === 0) batchStarted = performance.now();
    const report = await ingest.applyBlock(block, { commit: false });
    trades += report.trades;
    if (ingest.pendingBlocks >= BATCH_MAX_BLOCKS || performance.now() - batchStarted >= BATCH_MAX_MS) {
      await ingest.flush();
      commits++;
    }
  }
  await ingest.flush();
  return { trades, commits: commits + 1 };
}

/** Frames to warm up with and to measure, and the pool updates the measured ones hold. */
interface Frames {
  readonly warmUp: string[];
  readonly measured: string[];
  readonly updates: number;
}

async function runShape(
  name: string,
  make: () => Frames,
  log: (line: string) => void,
  alongside?: (handle: MarketHandle) => Promise<IdentityRun>,
): Promise<ShapeResult & { alongside?: { seconds: number; named: number } }> {
  const dir = mkdtempSync(join(tmpdir(), `bench-chain-${name}-`));
  const handle = await openMarket(dir, 'bench');
  let run: IdentityRun | undefined;
  try {
    const ingest = await ChainIngest.open(handle.ingestor, handle.store.market);
    const { warmUp, measured, updates } = make();
    log(
      `chain ${name}: ${warmUp.length} blocks to create the pools and fill the rollback journal, then ${measured.length} measured...`,
    );
    await apply(ingest, warmUp);
    // Work that runs beside the catch-up (token identity resolving), started with the measured blocks.
    run = alongside ? await alongside(handle) : undefined;
    const started = performance.now();
    const { trades, commits } = await apply(ingest, measured);
    const seconds = (performance.now() - started) / 1000;
    const beside = run ? await run.done : undefined;
    // The floor: the same frames parsed alone (best of three passes), and the library's own parser beside it.
    const passes = (parse: (text: string) => unknown) =>
      median(
        [0, 1, 2].map(() => {
          const t = performance.now();
          for (const text of measured) parse(text);
          return (performance.now() - t) / 1000;
        }),
      );
    const floorSeconds = passes(parseFrame);
    const librarySeconds = passes((text) => safeJSON.parse(text));
    log(
      `chain ${name}: ${measured.length} blocks, ${updates} pool updates, ${trades} trades in ${seconds.toFixed(2)} s (${commits} commits); parsing alone ${floorSeconds.toFixed(3)} s`,
    );
    return {
      blocks: measured.length,
      updates,
      trades,
      seconds,
      floorSeconds,
      librarySeconds,
      commits,
      ...(beside ? { alongside: beside } : {}),
    };
  } finally {
    await run?.close();
    await handle.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Frames of the stress shape: 50 Minswap V2 updates and 40 small transactions a block, 1,000 pools. */
function stressFrames(): Frames {
  const pools = syntheticPools(1_000);
  const cursor: ChainCursor = { slot: 120_000_000, id: '00'.repeat(32), height: 0 };
  const tip = cursor.slot + 10_000_000;
  const warmUp: string[] = [];
  for (let i = 0; i < pools.length; i += 100)
    warmUp.push(frame(nextSyntheticBlock(cursor, pools.slice(i, i + 100), { updates: 100, sequential: true }), tip));
  for (let b = 0; b < JOURNAL_BLOCKS + 40; b++)
    warmUp.push(frame(nextSyntheticBlock(cursor, pools, { updates: 50, noise: 40 }), tip));
  const measured = Array.from({ length: 2_000 }, () =>
    frame(nextSyntheticBlock(cursor, pools, { updates: 50, noise: 40 }), tip),
  );
  return { warmUp, measured, updates: measured.length * 50 };
}

/** Frames of the mainnet shape: prise's real blocks in turn, fresh ids, plus Minswap V2 swaps (see above). */
function mainnetFrames(): Frames {
  const templates = realOgmiosBlocks();
  const counts = templates.map((b) => fromOgmiosBlock(b).transactions.reduce((n, tx) => n + poolOutputs(tx).length, 0));
  const pools: SyntheticPool[] = syntheticPools(200);
  const cursor: ChainCursor = { slot: 130_000_000, id: '00'.repeat(32), height: 0 };
  const tip = cursor.slot + 10_000_000;
  let cycle = 0;
  let updates = 0;
  const next = (): string => {
    const index = cycle % templates.length;
    const template = templates[index] as OgmiosWireBlock;
    const tag = (Math.floor(cycle / templates.length) + 1).toString(16).padStart(8, '0');
    // The synthetic swaps, as a block of their own made on a scratch cursor, then merged in.
    const scratch: ChainCursor = { ...cursor };
    const swaps = nextSyntheticBlock(scratch, pools, { updates: counts[index] ?? 0, fork: cycle });
    const transactions = [
      ...template.transactions.map((tx) => ({
        ...(tx as Record<string, unknown>),
        id: tag + String((tx as { id: string }).id).slice(8),
      })),
      ...swaps.transactions,
    ];
    const block: OgmiosWireBlock = {
      ...template,
      id: scratch.id,
      height: cursor.height + 1,
      slot: cursor.slot + 20,
      ancestor: cursor.id,
      transactions,
    };
    cursor.slot = block.slot;
    cursor.id = block.id;
    cursor.height = block.height;
    cycle++;
    updates += 2 * (counts[index] ?? 0);
    return frame(block, tip);
  };
  const warmUp = Array.from({ length: JOURNAL_BLOCKS + 40 }, next);
  updates = 0;
  const measured = Array.from({ length: 4_000 }, next);
  return { warmUp, measured, updates };
}

export async function chainBench(options: { log: (line: string) => void }): Promise<BenchRow[]> {
  const rows: BenchRow[] = [];
  const ratioNote = (r: ShapeResult) =>
    `floor: the same frames parsed alone, ${round(r.blocks / r.floorSeconds, 0)} blocks/s (the library's JSON parser: ${round(r.blocks / r.librarySeconds, 0)}/s); ${r.commits} commits`;
  if (hasPrise) {
    const m = await runShape('mainnet', mainnetFrames, options.log);
    const rate = m.blocks / m.seconds;
    rows.push(
      {
        suite: 'chain',
        name: 'mainnet-shaped blocks applied (parse + decode + ingest + batched commits)',
        value: Math.round(rate),
        unit: 'blocks/s',
        target: '>= 500',
        pass: rate >= 500,
        note: `${m.updates} pool updates, ${m.trades} trades over ${m.blocks} blocks`,
      },
      {
        suite: 'chain',
        name: 'mainnet-shaped: ratio to parsing the frames alone',
        value: round(m.seconds / m.floorSeconds, 1),
        unit: 'x',
        note: ratioNote(m),
      },
      {
        suite: 'chain',
        name: 'one day of mainnet (4,320 blocks) at this rate',
        value: round(BLOCKS_PER_DAY / rate, 1),
        unit: 's',
        target: '< 9',
        pass: BLOCKS_PER_DAY / rate < 9,
        note: 'Ogmios transfer not included',
      },
    );
    // The same catch-up while the market's token identity resolves 6,000 CIP-68 tokens beside it (issue 39).
    const w = await runShape('mainnet+identity', mainnetFrames, options.log, (handle) =>
      startIdentityRun(handle, IDENTITY_TOKENS),
    );
    const withRate = w.blocks / w.seconds;
    rows.push({
      suite: 'chain',
      name: `mainnet-shaped blocks applied while ${IDENTITY_TOKENS.toLocaleString('en')} tokens resolve beside them`,
      value: Math.round(withRate),
      unit: 'blocks/s',
      target: '>= 500',
      pass: withRate >= 500,
      note: `${round(withRate / rate, 2)}x the rate without; the tokens named ${round(w.alongside?.seconds ?? NaN, 1)} s after they started`,
    });
  } else {
    options.log('chain: ../shared/data/prise is missing: the mainnet shape is skipped');
  }
  // Token identity alone: every token named through Kupo and the metadata server, written to the store.
  const resolved = await identityAlone(options.log);
  rows.push({
    suite: 'chain',
    name: `token identity: ${IDENTITY_TOKENS.toLocaleString('en')} CIP-68 tokens named through Kupo and a metadata server`,
    value: Math.round(IDENTITY_TOKENS / resolved.seconds),
    unit: 'tokens/s',
    target: '>= 500',
    pass: IDENTITY_TOKENS / resolved.seconds >= 500,
    note: `${round(resolved.seconds, 2)} s: Kupo's /matches and /datums per token (six real reference datums in turn), registry batches of 50, the store's writes; the fakes in this process`,
  });
  const s = await runShape('stress', stressFrames, options.log);
  const updates = s.updates / s.seconds;
  rows.push(
    {
      suite: 'chain',
      name: 'stress: pool updates applied (50 a block, 40 other transactions)',
      value: Math.round(updates),
      unit: 'updates/s',
      target: '>= 10000',
      pass: updates >= 10_000,
      note: `${s.trades} trades over ${s.blocks} blocks, ${Math.round(s.blocks / s.seconds)} blocks/s`,
    },
    {
      suite: 'chain',
      name: 'stress: ratio to parsing the frames alone',
      value: round(s.seconds / s.floorSeconds, 1),
      unit: 'x',
      note: ratioNote(s),
    },
  );
  return rows;
}
