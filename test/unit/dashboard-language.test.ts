/** The dashboard's amounts: at the currency's precision as the API writes them, grouped per language, read left to right on a right-to-left page. */
import { describe, expect, it } from 'vitest';
import { DashboardTranslator } from '../../shared/dashboard/language.js';

describe("the dashboard's amounts", () => {
  it("keep the currency's precision, grouping digits as the language does", () => {
    expect(new DashboardTranslator('en').amount('1234.5', 'USDT')).toBe('1,234.500000 USDT');
    expect(new DashboardTranslator('en').amount('0', 'BTC')).toBe('0.00000000 BTC');
    expect(new DashboardTranslator('hi').amount('1234567.5', 'INR')).toBe('12,34,567.50 INR');
    expect(new DashboardTranslator('tr').amount('1234.5', 'TRY')).toBe('1.234,50 TRY');
  });

  it('are isolated left to right in Urdu, so that the code does not come first, and only there', () => {
    expect(new DashboardTranslator('ur').amount('75', 'USDT')).toBe('\u206675.000000 USDT\u2069');
    for (const language of ['en', 'tr', 'hi', 'az'] as const) expect(new DashboardTranslator(language).amount('75', 'USDT')).not.toMatch(/[\u2066-\u2069]/);
  });
});
