import { z } from 'zod';
import { MAX_DATUM_BYTES } from '../chain/plutus';
import { kupoGet, KupoError } from '../chain/kupo';
import type { ReferenceDatumLookup } from './resolver';

/**
 * A CIP-68 reference NFT's datum through Kupo (docs/chain.md "Token identity"): the unspent outputs holding the NFT
 * (`GET /matches/{policy}.{asset name}?unspent`), the newest one's datum (`GET /datums/{hash}`, inline datums
 * included: Kupo keeps them by hash). Bounded as every Kupo call is (chain/kupo.ts); a reference NFT lives in one
 * output, so an answer listing more than a few is refused, and a datum is held to the pool datums' size budget.
 */

/** Outputs of one reference NFT taken from an answer (there is one; a few while it moves within a block's reach). */
const MAX_MATCHES = 16;
/** A match is a few hundred bytes; a datum at most MAX_DATUM_BYTES of CBOR, twice that in hex, plus its JSON. */
const MATCHES_MAX_BYTES = 64 * 1024;
const DATUM_MAX_BYTES = 2 * MAX_DATUM_BYTES + 1024;

const HEX_64 = z.string().regex(/^[0-9a-f]{64}$/, 'a 32-byte hash in hex');

/** The fields of a /matches item the lookup reads (Kupo documents more; the rest is ignored). */
const matchesSchema = z
  .array(
    z.looseObject({
      datum_hash: z.union([HEX_64, z.null()]),
      created_at: z.looseObject({ slot_no: z.int().check(z.nonnegative()) }),
    }),
  )
  .check(z.maxLength(MAX_MATCHES, `more than ${MAX_MATCHES} outputs hold one reference NFT`));

const datumSchema = z.union([
  z.null(),
  z.looseObject({
    datum: z
      .string()
      .regex(/^([0-9a-f]{2})+$/, 'CBOR in hex')
      .max(2 * MAX_DATUM_BYTES),
  }),
]);

/** The lookup the resolver asks of Kupo at `kupoUrl` (`--kupo`). */
export function kupoReferenceDatum(kupoUrl: string, timeoutMs?: number): ReferenceDatumLookup {
  return async (referenceUnit, signal) => {
    if (!/^[0-9a-f]{56}([0-9a-f]{2}){0,32}$/.test(referenceUnit))
      throw new KupoError(`not a token unit: ${referenceUnit.slice(0, 140)}`);
    const pattern = `${referenceUnit.slice(0, 56)}.${referenceUnit.slice(56)}`;
    const matches = await kupoGet(kupoUrl, `matches/${pattern}?unspent`, {
      schema: matchesSchema,
      maxBytes: MATCHES_MAX_BYTES,
      signal,
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    });
    const newest = matches
      .filter((m) => m.datum_hash !== null)
      .sort((a, b) => b.created_at.slot_no - a.created_at.slot_no)[0];
    if (!newest?.datum_hash) return undefined;
    const answer = await kupoGet(kupoUrl, `datums/${newest.datum_hash}`, {
      schema: datumSchema,
      maxBytes: DATUM_MAX_BYTES,
      signal,
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
    });
    return answer?.datum;
  };
}
