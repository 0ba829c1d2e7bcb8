import { describe, expect, it } from 'vitest';
import { pricescaleFor } from '../../src/app/features/chart/lib/chart-style';
import fc from 'fast-check';
import {
  adaptiveDecimals,
  formatAmount,
  formatCount,
  formatPercent,
  formatPrice,
  formatSignedAmount,
  percentTrend,
  priceDecimals,
  trendOf,
} from '../../src/app/lib/format';
import { formatDateTime, formatTick } from '../../src/app/lib/time-format';

describe('formatPrice', () => {
  it('uses the decimals of the pricescale', () => {
    expect(priceDecimals(10_000_000)).toBe(7);
    expect(priceDecimals(100)).toBe(2);
    expect(formatPrice(0.0048395, 10_000_000)).toBe('0.0048395');
    expect(formatPrice(1.23456, 10_000)).toBe('1.2346');
    expect(formatPrice(1234.5678, 100)).toBe('1,234.57');
  });

  it('writes long runs of zeros of tiny prices with a subscript count', () => {
    expect(formatPrice(0.0000012345, 10_000_000_000)).toBe('0.0₅12345');
    expect(formatPrice(0.00012345, 100_000_000)).toBe('0.00012345');
    expect(formatPrice(0.000012345, 1_000_000_000)).toBe('0.0₄12345');
    expect(formatPrice(-0.0000012345, 10_000_000_000)).toBe('-0.0₅12345');
  });

  it('keeps zero plain and never prints a tiny price as zero', () => {
    expect(formatPrice(0, 10_000_000)).toBe('0.0000000');
    // A pricescale from before the price fell (symbol_info is rebuilt every 15 minutes).
    expect(formatPrice(0.000001234, 100)).toBe('0.0₅12340');
  });

  it('falls back to five significant digits without a pricescale', () => {
    expect(adaptiveDecimals(0.0048395)).toBe(7);
    expect(formatPrice(0.00483951234)).toBe('0.0048395');
    expect(formatPrice(12.345678)).toBe('12.346');
    expect(formatPrice(Number.NaN)).toBe('—');
  });

  it('treats a pricescale of 0 (not known yet) as none: significant digits, never "0"', () => {
    expect(formatPrice(0.0033708, 0)).toBe('0.0033708');
    expect(formatPrice(0.0033708, 0)).toBe(formatPrice(0.0033708));
    expect(formatPrice(1234.5678, 0)).toBe(formatPrice(1234.5678));
  });

  it('matches the service’s pricescale rule when the chart derives one from prices', () => {
    expect(pricescaleFor(0.0048)).toBe(10_000_000);
    expect(pricescaleFor(1.5)).toBe(10_000);
    expect(pricescaleFor(1234)).toBe(100);
    expect(pricescaleFor(undefined)).toBe(100);
    expect(pricescaleFor(0)).toBe(100);
  });
});

describe('amounts and changes', () => {
  it('formats amounts compactly', () => {
    expect(formatAmount(9_523_384.1)).toBe('9.52M');
    expect(formatAmount(12_345)).toBe('12.35K');
    expect(formatAmount(742.5)).toBe('742.5');
    expect(formatAmount(0)).toBe('0');
    expect(formatAmount(0.00042)).toBe('0.00042000');
    expect(formatSignedAmount(30_460)).toBe('+30.46K');
    expect(formatSignedAmount(-59_990)).toBe('−59.99K');
  });

  it('formats percent changes with a sign and colours them by direction', () => {
    expect(formatPercent(13.12)).toBe('+13.12%');
    expect(formatPercent(-0.454)).toBe('−0.45%');
    expect(formatPercent(0.001)).toBe('0.00%');
    expect(trendOf(1)).toBe('up');
    expect(trendOf(-1)).toBe('down');
    expect(trendOf(0)).toBe('flat');
  });
});

describe('times', () => {
  it('shows UTC or local time', () => {
    const t = Date.UTC(2025, 0, 31, 14, 5) / 1000;
    expect(formatDateTime(t, 'utc', true)).toBe('2025-01-31 14:05 UTC');
    const local = new Date(t * 1000);
    expect(formatDateTime(t, 'local')).toBe(
      `${local.getFullYear()}-${String(local.getMonth() + 1).padStart(2, '0')}-${String(local.getDate()).padStart(2, '0')} ${String(local.getHours()).padStart(2, '0')}:${String(local.getMinutes()).padStart(2, '0')}`,
    );
    expect(formatTick(t, 3, 'utc')).toBe('14:05');
    expect(formatTick(t, 2, 'utc')).toBe('31');
    expect(formatTick(t, 1, 'utc')).toBe('Jan');
    expect(formatTick(t, 0, 'utc')).toBe('2025');
  });
});

describe('percentTrend', () => {
  it('colours a percent change as it is written: 0.00% is flat, +x up, −x down', () => {
    expect(formatPercent(0.004)).toBe('0.00%');
    expect(percentTrend(0.004)).toBe('flat');
    expect(percentTrend(-0.004)).toBe('flat');
    expect(trendOf(0.004)).toBe('up');
    fc.assert(
      fc.property(fc.double({ min: -1000, max: 1000, noNaN: true }), (value) => {
        const text = formatPercent(value);
        expect(percentTrend(value)).toBe(text.startsWith('+') ? 'up' : text.startsWith('−') ? 'down' : 'flat');
      }),
    );
  });
});

describe('amounts without Intl', () => {
  // formatAmount writes what Intl.NumberFormat's en-US compact (10,000 and more) and plain formats with
  // two decimals at most would, without starting ICU on the chart's first draw.
  const compact = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 2 });
  const plain = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });
  const intl = (value: number) => (Math.abs(value) >= 10_000 ? compact : plain).format(value);

  it('writes amounts as Intl does, halves and unit boundaries included', () => {
    const edges = [
      1, 9_999.994, 9_999.995, 10_000, 12_345, 99_999.5, 999_994.999, 999_995, 1.005, 2.675, 0, 742.5, 1_234.567,
      9_523_384.1, 999_995_000, 1e12, 6_298_771_427_611_878,
    ];
    for (const value of edges) {
      expect(formatAmount(value), String(value)).toBe(intl(value));
      // Intl writes -0 as "-0"; an amount of nothing is 0 here.
      if (value !== 0) expect(formatAmount(-value), String(-value)).toBe(intl(-value));
    }
  });

  it('writes 20,000 random amounts of every size as Intl does', () => {
    let seed = 7;
    const random = () => ((seed = (seed * 16807) % 2147483647) - 1) / 2147483646;
    for (let i = 0; i < 20_000; i++) {
      const raw = random() * 10 ** Math.floor(random() * 16) + 1;
      const value = i % 3 === 0 ? Math.round(raw * 1000) / 1000 + 0.005 : raw;
      expect(formatAmount(value), String(value)).toBe(intl(value));
    }
  });
});

describe('counts without Intl', () => {
  it('are written with thousands separators, as en-US writes them', () => {
    for (const n of [0, 7, 999, 1000, 6471, 24_071, 1_000_000, 123_456_789])
      expect(formatCount(n)).toBe(n.toLocaleString('en-US'));
  });
});
