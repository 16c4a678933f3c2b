import { describe, expect, it } from 'vitest';
import { FIAT_METHOD_LIMITS } from '../../shared/domain/currencies.js';
import { stageFiatLimits } from '../../shared/domain/fiat-limits.js';

describe('the fiat limits of a stage', () => {
  it('are the table in production', () => {
    expect(stageFiatLimits('prod', FIAT_METHOD_LIMITS)).toEqual(FIAT_METHOD_LIMITS);
  });

  it('raise the INR minimum to 500 and leave out intent in demo', () => {
    const demo = stageFiatLimits('demo', FIAT_METHOD_LIMITS);
    expect(demo.INR).toEqual({ p2p: { min: '500', max: '49000' } });
    expect(demo.TRY).toEqual(FIAT_METHOD_LIMITS.TRY);
    expect(stageFiatLimits('demo', { ...FIAT_METHOD_LIMITS, INR: { p2p: { min: '800' } } }).INR).toEqual({ p2p: { min: '800' } });
  });
});
