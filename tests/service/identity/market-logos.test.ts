import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import sharp from 'sharp';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { LogFields } from '../../../src/node/log';
import { logoPng } from '../../../src/service/identity/logos/logo-image';
import { MarketIdentity } from '../../../src/service/identity/market-identity';
import { LOGO_NONE } from '../../../src/service/market/model';
import { parseServiceConfig } from '../../../src/service/config';
import { runtimeInternals } from '../../../src/service/runtime-internals';
import { ADA_UNIT } from '../../../src/shared/id-rules';
import { tokenLogoSchema } from '../../../src/shared/api/tokens';
import { ensureDefined } from '../../support/ensure';
import { cip26ByTicker } from '../../support/cip26-sample';
import { cip68ByTicker, type Cip68Fixture } from '../../support/cip68-fixtures';
import { FakeKupo } from '../../support/fake-kupo';
import { FakeOgmios } from '../../support/fake-ogmios';
import { FakeTokenRegistry } from '../../support/fake-token-registry';
import type { OgmiosWireBlock } from '../../support/prise';
import { createTestService, type TestService } from '../../support/service';
import { openStream } from '../../support/stream';
import { anchorBlock, syntheticBlocks, type ChainCursor, type SyntheticPool } from '../../support/synthetic-chain';
import { startWebServer, type WebServer } from '../../support/web-servers';

/**
 * Logos from where the token says, on a running chain market (docs/chain.md "Logos"): a fake Ogmios brings pools of
 * two real CIP-68 tokens (Bro and USDM: their real reference datums, tests/fixtures/identity, served by a fake Kupo),
 * whose datums name `ipfs://` logos; a local HTTP server stands in for the operator's IPFS gateway and serves a real
 * PNG (MIN's registry logo, ../shared/data/cip26-sample) for Bro's CID and the committed SVG fixture for USDM's.
 */
const BRO = cip68ByTicker('BRO');
const USDM = cip68ByTicker('USDM');
const cidOf = (d: Cip68Fixture) => ensureDefined(d.expected.logo).replace('ipfs://', '');

const SVG = readFileSync(new URL('../../fixtures/logos/cardano.svg', import.meta.url));
const REAL_PNG = Buffer.from(
  String((cip26ByTicker('MIN').logo as { value?: unknown } | undefined)?.value ?? ''),
  'base64',
);

const ANCHOR = anchorBlock();

/** A Minswap V2 pool of each token, and blocks after the anchor trading in them. */
function chainOf(tokens: readonly Cip68Fixture[]): OgmiosWireBlock[] {
  const pools: SyntheticPool[] = tokens.map((d, i) => ({
    lp: (i + 1).toString(16).padStart(64, '0'),
    token: d.ftUnit,
    a: 50_000_000_000n,
    b: 1_000_000_000_000n,
    liquidity: 7_000_000_000n,
  }));
  const cursor: ChainCursor = { slot: ANCHOR.slot, id: ANCHOR.id, height: ANCHOR.height };
  return [ANCHOR, ...syntheticBlocks(cursor, pools, 3, { updates: pools.length, sequential: true })];
}

/** What the service makes of an image: the PNG it serves. */
async function servedPng(image: Buffer): Promise<Buffer> {
  const made = await logoPng(image);
  if (!made.ok) throw new Error(made.reason);
  return made.png;
}

type Health = {
  identity?: {
    known: number;
    logos?: {
      ipfsGateway: string;
      fetched: number;
      cached: number;
      pending: number;
      failed: number;
      lastError: string | null;
    };
  };
};

