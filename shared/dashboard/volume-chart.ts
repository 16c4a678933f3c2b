/**
 * The overview's charts: a merchant's confirmed volume per day in one currency, drawn on the server
 * as an SVG of plain shapes (no script, nothing fetched), from the day totals kept as deposits
 * land. One chart per currency, so that no two currencies ever share a scale: a y axis of round
 * values in the currency's units, the days named under the bars, and the same numbers as a table
 * for those who do not see the drawing. Colours and sizes are the drawing's own attributes, so it
 * reads the same whatever the page's style does to it.
 */
import { Decimal } from '../domain/kernel/index.js';
import { html, type Html } from '../http/html.js';
import { table, th } from './parts.js';

export const CHART_DAYS = 30;
/** The drawing's own units: about as wide as a phone shows it, so that its text stays legible there. */
const WIDTH = 380;
const HEIGHT = 220;
/** Room for the axis values on the left, half of today's label on the right, the unit above and the days below. */
const PLOT = { left: 60, right: 28, top: 28, bottom: 28 };
const PLOT_WIDTH = WIDTH - PLOT.left - PLOT.right;
const PLOT_HEIGHT = HEIGHT - PLOT.top - PLOT.bottom;
const GAP = 2;
/** A day label every week, counted back from today's, which is always named. */
const LABEL_EVERY = 7;
/** How many steps the y axis is cut into, about: fewer when the round step overshoots. */
const TICK_COUNT = 4;
/** Round steps, per power of ten. */
const ROUND_STEPS = [1, 2, 2.5, 5, 10];

/** The `CHART_DAYS` UTC days up to and including `now`'s, oldest first, as `YYYY-MM-DD`. */
export function chartDays(now: Date): string[] {
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return Array.from({ length: CHART_DAYS }, (_, i) => new Date(today - (CHART_DAYS - 1 - i) * 86_400_000).toISOString().slice(0, 10));
}

/**
 * The y axis's values, from zero up to the first round value at or above `most`, in steps of 1, 2,
 * 2.5 or 5 times a power of ten; exact decimals, so that 0.0003 BTC is never 0.00030000000000000003.
 */
export function axisTicks(most: Decimal): Decimal[] {
  if (most.lessThanOrEqualTo(0)) return [new Decimal(0)];
  const rough = most.div(TICK_COUNT);
  const magnitude = new Decimal(10).pow(Math.floor(rough.log(10).toNumber()));
  const step = ROUND_STEPS.map((round) => magnitude.times(round)).find((candidate) => candidate.greaterThanOrEqualTo(rough))!;
  const steps = most.div(step).ceil().toNumber();
  return Array.from({ length: steps + 1 }, (_, i) => step.times(i));
}

export interface VolumeChartInput {
  /** Unique on the page: the chart's title and description are named by it. */
  id: string;
  /** The days drawn, oldest first (`chartDays`). */
  days: readonly string[];
  /** The confirmed volume of each day that had any, as exact decimal strings; a day absent had none. */
  volumes: ReadonlyMap<string, string>;
  currency: string;
  /** The reader's language's words. */
  text: {
    /** The chart's name. */
    title: string;
    /** What it shows in words: the total and the best day. */
    description: (total: string, best: { day: string; amount: string } | undefined) => string;
    /** A day as short as the axis shows it. */
    day: (day: string) => string;
    /** What opens the table of the same numbers. */
    table: string;
    dayHeading: string;
    amountHeading: string;
    /** An amount as the rest of the page writes it (at the currency's precision). */
    amount: (value: string, currency: string) => string;
  };
}

/** Pixels are drawn, not summed: a tenth of one is exact enough. */
const pixels = (value: number): number => Math.round(value * 10) / 10;

export function volumeChart({ id, days, volumes, currency, text }: VolumeChartInput): Html {
  const amounts = days.map((day) => new Decimal(volumes.get(day) ?? 0));
  const total = amounts.reduce((sum, amount) => sum.plus(amount), new Decimal(0));
  const most = Decimal.max(0, ...amounts);
  const bestIndex = most.isZero() ? -1 : amounts.findIndex((amount) => amount.equals(most));
  const best = bestIndex < 0 ? undefined : { day: days[bestIndex]!, amount: text.amount(most.toFixed(), currency) };
  const ticks = axisTicks(most);
  const top = ticks.at(-1)!;
  const yOf = (value: Decimal): number => pixels(PLOT.top + PLOT_HEIGHT - (top.isZero() ? 0 : (value.toNumber() / top.toNumber()) * PLOT_HEIGHT));
  const barWidth = PLOT_WIDTH / Math.max(days.length, 1);
  const xOf = (index: number): number => pixels(PLOT.left + index * barWidth);

  const grid = ticks.map((tick) => {
    const y = yOf(tick);
    return html`<line x1="${PLOT.left}" x2="${WIDTH - PLOT.right}" y1="${y}" y2="${y}" stroke="#d5dae1"/><text class="tick" x="${PLOT.left - 6}" y="${y}" text-anchor="end" dominant-baseline="middle">${tick.toFixed()}</text>`;
  });
  const bars = days.map((day, i) => {
    const y = yOf(amounts[i]!);
    return html`<rect class="bar" x="${xOf(i) + GAP / 2}" y="${y}" width="${pixels(Math.max(barWidth - GAP, 1))}" height="${pixels(PLOT.top + PLOT_HEIGHT - y)}" fill="#0b57a4"><title>${text.day(day)}: ${text.amount(amounts[i]!.toFixed(), currency)}</title></rect>`;
  });
  const labels = days.flatMap((day, i) =>
    (days.length - 1 - i) % LABEL_EVERY === 0 ? [html`<text class="day" x="${pixels(xOf(i) + barWidth / 2)}" y="${HEIGHT - 8}" text-anchor="middle">${text.day(day)}</text>`] : [],
  );
  const baseline = PLOT.top + PLOT_HEIGHT;
  // Drawn left to right (time runs that way) in a right-to-left page too, whose direction the text would otherwise take.
  const svg = html`<svg class="volume-chart" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="100%" role="img" aria-labelledby="${id}-title ${id}-description" direction="ltr" font-size="14" fill="#1a1a1a" xmlns="http://www.w3.org/2000/svg"><title id="${id}-title">${text.title}</title><desc id="${id}-description">${text.description(text.amount(total.toFixed(), currency), best)}</desc><text class="unit" x="${PLOT.left - 6}" y="14" text-anchor="end" font-weight="700">${currency}</text>${grid}${bars}<line class="axis" x1="${PLOT.left}" x2="${WIDTH - PLOT.right}" y1="${baseline}" y2="${baseline}" stroke="#6b7380"/>${labels}</svg>`;
  const rows = days.map((day, i) => html`<tr><th scope="row">${text.day(day)}</th><td class="num">${text.amount(amounts[i]!.toFixed(), currency)}</td></tr>`);
  return html`<div class="volume"><h3>${currency}</h3>${svg}<details><summary>${text.table}</summary>${table([th(text.dayHeading), th(text.amountHeading, true)], rows, '')}</details></div>`;
}
