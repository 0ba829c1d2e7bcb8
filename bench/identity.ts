import { readFileSync } from 'node:fs';
import { MarketIdentity } from '../src/service/identity/market-identity';
import type { MarketHandle } from '../src/service/open-market';
import { LOGO_NONE } from '../src/service/market/model';
import { FakeKupo } from '../tests/support/fake-kupo';
import { FakeTokenRegistry } from '../tests/support/fake-token-registry';

/**
 * Token identity at scale (issue 39): `count` CIP-68 tokens in a market, each named by its reference NFT through a
 * Kupo and by a CIP-26 metadata server, through the running market's path (`MarketIdentity`: Kupo's `/matches` and
 * `/datums` for every token, the registry's batch query, and the store write of what was learnt). The reference
 * datums are the six real mainnet ones of tests/fixtures/identity, in turn. Kupo and the metadata server are the
 * tests' fakes, served from this same process (their work is counted against the resolver's: a real deployment has
 * them elsewhere).
 */

/** The real reference datums (CBOR hex) of tests/fixtures/identity. */
function realDatums(): string[] {
  const fixtures = JSON.parse(
    readFileSync(new URL('../tests/fixtures/identity/cip68-reference-datums.json', import.meta.url), 'utf8'),
  ) as { datum: string }[];
  return fixtures.map((f) => f.datum);
}

/** The `i`-th synthetic CIP-68 fungible token (label 333) and its reference NFT (label 100). */
function units(i: number): { ft: string; reference: string } {
  const policy = `be${i.toString(16).padStart(8, '0')}`.padEnd(56, '0');
  const body = Buffer.from(`TOKEN${i}`).toString('hex');
  return { ft: `${policy}0014df10${body}`, reference: `${policy}000643b0${body}` };
}

export interface IdentityRun {
  /** Resolution started: returns when every token is named, with the seconds it took. */
  readonly done: Promise<{ seconds: number; named: number }>;
  readonly close: () => Promise<void>;
}

/** Adds `count` CIP-68 tokens to the market (one commit), then starts resolving them all; `done` says when they are. */
export async function startIdentityRun(handle: MarketHandle, count: number): Promise<IdentityRun> {
  const datums = realDatums();
  const references = new Map<string, string>();
  const mappings: Record<string, unknown>[] = [];
  const tokens = [];
  for (let i = 0; i < count; i++) {
    const { ft, reference } = units(i);
    references.set(reference, datums[i % datums.length] ?? '');
    mappings.push({
      subject: ft,
      name: { value: `Registry token ${i}` },
      ticker: { value: `RT${i}` },
      decimals: { value: 6 },
    });
    tokens.push(
      handle.ingestor.addToken({ unit: ft, ticker: `T${i}`, name: `T${i}`, decimals: 0, logoKind: LOGO_NONE }),
    );
  }
  await handle.ingestor.commit();
  const kupo = await FakeKupo.start([]);
  kupo.setReferences(references);
  const registry = await FakeTokenRegistry.start(mappings);
  const identity = new MarketIdentity({
    market: handle.market,
    ingestor: handle.ingestor,
    kupoUrl: kupo.url,
    registryUrl: registry.url,
  });
  const started = performance.now();
  identity.start();
  const done = (async () => {
    // Every token renamed from its metadata (CIP-68 first: the datums' tickers), written to the store.
    // Checked every 100 ms (each check reads every token: its cost stays a small part of the run's).
    for (;;) {
      const status = identity.status();
      if (status.pending === 0 && status.cip68 >= count) {
        let named = 0;
        for (const [i, t] of tokens.entries()) if (handle.market.tokens.get(t.unit)?.ticker !== `T${i}`) named++;
        if (named === count) return { seconds: (performance.now() - started) / 1000, named };
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return {
    done,
    close: async () => {
      await identity.close();
      await kupo.close();
      await registry.close();
    },
  };
}
