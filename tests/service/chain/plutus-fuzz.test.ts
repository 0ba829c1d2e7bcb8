import fc from 'fast-check';
import { isDeepStrictEqual } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import {
  DatumError,
  decodePlutusData,
  MAX_DATUM_BYTES,
  MAX_DATUM_DEPTH,
  MAX_DATUM_NODES,
  type PlutusData,
} from '../../../src/service/chain/plutus';
import {
  BREAK,
  deepNesting,
  encodePlutus,
  head,
  minswapV2DatumAround,
  sharedReferenceBomb,
  sharedReferenceCycle,
  toHex,
  type EncodeOptions,
} from '../../support/plutus-cbor';
import { realDatums } from '../../support/real-datums';
import { syntheticBlocks, syntheticPools } from '../../support/synthetic-chain';

/**
 * Hostile datums, thousands per run (seeded: DATUM_FUZZ_SEED replays another run): deep, wide, lengths
 * no input can hold, giant integers, indefinite items without end, shared-reference bombs, DAGs and
 * cycles, other tags, truncations and mutations of every real datum we have, random bytes, and valid
 * Plutus data in every legal form. Each is decoded to valid Plutus data (within the budgets, equal to
 * what was encoded when it is known) or refused with a DatumError, never anything else; each decode
 * takes under 50 ms (a first time over it is measured twice more and the best kept, so that a garbage
 * collection or the other processes on this machine's two cores are not counted: a blow-up is slow
 * every time); and the heap stays within a fixed bound of where it started over the whole run.
 */
const SEED = Number(process.env.DATUM_FUZZ_SEED ?? 29);
const SLOW_MS = 50;
/** A safety bound, not a target: one datum honoured as a tree of 2^24 nodes takes gigabytes. */
const HEAP_GROWTH_BOUND = 128 * 2 ** 20;

type Expected = 'decoded' | 'refused' | 'either' | { readonly equals: PlutusData };

const tally = { datums: 0, decoded: 0, refused: 0, slowestMs: 0, slowestKind: '', heapStart: 0, heapPeak: 0 };
const kinds = new Map<string, { datums: number; decoded: number; refused: number }>();

afterAll(() => {
  const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
  console.log(
    `datum fuzz (seed ${SEED}): ${tally.datums} datums, ${tally.decoded} decoded, ${tally.refused} refused; slowest ${tally.slowestMs.toFixed(2)} ms (${tally.slowestKind}); heap ${mib(tally.heapStart)} MiB at start, peak ${mib(tally.heapPeak)} MiB\n` +
      [...kinds].map(([kind, k]) => `  ${kind}: ${k.datums} (${k.decoded} decoded, ${k.refused} refused)`).join('\n'),
  );
});

/** Checks a decoded value is Plutus data within the budgets; returns its node count. */
function nodesOf(value: PlutusData, depth = 0): number {
  if (typeof value === 'bigint') return 1;
  if (typeof value === 'string') {
    if (!/^(?:[0-9a-f]{2})*$/.test(value)) throw new Error('bytes that are not hex');
    return 1;
  }
  if (depth >= MAX_DATUM_DEPTH) throw new Error('deeper than the budget');
  if (Array.isArray(value)) return 1 + value.reduce<number>((n, item: PlutusData) => n + nodesOf(item, depth + 1), 0);
  if (value instanceof Map)
    return 1 + [...value].reduce((n, [k, v]) => n + nodesOf(k, depth + 1) + nodesOf(v, depth + 1), 0);
  const c = value as { constructor: unknown; fields: unknown };
  if (!Number.isSafeInteger(c.constructor) || (c.constructor as number) < 0 || !Array.isArray(c.fields))
    throw new Error('not a constructor');
  return 1 + (c.fields as PlutusData[]).reduce((n, item) => n + nodesOf(item, depth + 1), 0);
}

function timedDecode(hex: string): { ms: number; value?: PlutusData; error?: unknown } {
  const start = performance.now();
  try {
    const value = decodePlutusData(hex);
    return { ms: performance.now() - start, value };
  } catch (error) {
    return { ms: performance.now() - start, error };
  }
}

