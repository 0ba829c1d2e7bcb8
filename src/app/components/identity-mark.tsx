import type { TokenSource } from '@/shared/api/extensions';

/** What each source's mark says (its accessible name and title) and shows. */
const MARKS: Readonly<Record<TokenSource, { readonly label: string; readonly glyph: string }>> = {
  registry: { label: 'verified (registry)', glyph: '✓' },
  cip68: { label: 'on-chain metadata (CIP-68)', glyph: '⛓' },
  'asset-name': { label: 'unverified', glyph: '?' },
};

/**
 * A small mark beside a token's name saying where its identity comes from (/gw/v1/token-info's `source`): the CIP-26
 * registry, the token's own CIP-68 metadata on chain, or nothing but its asset name — so a look-alike without
 * metadata is visibly different from the real token. Nothing while the source is not known (an upstream that does
 * not say).
 */
export function IdentityMark({ source }: { readonly source: TokenSource | undefined }) {
  if (source === undefined) return null;
  const { label, glyph } = MARKS[source];
  return (
    <span
      className={`identity-mark identity-mark--${source}`}
      role="img"
      aria-label={label}
      title={label}
      data-testid="identity-mark"
      data-source={source}
    >
      {glyph}
    </span>
  );
}
