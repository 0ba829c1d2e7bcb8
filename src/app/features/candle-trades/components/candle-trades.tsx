import { useQuery } from '@tanstack/react-query';
import { useEffect, useId, useMemo, useRef } from 'react';
import { GatewayError, toWireResolution, type Bar, type LibrarySymbolInfo, type ResolutionString } from '@/datafeed';
import { candleOfTrades } from '@/shared/candle-trades';
import { EXPLORERS, isExplorer, txUrl } from '@/app/lib/explorer';
import { formatAmount, formatPrice } from '@/app/lib/format';
import { invertBar, invertPrice, pairLabel, priceUnit, type PairNames } from '@/app/lib/orientation';
import { formatDateTime } from '@/app/lib/time-format';
import { changeTraderSettings, useTraderSettings } from '@/app/hooks/use-trader-settings';
import { useApi, usePreferences } from '@/app/providers/app-providers';
import { candleTradesQueryOptions } from '../api/candle-trades';
import { checkCandle } from '../lib/check';

export interface CandleTradesProps {
  /**
   * The candle clicked: its symbol and resolution, its bar as served (not inverted, in ADA); `keyboard`:
   * opened from the keyboard (Enter on the chart), the list takes the focus and gives it back on Close.
   */
  readonly candle: {
    readonly symbol: LibrarySymbolInfo;
    readonly resolution: ResolutionString;
    readonly raw: Bar;
    readonly keyboard?: boolean;
  };
  readonly pair: PairNames;
  /** Prices inverted (lib/orientation), as the chart shows them. */
  readonly inverted?: boolean;
  readonly onClose: () => void;
}

const RESOLUTION_LABELS: Readonly<Record<string, string>> = {
  '1min': '1 minute',
  '5min': '5 minutes',
  '15min': '15 minutes',
  '60min': '1 hour',
  '1d': '1 day',
};

/**
 * The trades inside a clicked candle (time, side, price, amounts, pool and DEX, the transaction on an
 * explorer), and the candle's numbers beside the ones those trades make, so the candle can be checked
 * against what made it. data-testid="candle-trades". Opened from the keyboard, its heading takes the focus
 * (a screen reader lands in it) and Close or Escape gives it back to where it was (the chart).
 */
