import { gatewayTokenNamesSchema } from '../shared/api/gateway';
import type { GatewayClient, Outcome } from './gateway-client';

/** Token names by unit (policy ID + asset name hex, lowercase), for search. */
export type TokenNames = ReadonlyMap<string, string>;

/**
 * Where the datafeed gets the names of tokens (`World Mobile Token` for WMT) so that search matches
 * them. One call answers every token: a request per token would not scale to thousands of tokens.
 */
export interface TokenNameSource {
  names(): Promise<Outcome<TokenNames>>;
}

/** The gateway path of every token's registry metadata at once (the batch form of `/token-info/<unit>`). */
export const TOKEN_NAMES_PATH = '/token-info';

/**
 * The gateway's batch of token names: GET `<base>/token-info` (no unit), columnar. A gateway that
 * has none answers 404: search then works without them.
 */
export function gatewayTokenNames(client: GatewayClient): TokenNameSource {
  return {
    names: async () => {
      const outcome = await client.get(TOKEN_NAMES_PATH, {}, gatewayTokenNamesSchema);
      if (!outcome.ok) return outcome;
      const names = new Map<string, string>();
      outcome.value.unit.forEach((unit, i) => {
        const name = outcome.value.name[i]?.trim() ?? '';
        if (unit !== '' && name !== '') names.set(unit.toLowerCase(), name);
      });
      return { ok: true, value: names };
    },
  };
}
