import { useId } from 'react';
import type { Currency } from '@/app/lib/usd';

/**
 * Prices in ADA or in USD (lib/usd): a segmented control. USD is disabled, with the reason as its
 * description (and tooltip), where the market cannot price in USD: no stablecoin pool, or a pair not
 * against ADA. `value` is what is shown (ADA while USD is not available, whatever the URL asks).
 */
export function CurrencySwitch({
  value,
  onChange,
  unavailable,
}: {
  readonly value: Currency;
  readonly onChange: (next: Currency) => void;
  readonly unavailable?: string | undefined;
}) {
  const reasonId = useId();
  return (
    <div
      className="button-group segmented"
      role="group"
      aria-label="Currency"
      data-testid="currency-switch"
      data-currency={value}
    >
      <button
        type="button"
        className="button button--toggle"
        aria-pressed={value === 'ada'}
        onClick={() => onChange('ada')}
        data-testid="currency-ada"
      >
        ADA
      </button>
      <button
        type="button"
        className="button button--toggle"
        aria-pressed={value === 'usd'}
        onClick={() => onChange('usd')}
        disabled={unavailable !== undefined}
        title={unavailable}
        aria-describedby={unavailable === undefined ? undefined : reasonId}
        data-testid="currency-usd"
      >
        USD
      </button>
      {unavailable === undefined ? null : (
        <span className="visually-hidden" id={reasonId} data-testid="currency-reason">
          {unavailable}
        </span>
      )}
    </div>
  );
}
