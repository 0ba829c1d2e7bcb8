import { describe, expect, it } from 'vitest';
import { asSeconds } from '../../src/shared/time';
import {
  barsToCsv,
  CSV_HEADER,
  csvField,
  csvHeader,
  exportFileName,
  seriesToCsv,
} from '../../src/app/features/export/lib/csv';

describe('CSV export', () => {
  it('writes one header line and one line per bar, times in UTC', () => {
    const csv = barsToCsv([
      {
        time: asSeconds(Date.UTC(2025, 0, 31, 14, 0) / 1000),
        open: 0.0048113,
        high: 0.0048395,
        low: 0.0048093,
        close: 0.0048395,
        volume: 27_663.123456,
        tvl: 10_380_000.5,
      },
      {
        time: asSeconds(Date.UTC(2025, 0, 31, 15, 0) / 1000),
        open: 0.0000001,
        high: 2e-7,
        low: 1e-7,
        close: 1.5e-7,
        volume: 0,
        tvl: 12,
      },
    ]);
    const lines = csv.split('\r\n');
    expect(lines[0]).toBe(CSV_HEADER.join(','));
    expect(lines[1]).toBe(
      '2025-01-31T14:00:00Z,1738332000,0.0048113,0.0048395,0.0048093,0.0048395,27663.123456,10380000.5',
    );
    // No exponents: spreadsheets keep every digit.
    expect(lines[2]).toBe('2025-01-31T15:00:00Z,1738335600,0.0000001,0.0000002,0.0000001,0.00000015,0,12');
    expect(lines[3]).toBe('');
    expect(barsToCsv([])).toBe(`${CSV_HEADER.join(',')}\r\n`);
  });

  it('says USD in every value column of bars in USD (the plain header is the pair’s own units)', () => {
    expect(csvHeader('usd').join(',')).toBe(
      'time_utc,unix_time,open_usd,high_usd,low_usd,close_usd,volume_usd,tvl_usd',
    );
    expect(csvHeader()).toEqual(CSV_HEADER);
    const bar = { time: asSeconds(60), open: 0.5, high: 0.75, low: 0.25, close: 0.5, volume: 2, tvl: 10 };
    expect(barsToCsv([bar], 'usd').split('\r\n')).toEqual([
      csvHeader('usd').join(','),
      '1970-01-01T00:01:00Z,60,0.5,0.75,0.25,0.5,2,10',
      '',
    ]);
  });

  it('names files after the symbol, resolution and time, safely', () => {
    expect(exportFileName('ADA.SNEK_Aggregate_Pool1', '60', Date.UTC(2025, 0, 31, 14, 5), 'csv')).toBe(
      'ADA.SNEK_Aggregate_Pool1-60-20250131T1405Z.csv',
    );
    expect(exportFileName('A/B:C', '1D', 0, 'png')).toBe('A_B_C-1D-19700101T0000Z.png');
  });

  it('writes compared series side by side: one column per pool, a line per time any of them has', () => {
    const t = Date.UTC(2025, 0, 31, 14, 0) / 1000;
    const csv = seriesToCsv([
      {
        header: 'ADA.SNEK_Aggregate_Pool1 (%)',
        points: [
          { time: t, value: 0 },
          { time: t + 3600, value: 1.5 },
        ],
      },
      {
        header: 'ADA.SNEK_Minswap_Pool1 (%)',
        points: [
          { time: t, value: 0 },
          { time: t + 7200, value: -2.25e-7 },
        ],
      },
      { header: 'odd, "name"', points: [] },
    ]);
    expect(csv.split('\r\n')).toEqual([
      'time_utc,unix_time,ADA.SNEK_Aggregate_Pool1 (%),ADA.SNEK_Minswap_Pool1 (%),"odd, ""name"""',
      '2025-01-31T14:00:00Z,1738332000,0,0,',
      '2025-01-31T15:00:00Z,1738335600,1.5,,',
      '2025-01-31T16:00:00Z,1738339200,,-0.000000225,',
      '',
    ]);
    expect(seriesToCsv([])).toBe('time_utc,unix_time\r\n');
  });

  it('escapes text cells a spreadsheet would run as a formula; numbers stay numbers', () => {
    // Symbol names are made of tickers anyone may choose.
    for (const start of ['=', '+', '-', '@', '\t', '\r']) {
      const cell = csvField(`${start}HYPERLINK("https://evil.example","SNEK")`);
      expect(cell.startsWith(`"'${start}`), JSON.stringify(cell)).toBe(true);
    }
    expect(csvField('=1+1')).toBe("'=1+1");
    expect(csvField('-2')).toBe("'-2");
    expect(csvField('@SUM(A1:A9)')).toBe("'@SUM(A1:A9)");
    expect(csvField('\t=cmd')).toBe("'\t=cmd");
    expect(csvField('=A1,B1')).toBe('"\'=A1,B1"');
    expect(csvField('ADA.SNEK_Aggregate_Pool1 (%)')).toBe('ADA.SNEK_Aggregate_Pool1 (%)');
    expect(csvField('SNEK-279c90 (%)')).toBe('SNEK-279c90 (%)');
    const t = Date.UTC(2025, 0, 31, 14, 0) / 1000;
    const csv = seriesToCsv([
      { header: '=HYPERLINK("https://evil.example") (%)', points: [{ time: t, value: -1.5 }] },
      { header: '-SNEK.ADA_Minswap_Pool1 (%)', points: [{ time: t, value: -2.25e-7 }] },
    ]);
    expect(csv.split('\r\n')).toEqual([
      'time_utc,unix_time,"\'=HYPERLINK(""https://evil.example"") (%)",\'-SNEK.ADA_Minswap_Pool1 (%)',
      '2025-01-31T14:00:00Z,1738332000,-1.5,-0.000000225',
      '',
    ]);
    const bars = barsToCsv([{ time: asSeconds(t), open: -1, high: -1, low: -1, close: -1, volume: 0, tvl: 0 }]);
    expect(bars.split('\r\n')[1]).toBe('2025-01-31T14:00:00Z,1738332000,-1,-1,-1,-1,0,0');
  });

  it('writes every number so that it reads back as the same number, small ones in decimals', () => {
    const values = [
      0, -0, 1, -1.5, 0.0048113, 1e-7, -2.25e-7, 1.2345678901234567e-12, 5e-324, -2.2250738585072014e-308, 1e21, 1e300,
      -1.7976931348623157e308, 123456789012345680000,
    ];
    const csv = seriesToCsv(values.map((value, i) => ({ header: `v${i}`, points: [{ time: 60, value }] })));
    const cells = csv.split('\r\n')[1]?.split(',').slice(2) ?? [];
    expect(cells.map(Number)).toEqual(values.map((v) => (Object.is(v, -0) ? 0 : v)));
    expect(cells[5]).toBe('0.0000001');
    expect(cells[7]).toBe('0.0000000000012345678901234567');
    expect(cells[11]).toBe('1e+300');
    for (const cell of cells) expect(cell).not.toMatch(/^'/);
  });
});
