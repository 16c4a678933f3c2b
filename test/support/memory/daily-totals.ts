/**
 * The day totals in memory, to the contract of DynamoDailyTotalsStore: the ledger and the invoices
 * add what their writes count (`add`) when, and only when, the write is made; the recount sets a
 * merchant's days. Amounts are summed as decimals and read at the currency's precision.
 */
import { decimalsOf } from '../../../shared/domain/kernel/currencies.js';
import type { DailyCount, DailyTotalsStore, DayTotals } from '../../../shared/domain/ledger/daily-totals.js';
import { Decimal, formatAmount } from '../../../shared/domain/kernel/money.js';

export class MemoryDailyTotals implements DailyTotalsStore {
  /** Every count added, in the order of the writes. */
  private counts: DailyCount[] = [];

  add(counts: readonly DailyCount[]): void {
    this.counts.push(...structuredClone(counts));
  }

  async lastDays(merchantId: string, days: readonly string[]): Promise<DayTotals> {
    const wanted = new Set(days);
    const sums = new Map<string, Map<string, Decimal>>();
    const totals: DayTotals = { volumes: new Map(), invoices: new Map() };
    for (const count of this.counts) {
      if (count.merchantId !== merchantId || !wanted.has(count.day)) continue;
      if (count.kind === 'volume') {
        const byDay = sums.get(count.currency) ?? new Map<string, Decimal>();
        byDay.set(count.day, (byDay.get(count.day) ?? new Decimal(0)).plus(count.amount));
        sums.set(count.currency, byDay);
      } else {
        const invoices = totals.invoices.get(count.day) ?? { created: 0, completed: 0 };
        invoices[count.event]++;
        totals.invoices.set(count.day, invoices);
      }
    }
    for (const [currency, byDay] of sums) {
      totals.volumes.set(currency, new Map([...byDay].map(([day, sum]) => [day, formatAmount(sum, decimalsOf(currency))])));
    }
    return totals;
  }

  async replace(merchantId: string, days: readonly string[], counts: readonly DailyCount[]): Promise<void> {
    const wanted = new Set(days);
    const ours = (count: DailyCount) => count.merchantId === merchantId && wanted.has(count.day);
    this.counts = [...this.counts.filter((count) => !ours(count)), ...structuredClone(counts.filter(ours))];
  }
}
