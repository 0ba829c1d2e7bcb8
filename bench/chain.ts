import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Encoder, Tag } from 'cbor-x';
import { ChainIngest } from '../src/service/chain/chain-ingest';
import { fromOgmiosBlock, type OgmiosBlock } from '../src/service/chain/ogmios-block';
import { openMarket } from '../src/service/runtime';
import type { BenchRow } from './measure';

/**
 * The chain source's write side: blocks shaped like real Ogmios v6 blocks (Minswap V2 pool outputs with
 * inline datums among ordinary payment outputs) converted, decoded and applied through ChainIngest
 * and the Ingestor into a real SQLite store, one commit per block. Reports pool updates/s, blocks/s,
 * and the time to catch up one day of mainnet (4,320 blocks) at that rate.
 */
const LP_POLICY = 'f5808c2c990d86da54bfc97d89cee6efa20cd8461616359478d96b4c';
const encoder = new Encoder({ useRecords: false });
const hex = (n: number, bytes: number) => n.toString(16).padStart(bytes * 2, '0');
/** Mainnet blocks a day: one every 20 s on average. */
const BLOCKS_PER_DAY = 4_320;

function poolDatum(token: string, reserveA: bigint, reserveB: bigint): string {
  const c = (fields: unknown[], n = 0) => new Tag(fields, 121 + n);
  const asset = (unit: string) => c([Buffer.from(unit.slice(0, 56), 'hex'), Buffer.from(unit.slice(56), 'hex')]);
  const datum = c([c([c([Buffer.alloc(28, 1)], 1)]), asset(''.padEnd(0)), asset(token), 1_000_000n, reserveA, reserveB, 30n, 30n, c([], 1), c([], 1)]);
  return Buffer.from(encoder.encode(datum)).toString('hex');
}

function block(height: number, pools: readonly { lp: string; token: string; a: bigint; b: bigint }[], updates: number, noise: number, sequential = false): OgmiosBlock {
  const transactions: unknown[] = [];
  for (let i = 0; i < updates; i++) {
    const pool = pools[sequential ? i : (height * 7919 + i * 104729) % pools.length] as { lp: string; token: string; a: bigint; b: bigint };
    // A trade: ADA in, token out, constant product (roughly).
    const dA = pool.a / 500n + BigInt(i);
    pool.b = (pool.a * pool.b) / (pool.a + dA);
    pool.a += dA;
    transactions.push({
      id: hex(height * 1000 + i, 32),
      spends: 'inputs',
      outputs: [
        { address: 'addr1z84q0denmyep98ph3tmzwsmw0', value: { ada: { lovelace: pool.a + 2_000_000n }, [LP_POLICY]: { '4d5350': 1n, [pool.lp]: 9_000_000_000n }, [pool.token.slice(0, 56)]: { [pool.token.slice(56)]: pool.b } }, datum: poolDatum(pool.token, pool.a, pool.b) },
        { address: 'addr1qxvk9lv2ht7kptfhar5x9h2p0', value: { ada: { lovelace: 5_000_000n } } },
      ],
    });
  }
  for (let i = 0; i < noise; i++) transactions.push({ id: hex(height * 1000 + 500 + i, 32), spends: 'inputs', outputs: [{ address: 'addr1qxvk9lv2ht7kptfhar5x9h2p0', value: { ada: { lovelace: 1_000_000n }, [hex(7, 28)]: { '41': 5n } } }] });
  return { type: 'praos', id: hex(height, 32), height, slot: 120_000_000 + height * 20, transactions: transactions as OgmiosBlock['transactions'] };
}

export async function chainBench(options: { log: (line: string) => void }): Promise<BenchRow[]> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-chain-'));
  const handle = await openMarket(dir, 'bench');
  try {
    const ingest = await ChainIngest.open(handle.ingestor, handle.store.market);
    const pools = Array.from({ length: 1_000 }, (_, i) => ({ lp: hex(i + 1, 32), token: hex(i + 1, 28) + '544f4b', a: 50_000_000_000n + BigInt(i) * 1_000_000n, b: 1_000_000_000_000n }));
    // Every pool once (created, no event), then the measured run.
    let height = 1;
    for (let i = 0; i < pools.length; i += 100) await ingest.applyBlock(fromOgmiosBlock(block(height++, pools.slice(i, i + 100), 100, 0, true)));
    const updatesPerBlock = 50;
    const blocks = 400;
    options.log(`chain: ${blocks} blocks of ${updatesPerBlock} pool updates and 40 other transactions over ${pools.length} pools...`);
    const started = performance.now();
    let trades = 0;
    for (let b = 0; b < blocks; b++) trades += (await ingest.applyBlock(fromOgmiosBlock(block(height++, pools, updatesPerBlock, 40)))).trades;
    const seconds = (performance.now() - started) / 1000;
    const updatesPerSecond = (blocks * updatesPerBlock) / seconds;
    const blocksPerSecond = blocks / seconds;
    // A mainnet day: 4,320 blocks; its DEX pool updates at the rate measured, blocks at the block rate.
    const dayBlocksSeconds = BLOCKS_PER_DAY / blocksPerSecond;
    options.log(`chain: ${trades} trades in ${seconds.toFixed(1)} s`);
    return [
      { suite: 'chain', name: 'pool updates applied (decode + ingest + one commit per block)', value: Math.round(updatesPerSecond), unit: 'updates/s', target: '>= 2000', pass: updatesPerSecond >= 2_000, note: `${updatesPerBlock} per block, SQLite, ${trades} trade events` },
      { suite: 'chain', name: 'blocks applied (50 pool updates + 40 other transactions each)', value: Math.round(blocksPerSecond), unit: 'blocks/s' },
      {
        suite: 'chain',
        name: 'one day of mainnet (4,320 blocks) at these blocks',
        value: Math.round(dayBlocksSeconds),
        unit: 's',
        note: `each block with ${updatesPerBlock} pool updates, far above mainnet's; Ogmios transfer not included`,
      },
    ];
  } finally {
    await handle.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