export function CandleTrades({ candle, pair, inverted = false, onClose }: CandleTradesProps) {
  const api = useApi();
  const zone = usePreferences((p) => p.timeZone);
  const { explorer } = useTraderSettings();
  const titleId = useId();
  const explorerId = useId();
  const heading = useRef<HTMLHeadingElement>(null);
  const returnTo = useRef<HTMLElement | null>(null);
  useEffect(() => {
    // Where Enter was pressed: the chart.
    const active = document.activeElement;
    returnTo.current = candle.keyboard && active instanceof HTMLElement ? active : null;
    if (candle.keyboard) heading.current?.focus();
  }, [candle]);
  const close = () => {
    onClose();
    returnTo.current?.focus();
  };
  const wire = toWireResolution(candle.resolution) ?? '60min';
  const pool = candle.symbol.ticker ?? '';
  const query = useQuery(candleTradesQueryOptions(api, pool, candle.raw.time, wire));
  const trades = query.data?.trades;
  const rebuilt = useMemo(() => (trades ? candleOfTrades(trades, wire) : undefined), [trades, wire]);
  const check = trades ? checkCandle(candle.raw, rebuilt) : undefined;
  const agree = check?.every((row) => row.agree);
  // As the chart shows it: inverted bars swap high and low.
  const shownCandle = inverted ? invertBar(candle.raw) : candle.raw;
  const shownRebuilt = rebuilt && inverted ? invertBar(rebuilt) : rebuilt;
  const price = (value: number) => formatPrice(inverted ? invertPrice(value) : value);
  const unit = priceUnit(pair, inverted);
  const simulated = trades?.some((t) => txUrl(t.id, explorer) === undefined) ?? false;
  const noRoute = query.error instanceof GatewayError && query.error.status === 404;

  return (
    <section
      className="candle-trades"
      aria-labelledby={titleId}
      onKeyDown={(event) => event.key === 'Escape' && !event.defaultPrevented && close()}
      data-testid="candle-trades"
      data-time={candle.raw.time}
      data-count={trades?.length ?? ''}
      data-agree={agree === undefined ? '' : String(agree)}
    >
      <div className="candle-trades__head">
        <h2 id={titleId} className="candle-trades__title" ref={heading} tabIndex={-1}>
          Trades in the {RESOLUTION_LABELS[wire] ?? wire} candle of {formatDateTime(candle.raw.time, zone, true)} ·{' '}
          {pairLabel(pair, inverted)} on {candle.symbol.exchange}
        </h2>
        <label className="candle-trades__explorer" htmlFor={explorerId}>
          Explorer
          <select
            id={explorerId}
            className="select"
            value={explorer}
            onChange={(event) =>
              isExplorer(event.target.value) && changeTraderSettings({ explorer: event.target.value })
            }
            data-testid="explorer-select"
          >
            {Object.entries(EXPLORERS).map(([key, value]) => (
              <option key={key} value={key}>
                {value.label}
              </option>
            ))}
          </select>
        </label>
        <button type="button" className="candle-trades__close" onClick={close} data-testid="candle-trades-close">
          Close<span className="visually-hidden"> the candle’s trades</span>
        </button>
      </div>
      {query.isPending ? (
        <p role="status">Loading the candle’s trades…</p>
      ) : noRoute ? (
        <p role="note">This data source has no trade history: the candle’s trades cannot be listed.</p>
      ) : query.isError ? (
        <p role="alert">The trades could not load: {query.error.message}</p>
      ) : null}
      {check ? (
        <table className="candle-trades__check" data-testid="candle-check">
          <caption>
            {agree ? 'The candle agrees with its trades' : 'The candle does not agree with the trades listed'}: open is
            the first trade’s price before it, close the last trade’s price, high and low over every price before and
            after each trade, volume their sum.
          </caption>
          <thead>
            <tr>
              <th scope="col" />
              <th scope="col">Candle</th>
              <th scope="col">From the trades</th>
              <th scope="col">Agrees</th>
            </tr>
          </thead>
          <tbody>
            {check.map((row) => {
              const key = row.label.toLowerCase() as 'open' | 'high' | 'low' | 'close' | 'volume';
              const volume = key === 'volume';
              const candleValue = shownCandle[key];
              const tradesValue = shownRebuilt?.[key];
              return (
                <tr key={row.label} data-testid="candle-check-row" data-agree={String(row.agree)}>
                  <th scope="row">{row.label}</th>
                  <td>{volume ? formatAmount(candleValue) : formatPrice(candleValue)}</td>
                  <td>
                    {tradesValue === undefined ? '—' : volume ? formatAmount(tradesValue) : formatPrice(tradesValue)}
                  </td>
                  <td>{row.agree ? 'Yes' : 'No'}</td>
                </tr>
              );
            })}
          </tbody>
        </table>
      ) : null}
      {trades && trades.length > 0 ? (
        <div
          className="candle-trades__scroll"
          tabIndex={0}
          role="region"
          aria-label="The candle’s trades, oldest first"
        >
          <table className="candle-trades__list">
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Side</th>
                <th scope="col">Price ({unit})</th>
                {trades[0]?.aggregate ? <th scope="col">Aggregate after ({unit})</th> : null}
                <th scope="col">{pair.base}</th>
                <th scope="col">{pair.quote}</th>
                <th scope="col">DEX and pool</th>
                <th scope="col">Transaction</th>
              </tr>
            </thead>
            <tbody>
              {trades.map((trade) => {
                const url = txUrl(trade.id, explorer);
                return (
                  <tr key={trade.id} data-testid="candle-trade" data-side={trade.side}>
                    <td>{formatDateTime(trade.time, zone, true)}</td>
                    <td className={trade.side === 'buy' ? 'up' : 'down'}>{trade.side === 'buy' ? 'Buy' : 'Sell'}</td>
                    <td>{price(trade.price)}</td>
                    {trade.aggregate ? <td>{price(trade.aggregate.price)}</td> : null}
                    <td>{formatAmount(trade.base_amount)}</td>
                    <td>{formatAmount(trade.quote_amount)}</td>
                    <td title={trade.pool_id}>
                      {trade.group} · {trade.pool_id.slice(0, 8)}…
                    </td>
                    <td>
                      {url ? (
                        <a href={url} target="_blank" rel="noreferrer noopener" data-testid="candle-trade-tx">
                          {trade.id.slice(0, 10)}…
                          <span className="visually-hidden"> on {EXPLORERS[explorer].label}</span>
                        </a>
                      ) : (
                        <span title={trade.id}>simulated</span>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      ) : trades ? (
        <p>No trades in this candle.</p>
      ) : null}
      {query.data?.cut ? (
        <p role="note">
          Only the newest {trades?.length} trades of this candle are listed: it checks against the whole candle only
          when every trade is.
        </p>
      ) : null}
      {simulated ? (
        <p className="candle-trades__note" role="note" data-testid="candle-trades-simulated">
          Trades marked “simulated” come from this server’s market simulator: they have no transaction on the Cardano
          chain to link to.
        </p>
      ) : null}
    </section>
  );
}
