import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import type { LibrarySymbolInfo, SearchRow } from '@/datafeed';
import { displayAssetName, isTokenUnit, splitTokenUnit } from '@/shared/id-rules';
import { CopyButton } from '@/app/components/copy-button';
import { IdentityMark } from '@/app/components/identity-mark';
import { TokenLogo } from '@/app/components/token-logo';
import {
  formatAmount,
  formatPercent,
  formatPrice,
  formatSignedAmount,
  percentTrend,
  trendOf,
  type Trend,
} from '@/app/lib/format';
import { useApi } from '@/app/providers/app-providers';
import { tokenInfoQueryOptions } from '@/app/api/token-info';
import { tokenStatsQueryOptions } from '@/app/api/token-stats';
import { useLiveOverlay } from '@/app/hooks/use-live-overlay';
import { liveStats } from '@/app/lib/live-stats';
import { invertPercent, invertPrice, pairLabel, priceUnit } from '@/app/lib/orientation';
import { statsInUsd, usdPairLabel, type Currency } from '@/app/lib/usd';
import { useAdaUsd } from '@/app/hooks/use-ada-usd';
import { visibleText } from '@/shared/visible-text';

export interface TokenHeaderProps {
  readonly info: LibrarySymbolInfo;
  readonly row: SearchRow;
  /** Extra controls at the end (e.g. the watchlist star). */
  readonly actions?: ReactNode;
  /** Prices inverted (lib/orientation). */
  readonly inverted?: boolean;
  /** Prices, TVL and volumes in USD (lib/usd; an ADA pair, not inverted). */
  readonly currency?: Currency;
}

/**
 * The pair's token (the quote side): its name (the registry's when known, else the decoded asset
 * name), ticker, policy ID and CIP-14 fingerprint. Names with invisible or bidi-control characters
 * show them written out (`SNEK\u200B`: shared/visible-text), as the datafeed's tickers do.
 */
export function tokenIdentity(
  row: SearchRow,
  registryName?: string,
): { name: string; ticker: string; policyId: string; assetName: string } {
  const unit = row.quoteUnit.toLowerCase();
  if (!isTokenUnit(unit))
    return { name: visibleText(registryName ?? row.quote), ticker: row.quote, policyId: '', assetName: '' };
  const { policyId, assetName } = splitTokenUnit(unit);
  return { name: visibleText(registryName ?? displayAssetName(assetName)), ticker: row.quote, policyId, assetName };
}

/** The CIP-14 fingerprint, computed in a chunk of its own (blake2b and bech32: the first chart does not wait for them). */
export function fingerprintQueryOptions(policyId: string, assetName: string) {
  return queryOptions({
    queryKey: ['fingerprint', policyId, assetName],
    queryFn: () => import('@/datafeed/fingerprint').then((m) => m.assetFingerprint(policyId, assetName)),
    enabled: policyId !== '',
    staleTime: Infinity,
  });
}

/** A statistic; `trend` colours it (the direction of the value as written). */
function Stat({ label, value, trend, testId }: { label: string; value: string; trend?: Trend; testId: string }) {
  return (
    <div className="stat">
      <dt className="stat__label">{label}</dt>
      <dd className={`stat__value${trend === undefined ? '' : ` trend trend--${trend}`}`} data-testid={testId}>
        {value}
      </dd>
    </div>
  );
}

/**
 * The token header: logo, name, ticker, policy ID (copy), fingerprint, price and its 1 h / 24 h change,
 * TVL and its change, 1 h / 24 h volume — fetched from /tokens/current, then moved by live trade events.
 */
