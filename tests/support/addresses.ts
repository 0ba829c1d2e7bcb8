import { bech32 } from '@scure/base';

/**
 * Cardano addresses built and read by the book (CIP-19 with @scure/base's bech32, checksum verified),
 * apart from src/service/chain/address.ts: what the tests hold its lookup to.
 */

/** A bech32 address of CIP-19 `header` then `payload` (hex): e.g. 0x71 + a script hash, a mainnet script address with no stake part. */
export function shelleyAddress(header: number, payload: string, prefix = 'addr'): string {
  return bech32.encode(
    prefix,
    bech32.toWords(Uint8Array.from(Buffer.from(header.toString(16).padStart(2, '0') + payload, 'hex'))),
    false,
  );
}

/** The script hash a mainnet address pays to (CIP-19 types 1, 3, 5 and 7 of network 1); undefined for any other address. */
export function paymentScriptOf(address: string): string | undefined {
  if (!address.startsWith('addr1')) return undefined;
  const bytes = bech32.fromWords(bech32.decode(address as `addr1${string}`, false).words);
  const header = bytes[0] ?? 0;
  return [1, 3, 5, 7].includes(header >> 4) && (header & 0x0f) === 1
    ? Buffer.from(bytes.slice(1, 29)).toString('hex')
    : undefined;
}
