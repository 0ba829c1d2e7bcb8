/** What /gw/v1/info says of the market's source (the fields the badge reads; not validated here). */
export interface SourceInfo {
  readonly simulated?: boolean | undefined;
  readonly market?:
    | {
        readonly source?: string | undefined;
        readonly chain?:
          | {
              readonly state?: string | undefined;
              readonly lagSeconds?: number | null | undefined;
              readonly tipSlot?: number | null | undefined;
            }
          | null
          | undefined;
      }
    | null
    | undefined;
}

export interface SourceBadge {
  readonly text: string;
  readonly title: string;
  /** The simulator's badge is a warning. */
  readonly warning: boolean;
  readonly testId: 'simulated-badge' | 'source-badge';
}

/** How long ago, in words: "12 s", "4 min", "3 h". */
function lagText(seconds: number): string {
  if (seconds < 120) return `${Math.round(seconds)} s`;
  if (seconds < 7_200) return `${Math.round(seconds / 60)} min`;
  return `${Math.round(seconds / 3_600)} h`;
}

/**
 * Where the prices come from (/gw/v1/info): a warning for the embedded market simulator; for the chain
 * source, its state and how far it is behind the node; for imported data only, a plain badge. The top
 * bar's badge (components/simulated-badge.tsx), in the app and in the page's skeleton (src/app/skeleton.tsx) alike.
 */
export function sourceBadgeOf(info: SourceInfo | undefined): SourceBadge | undefined {
  if (info?.simulated) {
    return {
      text: 'Simulated market',
      title: 'Prices, trades and pools are produced by the embedded simulator, not the real chain',
      warning: true,
      testId: 'simulated-badge',
    };
  }
  const market = info?.market;
  if (market?.source === 'chain') {
    const chain = market.chain;
    const lag = chain?.lagSeconds;
    // The follower says `syncing` while it catches up with the node (docs/chain.md): a trader reads "catching up".
    const state = chain?.state === 'syncing' ? 'catching up' : (chain?.state ?? 'connecting');
    return {
      text: `Cardano chain · ${state}${lag != null ? ` · ${lagText(lag)} behind the chain` : ''}`,
      title: `Following the Cardano chain through Ogmios${chain?.tipSlot != null ? ` (slot ${chain.tipSlot})` : ''}`,
      warning: false,
      testId: 'source-badge',
    };
  }
  if (market?.source === 'none')
    return {
      text: 'Imported data',
      title: 'Only imported trades: no live source',
      warning: false,
      testId: 'source-badge',
    };
  return undefined;
}