/** Decodes one hostile datum and holds it to the rules; throws (failing the property) when one breaks. */
function run(kind: string, bytes: readonly number[] | Uint8Array, expected: Expected): void {
  const hex = toHex(bytes);
  let result = timedDecode(hex);
  for (let again = 0; again < 2 && result.ms >= SLOW_MS; again++) {
    const retry = timedDecode(hex);
    if (retry.ms < result.ms) result = retry;
  }
  const k = kinds.get(kind) ?? { datums: 0, decoded: 0, refused: 0 };
  kinds.set(kind, k);
  tally.datums++;
  k.datums++;
  if (result.ms > tally.slowestMs) Object.assign(tally, { slowestMs: result.ms, slowestKind: kind });
  tally.heapPeak = Math.max(tally.heapPeak, process.memoryUsage().heapUsed);
  const what = `${kind}: ${hex.length / 2} bytes ${hex.slice(0, 80)}${hex.length > 80 ? '…' : ''}`;
  if (result.ms >= SLOW_MS) throw new Error(`${what} took ${result.ms.toFixed(1)} ms`);
  if (tally.heapPeak - tally.heapStart > HEAP_GROWTH_BOUND) throw new Error(`${what}: heap grew past the bound`);
  if ('error' in result) {
    if (!(result.error instanceof DatumError))
      throw new Error(`${what}: refused with ${String(result.error)}, not a DatumError`);
    if (expected === 'decoded' || typeof expected === 'object')
      throw new Error(`${what}: refused (${result.error.message}) but is Plutus data`);
    tally.refused++;
    k.refused++;
    return;
  }
  const value = result.value as PlutusData;
  if (expected === 'refused') throw new Error(`${what}: decoded, should be refused`);
  if (nodesOf(value) > MAX_DATUM_NODES) throw new Error(`${what}: decoded past the node budget`);
  if (typeof expected === 'object' && !isDeepStrictEqual(value, expected.equals))
    throw new Error(`${what}: decoded to another value`);
  tally.decoded++;
  k.decoded++;
}

const check = <T>(runs: number, arbitrary: fc.Arbitrary<T>, body: (value: T) => void) =>
  fc.assert(fc.property(arbitrary, body), { seed: SEED, numRuns: runs, endOnFailure: true });

// Valid Plutus data, small enough for every budget, and the legal ways to write it.
const plutusData = fc.letrec<{ data: PlutusData; leaf: PlutusData; node: PlutusData }>((tie) => ({
  data: fc.oneof({ depthSize: 'small' }, tie('leaf'), tie('node')),
  leaf: fc.oneof(
    fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }),
    fc.bigInt({ min: -(2n ** 2000n), max: 2n ** 2000n }),
    fc.constantFrom(0n, 23n, 24n, 2n ** 64n - 1n, 2n ** 64n, -(2n ** 64n), -(2n ** 64n) - 1n),
    fc.uint8Array({ maxLength: 300 }).map((b) => Buffer.from(b).toString('hex')),
  ),
  node: fc.oneof(
    fc.array(tie('data'), { maxLength: 6 }),
    fc.array(fc.tuple(tie('data'), tie('data')), { maxLength: 4 }).map((entries) => new Map(entries) as PlutusData),
    fc
      .record({
        constructor: fc.oneof(
          fc.integer({ min: 0, max: 6 }),
          fc.integer({ min: 7, max: 127 }),
          fc.integer({ min: 128, max: Number.MAX_SAFE_INTEGER }),
        ),
        fields: fc.array(tie('data'), { maxLength: 6 }),
      })
      // fc.record makes objects without a prototype; the decoder makes plain ones.
      .map(({ constructor, fields }) => ({ constructor, fields })),
  ),
})).data;
const encodeOptions: fc.Arbitrary<EncodeOptions> = fc.record({
  definiteLists: fc.boolean(),
  indefiniteMaps: fc.boolean(),
  tag102: fc.boolean(),
});

/** Shapes made of shared values (28), references (29) and pairs: DAGs, cycles, dangling references. */
const sharedShape: fc.Arbitrary<number[]> = fc
  .letrec<{ shape: number[] }>((tie) => ({
    shape: fc.oneof(
      { depthSize: 'small' },
      fc.constant<number[]>([0x00]),
      fc.nat({ max: 40 }).map((id) => [...head(6, 29), ...head(0, id)]),
      tie('shape').map((inner) => [...head(6, 28), ...inner]),
      fc.tuple(tie('shape'), tie('shape')).map(([a, b]) => [0x82, ...a, ...b]),
    ),
  }))
  .shape.map((shape) => (shape.some((b) => b === 0xd8) ? shape : [...head(6, 28), ...shape]));

