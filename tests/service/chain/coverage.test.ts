import { describe, expect, it } from 'vitest';
import { DecodeCoverage } from '../../../src/service/chain/coverage';

describe('decode coverage by DEX over block time', () => {
  it('counts outputs per DEX in the last hour and day before the newest block time, forgetting older minutes', () => {
    const coverage = new DecodeCoverage();
    const t0 = 1_700_000_000;
    // A day and a half of outputs: one decoded MinswapV2 output a minute, one undecodable Splash output an hour.
    for (let minute = 0; minute < 36 * 60; minute++) {
      coverage.record('MinswapV2', t0 + minute * 60, true);
      if (minute % 60 === 0) coverage.record('Splash', t0 + minute * 60 + 1, false);
    }
    const newest = t0 + (36 * 60 - 1) * 60;
    expect(coverage.window(3_600).get('MinswapV2')).toEqual({ decoded: 60, undecodable: 0 });
    expect(coverage.window(86_400).get('MinswapV2')).toEqual({ decoded: 1_440, undecodable: 0 });
    // Splash's undecodable outputs at whole hours: the last one at hour 35, 24 of them in the day before `newest`.
    expect(coverage.window(3_600).get('Splash')).toEqual({ decoded: 0, undecodable: 1 });
    expect(coverage.window(86_400).get('Splash')).toEqual({ decoded: 0, undecodable: 24 });
    // Asking more than a day gives the day kept.
    expect(coverage.window(10 * 86_400).get('MinswapV2')).toEqual({ decoded: 1_440, undecodable: 0 });
    // A block older than the day kept (a late report) is not counted; one inside it is.
    coverage.record('VyFi', newest - 2 * 86_400, true);
    coverage.record('VyFi', newest - 600, false);
    expect(coverage.window(86_400).get('VyFi')).toEqual({ decoded: 0, undecodable: 1 });
    expect(coverage.window(3_600).get('WingRiders')).toBeUndefined();
  });
});