describe('logos from where the token says, on a running market', () => {
  let kupo: FakeKupo;
  let ogmios: FakeOgmios;
  let gateway: WebServer;
  /** What the gateway answers for a CID (default: the images above). */
  let answer: (cid: string, response: ServerResponse) => boolean = () => false;
  let service: TestService | undefined;
  let lines: { line: string; level: string }[] = [];

  const env = (extra: Record<string, string> = {}) => ({
    SOURCE: 'chain',
    OGMIOS_URL: ogmios.url,
    CHAIN_START: `${ANCHOR.slot}.${ANCHOR.id}`,
    KUPO_URL: kupo.url,
    ...extra,
  });
  const log = (line: string, fields?: LogFields) => lines.push({ line, level: fields?.level ?? 'info' });
  const health = async () => (await (await ensureDefined(service).request('/healthz', { key: null })).json()) as Health;
  const logo = async (unit: string) =>
    tokenLogoSchema.parse(await ensureDefined(service).getJson(`/api/v1/tokens/logo/${unit}`));
  const gatewayAsked = () => gateway.paths.filter((p) => p.startsWith('/ipfs/'));

  beforeAll(async () => {
    gateway = await startWebServer((request: IncomingMessage, response: ServerResponse) => {
      const cid = (request.url ?? '').replace(/^\/ipfs\//, '');
      if (answer(cid, response)) return;
      if (cid === cidOf(BRO)) response.writeHead(200, { 'content-type': 'application/octet-stream' }).end(REAL_PNG);
      else if (cid === cidOf(USDM)) response.writeHead(200, { 'content-type': 'text/plain' }).end(SVG);
      else response.writeHead(404).end();
    });
    kupo = await FakeKupo.start([]);
    kupo.setReferences(new Map([BRO, USDM].map((d) => [d.unit, d.datum])));
    ogmios = await FakeOgmios.start(chainOf([BRO, USDM]));
  });
  afterEach(async () => {
    await service?.close();
    service = undefined;
    lines = [];
    answer = () => false;
    gateway.paths.length = 0;
  });
  afterAll(async () => {
    await Promise.all([gateway.close(), kupo.close(), ogmios.close()]);
  });

  it('fetches each ipfs:// logo through the gateway once, serves it as the PNG, and a restart fetches nothing', async () => {
    service = await createTestService({ env: env({ IPFS_GATEWAY: gateway.origin }), log });
    service.runtime.startLive();
    const expected = await servedPng(REAL_PNG);
    await vi.waitFor(async () => expect(await logo(BRO.ftUnit)).toBe(expected.toString('base64')), {
      timeout: 30_000,
      interval: 100,
    });
    // The SVG, drawn at the size logos are served.
    await vi.waitFor(async () => expect(await logo(USDM.ftUnit)).not.toBeNull(), {
      timeout: 30_000,
      interval: 100,
    });
    const usdm = Buffer.from(ensureDefined(await logo(USDM.ftUnit)), 'base64');
    expect(await sharp(usdm).metadata()).toMatchObject({ format: 'png', width: 256 });
    // The image for a browser, as for registry logos.
    const image = await service.request(`/api/v1/tokens/logo/${BRO.ftUnit}`, { headers: { accept: 'image/png' } });
    expect(image.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await image.arrayBuffer()).equals(expected)).toBe(true);
    expect(gatewayAsked().sort()).toEqual([`/ipfs/${cidOf(BRO)}`, `/ipfs/${cidOf(USDM)}`].sort());
    await vi.waitFor(async () =>
      expect((await health()).identity?.logos).toEqual({
        ipfsGateway: 'on',
        arweaveGateway: 'off',
        fetched: 2,
        cached: 0,
        pending: 0,
        failed: 0,
        lastError: null,
      }),
    );

    // A restart: the tokens keep their names from the stored records (Kupo not asked again), their logos found
    // stored, none fetched again.
    const askedKupo = kupo.requests.length;
    service = await service.restart({ env: env({ IPFS_GATEWAY: gateway.origin }), log });
    service.runtime.startLive();
    await vi.waitFor(async () => expect((await health()).identity?.logos).toMatchObject({ cached: 2, pending: 0 }), {
      timeout: 30_000,
      interval: 100,
    });
    expect(kupo.requests.length).toBe(askedKupo);
    expect(gatewayAsked()).toHaveLength(2);
    expect((await health()).identity?.logos).toMatchObject({ fetched: 0, failed: 0 });
    expect(await logo(BRO.ftUnit)).toBe(expected.toString('base64'));
  });

  it('tells streams that asked for metadata when a token gets its logo', async () => {
    // The gateway holds Bro's logo until the stream is open.
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    answer = (cid, response) => {
      if (cid !== cidOf(BRO)) return false;
      void held.then(() => response.writeHead(200).end(REAL_PNG));
      return true;
    };
    service = await createTestService({ env: env({ IPFS_GATEWAY: gateway.origin }), log });
    service.runtime.startLive();
    await vi.waitFor(() => expect(service?.runtime.market.tokens.get(BRO.ftUnit)?.decimals).toBe(8), {
      timeout: 30_000,
      interval: 50,
    });
    // Only Aggregate pools stream: Bro's pair's.
    const pool = ensureDefined(service.runtime.market.adaPairOf(BRO.ftUnit)).aggregate.poolId;
    const stream = await openStream(service, [pool], { headers: { 'X-Stream-Extensions': 'metadata' } });
    try {
      release();
      for (;;) {
        const line = await stream.next(30_000);
        if ('s' in line && line.s === 'metadata' && line.units.includes(BRO.ftUnit)) break;
      }
      expect(await logo(BRO.ftUnit)).toBe((await servedPng(REAL_PNG)).toString('base64'));
    } finally {
      await stream.cancel();
    }
  });

  it('keeps the logo a token had when the gateway cannot give its new one, and says why once per logo', async () => {
    answer = (cid, response) => {
      if (cid === cidOf(BRO)) response.writeHead(404).end('no such block');
      else response.writeHead(200).end('<html>not an image</html>');
      return true;
    };
    service = await createTestService({ env: env({ IPFS_GATEWAY: gateway.origin }), log });
    service.runtime.startLive();
    await vi.waitFor(async () => expect((await health()).identity?.logos).toMatchObject({ failed: 2, pending: 0 }), {
      timeout: 30_000,
      interval: 100,
    });
    // Chain tokens have no picture of their own until their logo is stored (the app draws their initials).
    for (const d of [BRO, USDM]) expect(await logo(d.ftUnit)).toBeNull();
    const said = lines.filter((l) => l.line.includes('could not be had'));
    expect(said).toHaveLength(2);
    expect(said.every((l) => l.level === 'warn')).toBe(true);
    expect(said.find((l) => l.line.includes(BRO.ftUnit))?.line).toMatch(/HTTP 404 .*keeps the logo it had/);
    expect(said.find((l) => l.line.includes(USDM.ftUnit))?.line).toMatch(
      /not a PNG, JPEG, WebP, GIF, AVIF or SVG image/,
    );
    expect((await health()).identity?.logos?.lastError).toMatch(/HTTP 404|not a PNG/);
  });

  it('fetches nothing without --ipfs-gateway, and says so once', async () => {
    service = await createTestService({ env: env(), log });
    service.runtime.startLive();
    await vi.waitFor(async () => expect((await health()).identity?.logos).toMatchObject({ failed: 2, pending: 0 }), {
      timeout: 30_000,
      interval: 100,
    });
    expect(service.runtime.market.tokens.get(BRO.ftUnit)).toMatchObject({ ticker: 'BRO', decimals: 8 });
    expect(gateway.paths).toEqual([]);
    const said = lines.filter((l) => /logo/.test(l.line));
    expect(said).toHaveLength(1);
    expect(said[0]?.line).toMatch(/ipfs:\/\/ logos are not fetched: no IPFS gateway is configured \(--ipfs-gateway/);
    expect((await health()).identity?.logos).toMatchObject({ ipfsGateway: 'off', fetched: 0 });
    for (const d of [BRO, USDM]) expect(await logo(d.ftUnit)).toBeNull();
  });

  it('fetches a registry entry that names a URI, retries a busy gateway saying so once, and follows a logo that changes', async () => {
    const min = cip26ByTicker('MIN');
    const named = (cid: string) => ({ ...min, logo: { ...(min.logo as object), value: `ipfs://${cid}` } });
    const registry = await FakeTokenRegistry.start([named(cidOf(BRO))]);
    service = await createTestService({ config: { source: 'none' } });
    const { ingestor, store } = runtimeInternals(service.runtime);
    let now = 1_718_000_000;
    const identity = new MarketIdentity({
      market: service.runtime.market,
      ingestor,
      registryUrl: registry.url,
      logos: { store: store.market, gateways: { ipfs: gateway.origin }, queue: { baseDelayMs: 50 } },
      log,
      now: () => now,
    });
    try {
      const unit = String(min.subject);
      const ada = ingestor.addToken({
        unit: ADA_UNIT,
        ticker: 'ADA',
        name: 'Cardano',
        decimals: 6,
        logoKind: LOGO_NONE,
      });
      const token = ingestor.addToken({ unit, ticker: 'MIN', name: 'MIN', decimals: 0, logoKind: LOGO_NONE });
      ingestor.addPool(ingestor.ensurePair(ada, token), {
        poolId: 'ab'.repeat(28),
        group: 'MinswapV2',
        baseReserve: 1e12,
        quoteReserve: 3e13,
        feeBps: 30,
        simulated: false,
      });
      await ingestor.commit();
      identity.start();
      await vi.waitFor(async () => expect(await logo(unit)).toBe((await servedPng(REAL_PNG)).toString('base64')), {
        timeout: 30_000,
        interval: 50,
      });

      // A registry correction names another logo; its gateway is busy twice, then gives it: latest wins.
      let busy = 2;
      answer = (cid, response) => {
        if (cid !== cidOf(USDM) || busy === 0) return false;
        busy--;
        response.writeHead(503).end();
        return true;
      };
      registry.set([named(cidOf(USDM))]);
      now += 86_401;
      identity.start();
      const svg = (await servedPng(SVG)).toString('base64');
      await vi.waitFor(async () => expect(await logo(unit)).toBe(svg), { timeout: 30_000, interval: 50 });
      expect(gatewayAsked().filter((p) => p === `/ipfs/${cidOf(USDM)}`)).toHaveLength(3);
      const said = lines.filter((l) => l.line.includes('could not be had'));
      expect(said).toHaveLength(1);
      expect(said[0]?.line).toMatch(/HTTP 503 .*tried again with backoff/);
      expect(await store.market.logoKey(token.id)).not.toBeNull();
      expect(identity.status().logos).toMatchObject({ fetched: 2, pending: 0, failed: 0 });
    } finally {
      await identity.close();
      await registry.close();
    }
  });
});

describe('--ipfs-gateway, --arweave-gateway and --fetch-allow', () => {
  it('takes base URLs and CIDR ranges, off by default, and refuses them for the simulated market, saying why', () => {
    const none = { source: 'none' };
    expect(parseServiceConfig(none, {})).not.toHaveProperty('ipfsGateway');
    expect(
      parseServiceConfig(
        { ...none, 'ipfs-gateway': 'http://127.0.0.1:8080/', 'fetch-allow': '10.1.0.0/16, fd00::/8' },
        { ARWEAVE_GATEWAY: 'https://arweave.net' },
      ),
    ).toMatchObject({
      ipfsGateway: 'http://127.0.0.1:8080',
      arweaveGateway: 'https://arweave.net',
      fetchAllow: ['10.1.0.0/16', 'fd00::/8'],
    });
    expect(() => parseServiceConfig({ 'ipfs-gateway': 'https://ipfs.io' }, {})).toThrow(
      /--ipfs-gateway fetch real tokens' logos: the simulated market's tokens are its own\. Use it with --source chain or none/,
    );
    expect(() => parseServiceConfig(none, { IPFS_GATEWAY: 'ftp://ipfs.io' })).toThrow(
      /--ipfs-gateway \/ IPFS_GATEWAY: ipfs-gateway must be an http\(s\) URL/,
    );
    expect(() => parseServiceConfig({ ...none, 'arweave-gateway': 'https://arweave.net/?key=1' }, {})).toThrow(
      /arweave-gateway must be a base URL without credentials, query or fragment/,
    );
    expect(() => parseServiceConfig({ ...none, 'fetch-allow': '10.1.0.0/33' }, {})).toThrow(
      /--fetch-allow \/ FETCH_ALLOW: fetch-allow: "10\.1\.0\.0\/33" is not a CIDR range/,
    );
  });
});
