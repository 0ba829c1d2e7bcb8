import { describe, expect, it } from 'vitest';
import { gatewayBase, logoSource, type LogoGateways } from '../../../src/service/identity/logos/logo-uri';

const CID_V0 = 'QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG';
const CID_V1 = 'bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi';
const AR_ID = 'bNbA3TEQVL60xlgCcqdz4ZPHFZ711cZ3hmkpGttDt_U';
const GATEWAYS: LogoGateways = { ipfs: 'https://gw.example', arweave: 'https://ar.example/base' };

const url = (url: string) => ({ kind: 'url', url });
const unusable = (reason: string | RegExp) => ({
  kind: 'unusable',
  reason: typeof reason === 'string' ? reason : expect.stringMatching(reason),
});

describe('logo URIs', () => {
  it('sends ipfs:// logos, in every form tokens use, through the operator gateway', async () => {
    expect(await logoSource(`ipfs://${CID_V0}`, GATEWAYS)).toEqual(url(`https://gw.example/ipfs/${CID_V0}`));
    expect(await logoSource(`ipfs://ipfs/${CID_V0}`, GATEWAYS)).toEqual(url(`https://gw.example/ipfs/${CID_V0}`));
    expect(await logoSource(`IPFS://${CID_V1}/logo.png`, GATEWAYS)).toEqual(
      url(`https://gw.example/ipfs/${CID_V1}/logo.png`),
    );
    expect(await logoSource(` ${CID_V0} `, GATEWAYS)).toEqual(url(`https://gw.example/ipfs/${CID_V0}`));
    expect(await logoSource(`/ipfs/${CID_V1}`, GATEWAYS)).toEqual(url(`https://gw.example/ipfs/${CID_V1}`));
    expect(await logoSource(`ipfs://${CID_V0}/dir/my logo.png?x=1#frag`, GATEWAYS)).toEqual(
      url(`https://gw.example/ipfs/${CID_V0}/dir/my%20logo.png`),
    );
  });

  it('says why an ipfs logo is not fetched: no gateway, not a CID, a path that climbs', async () => {
    expect(await logoSource(`ipfs://${CID_V0}`, {})).toEqual({
      ...unusable('ipfs logo not fetched: no IPFS gateway configured (--ipfs-gateway)'),
      needs: 'ipfs',
    });
    expect(await logoSource('ipfs://QmNotACid', GATEWAYS)).toEqual(unusable('ipfs logo: "QmNotACid" is not a CID'));
    expect(await logoSource(`ipfs://${CID_V0}/../../admin`, GATEWAYS)).toEqual(
      unusable('ipfs logo: its path is not usable'),
    );
    expect(await logoSource(`ipfs://${CID_V0}/%2e%2e/x`, GATEWAYS)).toEqual(
      unusable('ipfs logo: its path is not usable'),
    );
  });

  it('sends ar:// logos through the Arweave gateway, and says when there is none', async () => {
    expect(await logoSource(`ar://${AR_ID}`, GATEWAYS)).toEqual(url(`https://ar.example/base/${AR_ID}`));
    expect(await logoSource(`ar://${AR_ID}/logo.svg`, GATEWAYS)).toEqual(
      url(`https://ar.example/base/${AR_ID}/logo.svg`),
    );
    expect(await logoSource(`ar://${AR_ID}`, { ipfs: 'https://gw.example' })).toEqual({
      ...unusable('ar logo not fetched: no Arweave gateway configured (--arweave-gateway)'),
      needs: 'arweave',
    });
    expect(await logoSource('ar://short', GATEWAYS)).toEqual(unusable('ar logo: "short" is not an Arweave id'));
  });

  it('takes https URLs as they are, and refuses http and other schemes saying why', async () => {
    expect(await logoSource('https://example.com/logo.png', {})).toEqual(url('https://example.com/logo.png'));
    expect(await logoSource('http://example.com/logo.png', GATEWAYS)).toEqual(
      unusable('http logo not fetched: plain http is refused (https only)'),
    );
    expect(await logoSource('file:///etc/passwd', GATEWAYS)).toEqual(
      unusable('file: logos are not fetched (ipfs, ar, https or data only)'),
    );
    expect(await logoSource('javascript:alert(1)', GATEWAYS)).toEqual(unusable(/^javascript: logos are not fetched/));
    expect(await logoSource('a token logo', GATEWAYS)).toEqual(
      unusable('logo "a token logo" is neither a URI nor a CID'),
    );
    expect(await logoSource('   ', GATEWAYS)).toEqual(unusable('logo is empty'));
    expect(await logoSource(`https://example.com/${'a'.repeat(5000)}`, GATEWAYS)).toEqual(
      unusable('logo URI is longer than 4096 characters'),
    );
  });

  it('decodes data: URIs locally, base64 or percent-encoded, within the cap', async () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 1, 2, 3]);
    expect(await logoSource(`data:image/png;base64,${png.toString('base64')}`, {})).toEqual({
      kind: 'bytes',
      bytes: png,
    });
    const svg = '<svg xmlns="http://www.w3.org/2000/svg"/>';
    expect(await logoSource(`data:image/svg+xml,${encodeURIComponent(svg)}`, {})).toEqual({
      kind: 'bytes',
      bytes: Buffer.from(svg),
    });
    // The type a data: URI claims is not looked at: the bytes are sniffed later.
    expect(await logoSource(`data:text/plain;base64,${png.toString('base64')}`, {})).toEqual({
      kind: 'bytes',
      bytes: png,
    });
    expect(await logoSource(`data:image/png;base64,${Buffer.alloc(2000).toString('base64')}`, {}, 1000)).toEqual(
      unusable('data: logo is larger than 1000 bytes'),
    );
    expect(await logoSource(`data:image/png;base64,${'A'.repeat(10_000)}`, {}, 1000)).toEqual(
      unusable('data: logo is larger than 1000 bytes'),
    );
    expect(await logoSource('data:image/png;base64,', {})).toEqual(unusable('data: logo is empty'));
    expect(await logoSource('data:no comma here', {})).toEqual(unusable('data: logo is not a valid data URI'));
  });

  it('reads logo bytes and byte chunks (CIP-68) as a URI when they are one, else as image data', async () => {
    const text = (value: string) => new TextEncoder().encode(value);
    expect(await logoSource(text(`ipfs://${CID_V0}`), GATEWAYS)).toEqual(url(`https://gw.example/ipfs/${CID_V0}`));
    const dataUri = `data:image/png;base64,${Buffer.from('fake image').toString('base64')}`;
    const chunks = [text(dataUri.slice(0, 20)), text(dataUri.slice(20, 30)), text(dataUri.slice(30))];
    expect(await logoSource(chunks, GATEWAYS)).toEqual({ kind: 'bytes', bytes: Buffer.from('fake image') });
    const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]);
    expect(await logoSource(png, GATEWAYS)).toEqual({ kind: 'bytes', bytes: Buffer.from(png) });
    expect(await logoSource([png.subarray(0, 4), png.subarray(4)], GATEWAYS)).toEqual({
      kind: 'bytes',
      bytes: Buffer.from(png),
    });
    const svg = '<svg xmlns="http://www.w3.org/2000/svg"/>';
    expect(await logoSource(text(svg), GATEWAYS)).toEqual({ kind: 'bytes', bytes: Buffer.from(svg) });
    expect(await logoSource(svg, GATEWAYS)).toEqual({ kind: 'bytes', bytes: Buffer.from(svg) });
    expect(await logoSource(new Uint8Array(0), GATEWAYS)).toEqual(unusable('logo is empty'));
    expect(await logoSource(new Uint8Array(5000), GATEWAYS, 1000)).toEqual(unusable('logo is larger than 1000 bytes'));
  });
});

describe('gateway flags', () => {
  it('takes an http(s) base URL, without its trailing slash', () => {
    expect(gatewayBase('https://ipfs.io/', '--ipfs-gateway')).toBe('https://ipfs.io');
    expect(gatewayBase('http://127.0.0.1:8080', '--ipfs-gateway')).toBe('http://127.0.0.1:8080');
    expect(gatewayBase('https://gw.example/prefix/', '--arweave-gateway')).toBe('https://gw.example/prefix');
  });

  it('names the flag when the URL is not usable', () => {
    expect(() => gatewayBase('ipfs.io', '--ipfs-gateway')).toThrow(/^--ipfs-gateway must be a URL/);
    expect(() => gatewayBase('ftp://x', '--ipfs-gateway')).toThrow('--ipfs-gateway must be an http(s) URL');
    expect(() => gatewayBase('https://u:p@x/?a=1', '--arweave-gateway')).toThrow(
      '--arweave-gateway must be a base URL without credentials, query or fragment',
    );
  });
});
