import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PaymentScripts } from '../../../src/service/chain/address';
import { fromOgmiosBlock } from '../../../src/service/chain/ogmios-block';
import { paymentScriptOf, shelleyAddress } from '../../support/addresses';
import { CHAIN_FIXTURES_DIR, readChainFixture } from '../../support/chain-fixtures';
import { hasPrise, realOgmiosBlocks } from '../../support/prise';

/**
 * PaymentScripts against a full decoding of the same addresses (tests/support/addresses.ts): on every
 * real address at hand (the chain fixtures' pool outputs and, with prise's data, every output of its
 * ten mainnet blocks: key, script and Byron addresses), and on addresses of each CIP-19 type built here.
 */
const SCRIPT = '730d04da38ffb7756072340338098c04413e75fedfb5669289e7c7bf';
const KEY = 'b6811a70cfdddcc753a33d5bc895bf9912793cf7e225517fbf1d206b';

describe('PaymentScripts', () => {
  it('finds the script every real address pays to, and nothing for the others', () => {
    const addresses = readdirSync(CHAIN_FIXTURES_DIR)
      .filter((file) => file.endsWith('.json'))
      .flatMap((file) => readChainFixture(file).outputs.map((o) => o.address));
    if (hasPrise)
      for (const block of realOgmiosBlocks())
        for (const tx of fromOgmiosBlock(block).transactions) for (const out of tx.outputs) addresses.push(out.address);
    const scripts = new Set(addresses.map(paymentScriptOf).filter((hash) => hash !== undefined));
    // Every fixture is a pool output at a script (40 scripts and more); prise's blocks add key and Byron addresses.
    expect(scripts.size).toBeGreaterThan(20);
    const lookup = new PaymentScripts([...scripts].map((hash) => [hash, hash] as const));
    for (const a of addresses) expect(lookup.get(a), a).toBe(paymentScriptOf(a));
  });

  it('finds a script under each address type that pays to it, whatever the stake part', () => {
    const lookup = new PaymentScripts([[SCRIPT, 'pool']]);
    expect(lookup.get(shelleyAddress(0x11, SCRIPT + KEY))).toBe('pool'); // script, stake key
    expect(lookup.get(shelleyAddress(0x11, SCRIPT + SCRIPT))).toBe('pool'); // another stake key
    expect(lookup.get(shelleyAddress(0x31, SCRIPT + SCRIPT))).toBe('pool'); // script, stake script
    expect(lookup.get(shelleyAddress(0x51, SCRIPT + '8198bd431b03'))).toBe('pool'); // script, stake pointer
    expect(lookup.get(shelleyAddress(0x71, SCRIPT))).toBe('pool'); // script alone
  });

  it('tells scripts apart to the last bit, and a script from a key of the same hash', () => {
    // 0xbf ends ...11111: the last two bits of the hash sit in the 47th character with three bits of the stake part.
    const lookup = new PaymentScripts([[SCRIPT, 'pool']]);
    for (const last of ['be', 'bd', '3f']) {
      const other = SCRIPT.slice(0, 54) + last;
      expect(lookup.get(shelleyAddress(0x71, other)), last).toBeUndefined();
      expect(lookup.get(shelleyAddress(0x11, other + KEY)), last).toBeUndefined();
    }
    expect(lookup.get(shelleyAddress(0x71, `f${SCRIPT.slice(1)}`))).toBeUndefined();
    // Types 0, 2, 4 and 6 pay to a key: the same 28 bytes as a key hash are no script.
    for (const header of [0x01, 0x21, 0x41, 0x61])
      expect(lookup.get(shelleyAddress(header, SCRIPT + KEY)), header.toString(16)).toBeUndefined();
  });

  it('finds nothing for another network, a stake or Byron address, or text that is no address', () => {
    const lookup = new PaymentScripts([[SCRIPT, 'pool']]);
    // The script's address on network 0 under mainnet's prefix, and under the testnet prefix.
    expect(lookup.get(shelleyAddress(0x70, SCRIPT))).toBeUndefined();
    expect(lookup.get(shelleyAddress(0x70, SCRIPT, 'addr_test'))).toBeUndefined();
    expect(lookup.get(shelleyAddress(0xf1, SCRIPT, 'stake'))).toBeUndefined();
    expect(lookup.get('Ae2tdPwUPEZKnykUqXyYQvrmrpaT5JbNXgWMhNR7cNkGPDYvyLkPHmm4VnR')).toBeUndefined();
    const enterprise = shelleyAddress(0x71, SCRIPT);
    // Empty, the prefix alone, cut inside the credential, upper case, 'b' (outside bech32's alphabet) or a non-ASCII character as the 47th.
    for (const bad of [
      '',
      'addr1',
      enterprise.slice(0, 50),
      enterprise.toUpperCase(),
      `${enterprise.slice(0, 51)}b${enterprise.slice(52)}`,
      `${enterprise.slice(0, 51)}é${enterprise.slice(52)}`,
    ]) {
      expect(lookup.get(bad), bad).toBeUndefined();
    }
  });

  it('refuses a value that is no script hash', () => {
    for (const bad of ['', SCRIPT.slice(2), SCRIPT.toUpperCase(), `${SCRIPT}00`])
      expect(() => new PaymentScripts([[bad, 1]]), bad).toThrow(/not a script hash/);
  });
});
