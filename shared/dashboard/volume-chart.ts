/**
 * The overview's chart: a merchant's confirmed volume per day in one currency, drawn on the server
 * as an SVG of plain shapes (no script, nothing fetched), from the day totals kept as deposits
 * land. Each bar names its day and amount; the chart's title and description say what it shows
 * to a screen reader.
 */
import { Decimal } from '../domain/kernel/index.js';
import { html, type Html } from '../http/html.js';

export const CHART_DAYS = 30;
const WIDTH = 600;
const HEIGHT = 160;
const GAP = 2;

/** The `CHART_DAYS` UTC days up to and including `now`'s, oldest first, as `YYYY-MM-DD`. */
export function chartDays(now: Date): string[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: CHART_DAYS }, (_, i) => new Date(today - (CHART_DAYS - 1 - i) * 86_400_000).toISOString().slice(0, 10));
}

export interface VolumeChartInput {
  /** Unique on the page: the chart's title and description are named by it. */
  id: string;
  /** The days drawn, oldest first (`chartDays`). */
  days: readonly string[];
  /** The confirmed volume of each day that had any, as exact decimal strings; a day absent had none. */
  volumes: ReadonlyMap<string, string>;
  currency: string;
  /** The chart's name, in the reader's language. */
  title: string;
  /** What it shows in words, in the reader's language: the total and the best day. */
  description: (total: string, best: { day: string; amount: string } | undefined) => string;
}

export function volumeChart({ id, days, volumes, currency, title, description }: VolumeChartInput): Html {
  const amounts = days.map((day) => new Decimal(volumes.get(day) ?? 0));
  const total = amounts.reduce((sum, amount) => sum.plus(amount), new Decimal(0));
  const most = Decimal.max(0, ...amounts);
  const bestIndex = most.isZero() ? -1 : amounts.findIndex((amount) => amount.equals(most));
  const best = bestIndex < 0 ? undefined : { day: days[bestIndex]!, amount: most.toFixed() };
  const barWidth = WIDTH / Math.max(days.length, 1);
  const bars = days.map((day, i) => {
    // Heights are drawn, not summed: a float is exact enough for pixels.
    const height = most.isZero() ? 0 : Math.round((amounts[i]!.toNumber() / most.toNumber()) * HEIGHT * 10) / 10;
    const x = Math.round(i * barWidth * 10) / 10;
    return html`<rect class="bar" x="${x}" y="${HEIGHT - height}" width="${Math.max(barWidth - GAP, 1).toFixed(1)}" height="${height}"><title>${day}: ${amounts[i]!.toFixed()} ${currency}</title></rect>`;
  });
  return html`<svg class="volume-chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="100%" role="img" aria-labelledby="${id}-title ${id}-description" xmlns="http://www.w3.org/2000/svg"><title id="${id}-title">${title}</title><desc id="${id}-description">${description(`${total.toFixed()} ${currency}`, best && { day: best.day, amount: `${best.amount} ${currency}` })}</desc>${bars}</svg>`;
}