export function TokenHeader({ info, row, actions, inverted = false, currency = 'ada' }: TokenHeaderProps) {
  const api = useApi();
  const live = info.exchange === 'Aggregate';
  const stats = useQuery(tokenStatsQueryOptions(api, row.ticker, live));
  const overlay = useLiveOverlay(info, () => void stats.refetch());
  const tokenInfo = useQuery({ ...tokenInfoQueryOptions(api, row.quoteUnit), enabled: row.quoteUnit !== '' });
  const identity = tokenIdentity(row, tokenInfo.data?.name);
  const fingerprint = useQuery(fingerprintQueryOptions(identity.policyId, identity.assetName)).data;
  const oriented = stats.data ? liveStats(stats.data, overlay, stats.dataUpdatedAt) : undefined;
  const usd = currency === 'usd';
  // ADA/USD now, moved live by the stablecoins' trades while shown in USD.
  const adaUsd = useAdaUsd({ live: usd, enabled: usd });
  // In USD (lib/usd): everything valued at ADA/USD; inverted (lib/orientation): the price and its
  // changes turned, TVL and volumes staying in the base.
  const shown = usd
    ? oriented && adaUsd.status === 'ready'
      ? statsInUsd(oriented, adaUsd.now)
      : undefined
    : oriented && inverted
      ? {
          ...oriented,
          current_price: invertPrice(oriented.current_price),
          hourly_price_change: invertPercent(oriented.hourly_price_change),
          daily_price_change: invertPercent(oriented.daily_price_change),
        }
      : oriented;
  const base = usd ? 'USD' : row.base;
  const unit = usd ? 'USD' : priceUnit(row, inverted);
  // The pair's name is the registry's when it has one: the header waits for it rather than writing the
  // asset's own name first and moving what follows it when the registry's comes.
  if (row.quoteUnit !== '' && tokenInfo.isPending) return <TokenHeaderPlaceholder />;

  return (
    // A section with a name is a region landmark: its name is announced (a <header> inside <main> has no role that takes one).
    <section
      className="token-header"
      data-testid="token-header"
      data-currency={currency}
      aria-label={`${identity.name} (${identity.ticker})`}
    >
      <div className="token-header__identity">
        <TokenLogo unit={row.quoteUnit} ticker={row.quote} size={40} />
        <div className="token-header__text">
          <h1 className="token-header__name">
            <span data-testid="header-name">{identity.name}</span>{' '}
            <IdentityMark source={row.quoteUnit === '' ? undefined : tokenInfo.data?.source} />{' '}
            <span className="token-header__ticker" data-testid="header-ticker">
              {identity.ticker}
            </span>
          </h1>
          <p className="token-header__pair">
            <span data-testid="header-pair">{usd ? usdPairLabel(row) : pairLabel(row, inverted)}</span> · {row.exchange}
          </p>
          {identity.policyId !== '' ? (
            <dl className="token-header__ids">
              <div>
                <dt>Policy ID</dt>
                <dd>
                  <code className="token-header__id" title={identity.policyId} data-testid="header-policy-id">
                    {identity.policyId}
                  </code>
                  <CopyButton text={identity.policyId} label="Copy policy ID" testId="copy-policy-id" />
                </dd>
              </div>
              {/* The row is there at once (no layout shift); its value a moment later. */}
              <div>
                <dt>Fingerprint</dt>
                <dd>
                  <code className="token-header__id" data-testid="header-fingerprint">
                    {fingerprint ?? '…'}
                  </code>
                  {fingerprint ? (
                    <CopyButton text={fingerprint} label="Copy fingerprint" testId="copy-fingerprint" />
                  ) : null}
                </dd>
              </div>
            </dl>
          ) : null}
        </div>
        {actions ? <div className="token-header__actions">{actions}</div> : null}
      </div>
      {stats.isError ? (
        <p className="token-header__error" role="alert" data-testid="header-error">
          Statistics unavailable: {stats.error.message}{' '}
          <button type="button" className="button button--small" onClick={() => void stats.refetch()}>
            Retry
          </button>
        </p>
      ) : shown ? (
        <dl className="token-header__stats" aria-live="off">
          <div className="stat stat--price">
            <dt className="stat__label">Price</dt>
            <dd className="stat__value stat__value--price" data-testid="header-price" data-value={shown.current_price}>
              {formatPrice(shown.current_price, inverted || usd ? undefined : info.pricescale)}{' '}
              <span className="stat__unit">{unit}</span>
            </dd>
          </div>
          <Stat
            label="1h"
            value={formatPercent(shown.hourly_price_change)}
            trend={percentTrend(shown.hourly_price_change)}
            testId="header-change-1h"
          />
          <Stat
            label="24h"
            value={formatPercent(shown.daily_price_change)}
            trend={percentTrend(shown.daily_price_change)}
            testId="header-change-24h"
          />
          <Stat label={`TVL (${base})`} value={formatAmount(shown.current_tvl)} testId="header-tvl" />
          <Stat
            label="TVL 1h"
            value={formatSignedAmount(shown.hourly_tvl_change)}
            trend={trendOf(shown.hourly_tvl_change)}
            testId="header-tvl-change-1h"
          />
          <Stat
            label="TVL 24h"
            value={formatSignedAmount(shown.daily_tvl_change)}
            trend={trendOf(shown.daily_tvl_change)}
            testId="header-tvl-change"
          />
          <Stat label={`Vol 1h (${base})`} value={formatAmount(shown.hourly_volume)} testId="header-volume-1h" />
          <Stat label={`Vol 24h (${base})`} value={formatAmount(shown.daily_volume)} testId="header-volume-24h" />
        </dl>
      ) : (
        <StatsPlaceholder base={base} label="Loading statistics…" />
      )}
    </section>
  );
}

/**
 * The statistics' grid while they load: the same cells with a dash for each value, so the header
 * keeps its height when they come (nothing below it moves).
 */
function StatsPlaceholder({ base, label }: { base: string; label: string }) {
  return (
    <div className="token-header__stats token-header__stats--loading" role="status" data-testid="header-loading">
      <span className="visually-hidden">{label}</span>
      {['Price', '1h', '24h', `TVL (${base})`, 'TVL 1h', 'TVL 24h', `Vol 1h (${base})`, `Vol 24h (${base})`].map(
        (name, i) => (
          <div key={name} className={`stat${i === 0 ? ' stat--price' : ''}`} aria-hidden="true">
            <span className="stat__label">{name}</span>
            <span className={`stat__value${i === 0 ? ' stat__value--price' : ''}`}>–</span>
          </div>
        ),
      )}
    </div>
  );
}

/**
 * The header before the pair is known: the same box as the header (logo, four lines, the statistics'
 * grid), so the toolbar and the chart below it stay where they are when the pair comes.
 */
export function TokenHeaderPlaceholder() {
  return (
    <section className="token-header token-header--placeholder" aria-label="The pair" aria-busy="true">
      <div className="token-header__identity">
        <span className="token-logo token-logo--placeholder" aria-hidden="true" />
        <div className="token-header__text">
          <p className="token-header__name" aria-hidden="true">
            Loading the pair…
          </p>
        </div>
      </div>
      <StatsPlaceholder base="ADA" label="Loading the pair…" />
    </section>
  );
}
