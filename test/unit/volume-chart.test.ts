/** The overview's volume chart: 30 UTC days, bars in proportion to the best day, each naming its amount, escaped, described in words. */
import { describe, expect, it } from 'vitest';
import { chartDays, volumeChart } from '../../shared/dashboard/volume-chart.js';

const describeChart = (total: string, best: { day: string; amount: string } | undefined) => `${total} in all${best ? `; best ${best.day}, ${best.amount}` : ''}`;

describe('the volume chart', () => {
  it('covers the 30 UTC days up to today, oldest first', () => {
    const days = chartDays(new Date('2026-03-01T23:59:59.000Z'));
    expect(days).toHaveLength(30);
    expect(days[0]).toBe('2026-01-31');
    expect(days.at(-1)).toBe('2026-03-01');
  });

  it('draws a bar a day in proportion to the best one, names each amount exactly, and says the total and best day in words', () => {
    const days = chartDays(new Date('2026-03-01T12:00:00.000Z'));
    const volumes = new Map([
      [days[0]!, '0.10'],
      [days[10]!, '250.000000'],
      [days[29]!, '125.000001'],
    ]);
    const svg = volumeChart({ id: 'usdt-chart', days, volumes, currency: 'USDT', title: 'Confirmed volume, 30 days', description: describeChart }).text;
    const bars = [...svg.matchAll(/<rect class="bar" x="([\d.]+)" y="([\d.]+)" width="[\d.]+" height="([\d.]+)"><title>([^<]*)<\/title><\/rect>/g)];
    expect(bars).toHaveLength(30);
    expect(bars.map((bar) => Number(bar[3]))).toEqual(days.map((day) => (day === days[10] ? 160 : day === days[29] ? 80 : day === days[0] ? 0.1 : 0)));
    expect(bars[10]![4]).toBe(`${days[10]}: 250 USDT`);
    expect(bars[29]![4]).toBe(`${days[29]}: 125.000001 USDT`);
    expect(bars[5]![4]).toBe(`${days[5]}: 0 USDT`);
    expect(svg).toContain(`<desc id="usdt-chart-description">375.100001 USDT in all; best ${days[10]}, 250 USDT</desc>`);
    expect(svg).toMatch(/^<svg class="volume-chart" viewBox="0 0 600 160" width="100%" role="img" aria-labelledby="usdt-chart-title usdt-chart-description"/);
    expect(svg).not.toMatch(/<script|style=|href=/);
  });

  it('draws nothing but empty bars for a month without deposits, and escapes what it is given', () => {
    const days = chartDays(new Date('2026-03-01T12:00:00.000Z'));
    const svg = volumeChart({ id: 'usdt-chart', days, volumes: new Map(), currency: '<b>', title: 'A & B', description: describeChart }).text;
    expect([...svg.matchAll(/height="0"/g)]).toHaveLength(30);
    expect(svg).toContain('<title id="usdt-chart-title">A &amp; B</title>');
    expect(svg).toContain('0 &lt;b&gt; in all</desc>');
    expect(svg).not.toContain('<b>');
  });
});
