import { bech32 } from '@scure/base';

/**
 * What an output's address pays to, when that is a script: the decoders test every output of every
 * transaction, so the lookup must cost little, and most outputs (paying to a key) are refused on one
 * character.
 *
 * A Shelley address (CIP-19) is a header byte (the address type in its high nibble, the network in its
 * low one), the 28-byte payment credential, then the stake part if any; bech32 (BIP-173) writes those
 * bytes five bits a character after the `addr1` prefix of a mainnet address. So the first data
 * character is the header's top five bits (the type and the network's high bit); the next 45 hold the
 * header's last three bits and the credential's first 222; the 47th holds the credential's last two bits
 * (and three of what follows). Every mainnet address paying to one script, whatever its type (a stake
 * key, a stake script, a pointer or no stake part) and stake credential, therefore has the same data
 * characters 2 to 46 and the same top two bits in the 47th: the script's key here. Comparing those
 * characters is comparing header and credential bit for bit, without decoding the address.
 */

/** BIP-173's bech32 alphabet: character i stands for the five bits i. */
const BECH32_ALPHABET = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l';

/** Five-bit value of each ASCII code (-1: not a bech32 character). */
const FIVE_BITS = new Int8Array(128).fill(-1);
for (let i = 0; i < BECH32_ALPHABET.length; i++) FIVE_BITS[BECH32_ALPHABET.charCodeAt(i)] = i;

const MAINNET_PREFIX = 'addr1';
/** Offsets in the address text: the first data character, and the one holding the credential's last two bits. */
const FIRST = MAINNET_PREFIX.length;
const LAST = FIRST + 46;
/** Header and credential (29 bytes) in five-bit characters, then bech32's six checksum characters: the shortest such address. */
const SHORTEST = FIRST + Math.ceil((29 * 8) / 5) + 6;
/** The 47th character's top two bits (of five): the credential's last two. */
const LAST_CREDENTIAL_BITS = 0b11000;

/**
 * First data characters of a mainnet address whose payment credential is a script: CIP-19 types 1
 * (script, stake key), 3 (script, stake script), 5 (script, pointer) and 7 (script alone), each
 * followed by the network's high bit, 0 for mainnet (network 1 = 0b0001).
 */
const SCRIPT_PAYMENT_FIRST = new Set([1, 3, 5, 7].map((type) => BECH32_ALPHABET.charCodeAt(type << 1)));

/** CIP-19 header of a mainnet address paying to a script with no stake part (type 7, network 1). */
const SCRIPT_ENTERPRISE_HEADER = 0x71;

/** Values by the script an address pays to (mainnet; any stake part): one Map lookup an output. */
export class PaymentScripts<T> {
  private readonly byKey = new Map<string, T>();

  /** `entries`: [script hash (56 hex digits), value]; throws on anything else. */
  constructor(entries: Iterable<readonly [string, T]>) {
    for (const [hash, value] of entries) {
      if (!/^[0-9a-f]{56}$/.test(hash)) throw new Error(`not a script hash (56 lowercase hex digits): "${hash}"`);
      // The script's address with no stake part: its 47th character is the credential's last two bits then
      // three zero bits of padding, so its characters 2 to 47 are the key as they stand.
      const bytes = Uint8Array.from(Buffer.from(SCRIPT_ENTERPRISE_HEADER.toString(16) + hash, 'hex'));
      this.byKey.set(bech32.encode('addr', bech32.toWords(bytes), false).slice(FIRST + 1, LAST + 1), value);
    }
  }

  /** The value of the script `address` pays to, if it is one of these (undefined for any other address). */
  get(address: string): T | undefined {
    const key = scriptKey(address);
    return key === undefined ? undefined : this.byKey.get(key);
  }
}

/**
 * The characters of a mainnet script-paying address that spell its header's network bits and its
 * script hash (see above); undefined for any other address. The checksum is not verified: addresses
 * come from the node through Ogmios, and a mangled one can only match the script its characters spell.
 */
function scriptKey(address: string): string | undefined {
  if (
    address.length < SHORTEST ||
    !SCRIPT_PAYMENT_FIRST.has(address.charCodeAt(FIRST)) ||
    !address.startsWith(MAINNET_PREFIX)
  )
    return undefined;
  const code = address.charCodeAt(LAST);
  const last = code < 128 ? (FIVE_BITS[code] ?? -1) : -1;
  if (last < 0) return undefined;
  return address.slice(FIRST + 1, LAST) + BECH32_ALPHABET.charAt(last & LAST_CREDENTIAL_BITS);
}
