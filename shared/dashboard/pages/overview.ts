/** The overview: the merchant's balances, its confirmed deposits per day as a chart, and its invoices of the last 30 days. */
import { html } from '../../http/html.js';
import { page, table, th } from '../parts.js';
import { signedInUser, type PageHandler } from '../page.js';
import { chartDays, volumeChart } from '../volume-chart.js';

export const overview: PageHandler = async (request) => {
  const { context, services } = request;
  const { t } = context;
  const { user } = signedInUser(request);
  const days = chartDays(services.clock());
  const [balances, totals] = await Promise.all([services.balances.view(user.merchantId), services.totals.lastDays(user.merchantId, days)]);
  const balanceRows = balances.items.map(
    ({ currency, available, reserved }) => html`<tr><th scope="row">${currency}</th><td class="num">${t.amount(available, currency)}</td><td class="num">${t.amount(reserved, currency)}</td></tr>`,
  );
  const shortDay = new Intl.DateTimeFormat(t.language, { day: 'numeric', month: 'short', timeZone: 'UTC' });
  const charts = [...totals.volumes].map(([currency, volumes]) =>
    volumeChart({
      id: `chart-${currency.toLowerCase()}`,
      days,
      volumes,
      currency,
      text: {
        title: t.text('overview.chartTitle', { currency }),
        description: (total, best) => [t.text('overview.chartDescription', { total }), best ? t.text('overview.chartBest', { day: best.day, amount: best.amount }) : ''].join(' ').trim(),
        day: (day) => shortDay.format(new Date(`${day}T00:00:00Z`)),
        table: t.text('overview.chartTable', { currency }),
        dayHeading: t.text('overview.day'),
        amountHeading: t.text('list.amount'),
        amount: (value, of) => t.amount(value, of),
      },
    }),
  );
  const invoices = [...totals.invoices.values()].reduce((sum, day) => ({ created: sum.created + day.created, completed: sum.completed + day.completed }), { created: 0, completed: 0 });
  const main = html`<section><h2>${t.text('overview.balances')}</h2>${table([th(t.text('reports.currency')), th(t.text('overview.available'), true), th(t.text('overview.reserved'), true)], balanceRows, t.text('overview.noBalances'))}</section>
<section class="chart"><h2>${t.text('overview.volume')}</h2>${charts.length > 0 ? html`<div class="charts">${charts}</div>` : html`<p>${t.text('overview.noVolume')}</p>`}</section>
<section><h2>${t.text('overview.invoices')}</h2><div class="stats"><p class="stat">${t.text('overview.created')}<b>${t.number(invoices.created)}</b></p><p class="stat">${t.text('overview.completed')}<b>${t.number(invoices.completed)}</b></p></div></section>`;
  return page(context, t.text('overview.title'), main);
};
