/**
 * The overview's volume chart: 30 UTC days, a y axis of round values from zero, bars in proportion
 * to it, a day named every week, the currency named, the exact amounts in words and in a table,
 * everything it is given escaped.
 */
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../shared/domain/kernel/index.js';
import { DashboardTranslator } from '../../shared/dashboard/language.js';
import { axisTicks, chartDays, volumeChart, type VolumeChartInput } from '../../shared/dashboard/volume-chart.js';

const text: VolumeChartInput['text'] = {
  title: 'Confirmed volume, 30 days',
  description: (total, best) => `${total} in all${best ? `; best ${best.day}, ${best.amount}` : ''}`,
  day: (day) => `d${day.slice(5)}`,
  table: 'As a table',
  dayHeading: 'Day',
  amountHeading: 'Amount',
  amount: (value, currency) => new DashboardTranslator('en').amount(value, currency),
};

const ticksOf = (most: string): string[] => axisTicks(new Decimal(most)).map((tick) => tick.toFixed());

describe('the volume chart', () => {
  it('covers the 30 UTC days up to today, oldest first', () => {
    const days = chartDays(new Date('2026-03-01T23:59:59.000Z'));
    expect(days).toHaveLength(30);
    expect(days[0]).toBe('2026-01-31');
    expect(days.at(-1)).toBe('2026-03-01');
  });

  it('cuts the y axis into round steps from zero to the first round value at or above the best day, exactly in any currency', () => {
    expect(ticksOf('37.25')).toEqual(['0', '10', '20', '30', '40']);
    expect(ticksOf('250.000000')).toEqual(['0', '100', '200', '300']);
    expect(ticksOf('100')).toEqual(['0', '25', '50', '75', '100']);
    expect(ticksOf('0.0003')).toEqual(['0', '0.0001', '0.0002', '0.0003']);
    expect(ticksOf('0.00012345')).toEqual(['0', '0.00005', '0.0001', '0.00015']);
    expect(ticksOf('1250000.00')).toEqual(['0', '500000', '1000000', '1500000']);
    expect(ticksOf('0')).toEqual(['0']);
  });

  it('draws bars in proportion to the top of the axis, names the currency, the axis values and a day a week, and says the exact amounts in words and in a table', () => {
    const days = chartDays(new Date('2026-03-01T12:00:00.000Z'));
    const volumes = new Map([
      [days[0]!, '0.1'],
      [days[10]!, '250'],
      [days[29]!, '125.000001'],
    ]);
    const chart = volumeChart({ id: 'usdt-chart', days, volumes, currency: 'USDT', text }).text;
    const svg = /<svg[\s\S]*<\/svg>/.exec(chart)![0];
    expect(svg).toMatch(/^<svg class="volume-chart" viewBox="0 0 380 220" width="100%" role="img" aria-labelledby="usdt-chart-title usdt-chart-description" direction="ltr"/);
    expect(chart).toMatch(/^<div class="volume"><h3>USDT<\/h3><svg/);
    expect(svg).toContain('<text class="unit" x="54" y="14" text-anchor="end" font-weight="700">USDT</text>');

    // The axis: 0 to 300 by 100 over the plot's 164 units of height, the top at y 28, zero at 192.
    const ticks = [...svg.matchAll(/<text class="tick" x="54" y="([\d.]+)"[^>]*>([^<]*)<\/text>/g)].map(([, y, value]) => [Number(y), value]);
    expect(ticks).toEqual([
      [192, '0'],
      [137.3, '100'],
      [82.7, '200'],
      [28, '300'],
    ]);
    const bars = [...svg.matchAll(/<rect class="bar" x="[\d.]+" y="([\d.]+)" width="[\d.]+" height="([\d.]+)" fill="#0b57a4"><title>([^<]*)<\/title><\/rect>/g)];
    expect(bars).toHaveLength(30);
    // 250 of 300 is 136.7 of 164; 125.000001 is 68.3; 0.1 is 0.1 (rounded to a tenth).
    expect(bars.map((bar) => Number(bar[2]))).toEqual(days.map((day) => (day === days[10] ? 136.7 : day === days[29] ? 68.3 : day === days[0] ? 0.1 : 0)));
    expect(bars.every(([, y, height]) => Math.abs(Number(y) + Number(height) - 192) < 0.11)).toBe(true);
    expect(bars[10]![3]).toBe('d02-10: 250.000000 USDT');
    expect(bars[29]![3]).toBe('d03-01: 125.000001 USDT');
    expect(bars[5]![3]).toBe('d02-05: 0.000000 USDT');

    // A day named every seventh, counted back from today's.
    const labels = [...svg.matchAll(/<text class="day"[^>]*>([^<]*)<\/text>/g)].map(([, label]) => label);
    expect(labels).toEqual([days[1], days[8], days[15], days[22], days[29]].map((day) => `d${day!.slice(5)}`));

    expect(svg).toContain(`<desc id="usdt-chart-description">375.100001 USDT in all; best ${days[10]}, 250.000000 USDT</desc>`);
    expect(svg).not.toMatch(/<script|style=|href=/);

    // The same 30 days as a table, each amount exact at the currency's precision.
    const rows = [...chart.matchAll(/<tr><th scope="row">([^<]*)<\/th><td class="num">([^<]*)<\/td><\/tr>/g)].map(([, day, amount]) => [day, amount]);
    expect(rows).toHaveLength(30);
    expect(rows[0]).toEqual([`d${days[0]!.slice(5)}`, '0.100000 USDT']);
    expect(rows[10]).toEqual([`d${days[10]!.slice(5)}`, '250.000000 USDT']);
    expect(rows[29]).toEqual([`d${days[29]!.slice(5)}`, '125.000001 USDT']);
    expect(chart).toContain('<details><summary>As a table</summary>');
  });

  it('keeps fiat at its cents and Bitcoin at its satoshis', () => {
    const days = chartDays(new Date('2026-03-01T12:00:00.000Z'));
    const inr = volumeChart({ id: 'inr', days, volumes: new Map([[days[29]!, '1250']]), currency: 'INR', text }).text;
    expect(inr).toContain('<td class="num">1,250.00 INR</td>');
    const btc = volumeChart({ id: 'btc', days, volumes: new Map([[days[29]!, '0.0003']]), currency: 'BTC', text }).text;
    expect(btc).toContain('<td class="num">0.00030000 BTC</td>');
    expect(btc).toContain('>0.0003</text>');
  });

  it('draws an axis of zero and no bar for a month without deposits, and escapes what it is given', () => {
    const days = chartDays(new Date('2026-03-01T12:00:00.000Z'));
    const chart = volumeChart({ id: 'usdt-chart', days, volumes: new Map(), currency: '<b>', text: { ...text, title: 'A & B' } }).text;
    expect([...chart.matchAll(/height="0"/g)]).toHaveLength(30);
    expect([...chart.matchAll(/<text class="tick"[^>]*>([^<]*)<\/text>/g)].map(([, value]) => value)).toEqual(['0']);
    expect(chart).toContain('<title id="usdt-chart-title">A &amp; B</title>');
    expect(chart).toContain(' &lt;b&gt; in all</desc>');
    expect(chart).not.toContain('<b>');
  });
});