const ALLOWED_TAGS = (tag: bigint) =>
  (tag >= 121n && tag <= 127n) || (tag >= 1280n && tag <= 1400n) || tag === 102n || tag === 2n || tag === 3n;

function seeds(): number[][] {
  const cursor = { slot: 1, id: 'ee'.repeat(32), height: 0 };
  const synthetic = syntheticBlocks(cursor, syntheticPools(3), 2, { updates: 3 }).flatMap((b) =>
    b.transactions.map((tx) => (tx as { outputs: { datum?: string }[] }).outputs[0]?.datum ?? ''),
  );
  return [...new Set([...realDatums().keys(), ...synthetic.filter((d) => d !== '')])].map((hex) => [
    ...Buffer.from(hex, 'hex'),
  ]);
}

describe('hostile datums (fuzz)', () => {
  it('decodes each to valid Plutus data or refuses it with a DatumError, each under 50 ms, the heap bounded', () => {
    const real = seeds();
    expect(real.length).toBeGreaterThan(5);
    tally.heapStart = process.memoryUsage().heapUsed;
    tally.heapPeak = tally.heapStart;

    check(1_500, fc.tuple(plutusData, encodeOptions), ([value, options]) => {
      const bytes = encodePlutus(value, options);
      run(
        'valid Plutus data',
        bytes,
        bytes.length <= MAX_DATUM_BYTES && nodesOf(value) <= MAX_DATUM_NODES ? { equals: value } : 'refused',
      );
    });

    check(
      1_000,
      fc.record({
        depth: fc.oneof(fc.integer({ min: 1, max: 80 }), fc.integer({ min: 81, max: 20_000 })),
        kind: fc.constantFrom<'list' | 'indefinite' | 'constr' | 'map'>('list', 'indefinite', 'constr', 'map'),
      }),
      ({ depth, kind }) => {
        run('deep', deepNesting(depth, kind), depth <= MAX_DATUM_DEPTH ? 'decoded' : 'refused');
      },
    );

    check(
      1_000,
      fc.record({
        n: fc.oneof(
          fc.integer({ min: 0, max: 6_000 }),
          fc.integer({ min: 2_040, max: 2_060 }),
          fc.integer({ min: 4_090, max: 4_100 }),
        ),
        map: fc.boolean(),
        indefinite: fc.boolean(),
        item: fc.constantFrom([0x00], [0x41, 0x07], [0x80], [0xd8, 0x79, 0x80], [0x1b, 1, 2, 3, 4, 5, 6, 7, 8]),
      }),
      ({ n, map, indefinite, item }) => {
        const items = Array.from({ length: map ? 2 * n : n }, () => item).flat();
        const bytes = indefinite ? [map ? 0xbf : 0x9f, ...items, BREAK] : [...head(map ? 5 : 4, n), ...items];
        run(
          'wide',
          bytes,
          bytes.length <= MAX_DATUM_BYTES && 1 + (map ? 2 * n : n) <= MAX_DATUM_NODES ? 'decoded' : 'refused',
        );
      },
    );

    check(
      1_000,
      fc.record({
        major: fc.constantFrom(2, 4, 5),
        length: fc.oneof(
          fc.bigInt({ min: 2n ** 16n, max: 2n ** 64n - 1n }),
          fc.constantFrom(2n ** 32n - 1n, 2n ** 53n, 2n ** 63n, 2n ** 64n - 1n),
        ),
        tail: fc.uint8Array({ maxLength: 64 }),
        wrap: fc.boolean(),
      }),
      ({ major, length, tail, wrap }) => {
        const item = [...head(major, length), ...tail];
        run('huge length', wrap ? [0xd8, 0x79, 0x9f, ...item, BREAK] : item, 'refused');
      },
    );

    check(
      800,
      fc.record({
        tag: fc.constantFrom(2, 3),
        length: fc.oneof(fc.integer({ min: 0, max: 70 }), fc.integer({ min: 0, max: 16_500 })),
        chunk: fc.oneof(fc.constant(64), fc.integer({ min: 1, max: 80 })),
        definite: fc.boolean(),
        fill: fc.integer({ min: 0, max: 255 }),
      }),
      ({ tag, length, chunk, definite, fill }) => {
        const magnitude = Array.from({ length }, (_, i) => (fill + i * 37) & 0xff);
        const body = definite
          ? [...head(2, length), ...magnitude]
          : [
              0x5f,
              ...Array.from({ length: Math.ceil(length / chunk) }, (_, i) =>
                magnitude.slice(i * chunk, (i + 1) * chunk),
              ).flatMap((c) => [...head(2, c.length), ...c]),
              BREAK,
            ];
        const bytes = [...head(6, tag), ...body];
        const n = length === 0 ? 0n : BigInt(`0x${toHex(magnitude)}`);
        const legal = (definite ? length <= 64 : chunk <= 64 || length <= 64) && bytes.length <= MAX_DATUM_BYTES;
        run('giant integer', bytes, legal ? { equals: tag === 2 ? n : -1n - n } : 'refused');
      },
    );
    check(
      300,
      fc.record({ negative: fc.boolean(), n: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }) }),
      ({ negative, n }) => {
        run('64-bit integer', head(negative ? 1 : 0, n, 8), { equals: negative ? -1n - n : n });
      },
    );

    check(
      700,
      fc.record({
        opener: fc.constantFrom([0x9f], [0xbf], [0xd8, 0x79, 0x9f], [0x5f]),
        nesting: fc.integer({ min: 1, max: 40 }),
        items: fc.integer({ min: 0, max: 3_000 }),
      }),
      ({ opener, nesting, items }) => {
        const strings = opener[0] === 0x5f;
        run(
          'indefinite without end',
          [
            ...Array.from({ length: strings ? 1 : nesting }, () => opener).flat(),
            ...Array.from({ length: items }, () => (strings ? [0x41, 0x00] : [0x00])).flat(),
          ],
          'refused',
        );
      },
    );

    check(
      1_000,
      fc.oneof(
        fc.integer({ min: 1, max: 40 }).map((levels) => sharedReferenceBomb(levels)),
        fc.constant(sharedReferenceCycle()),
        sharedShape,
      ),
      (shape) => {
        run('shared references', shape, 'refused');
        run('shared references in a pool datum', [...Buffer.from(minswapV2DatumAround(shape), 'hex')], 'refused');
      },
    );

    check(
      1_000,
      fc.record({
        tag: fc
          .oneof(fc.bigInt({ min: 0n, max: 1500n }), fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }))
          .filter((t) => !ALLOWED_TAGS(t)),
        value: plutusData,
        inside: fc.boolean(),
      }),
      ({ tag, value, inside }) => {
        const tagged = [...head(6, tag), ...encodePlutus(value)];
        run('other tag', inside ? [...Buffer.from(minswapV2DatumAround(tagged), 'hex')] : tagged, 'refused');
      },
    );

    check(
      1_500,
      fc.record({ seed: fc.constantFrom(...real), at: fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }) }),
      ({ seed, at }) => {
        run('truncated real datum', seed.slice(0, Math.floor(seed.length * at)), 'refused');
      },
    );

    const edit = fc.record({
      op: fc.constantFrom('flip', 'set', 'insert', 'delete'),
      at: fc.double({ min: 0, max: 1, noNaN: true, maxExcluded: true }),
      byte: fc.integer({ min: 0, max: 255 }),
    });
    check(
      1_500,
      fc.record({ seed: fc.constantFrom(...real), edits: fc.array(edit, { minLength: 1, maxLength: 8 }) }),
      ({ seed, edits }) => {
        const bytes = [...seed];
        for (const { op, at, byte } of edits) {
          const i = Math.floor(bytes.length * at);
          if (op === 'flip') bytes[i] = (bytes[i] ?? 0) ^ (1 << (byte & 7));
          else if (op === 'set') bytes[i] = byte;
          else if (op === 'insert') bytes.splice(i, 0, byte);
          else bytes.splice(i, 1);
        }
        run('mutated real datum', bytes, 'either');
      },
    );

    check(1_000, fc.uint8Array({ maxLength: 4_096 }), (bytes) => run('random bytes', bytes, 'either'));

    expect(tally.datums).toBeGreaterThanOrEqual(10_000);
    expect(tally.decoded).toBeGreaterThan(2_000);
    expect(tally.refused).toBeGreaterThan(5_000);
  }, 180_000);
});
