/**
 * The dashboard's languages: the checkout's five, chosen the same way (`?lang=`, else
 * `Accept-Language`, else English), each with a catalogue of its own under ./i18n.
 */
import { CatalogueTranslator, type Language } from '../checkout/language.js';
import { Decimal, decimalsOf } from '../domain/kernel/index.js';
import { az } from './i18n/az.js';
import { en, type DashboardCatalogue, type DashboardKey } from './i18n/en.js';
import { hi } from './i18n/hi.js';
import { tr } from './i18n/tr.js';
import { ur } from './i18n/ur.js';

export type { DashboardKey } from './i18n/en.js';

export const DASHBOARD_CATALOGUES: Record<Language, DashboardCatalogue> = { en, tr, hi, ur, az };

/** One language of the dashboard: its catalogue's text, numbers and dates. */
export class DashboardTranslator extends CatalogueTranslator<DashboardKey> {
  constructor(language: Language) {
    super(language, DASHBOARD_CATALOGUES[language]);
  }

  /**
   * An amount at its currency's precision, as the API writes it ("25.000000 USDT", "100.00 INR"),
   * digits grouped as the language groups them. On a right-to-left page it is isolated (U+2066 …
   * U+2069, Unicode's bidi isolates, as the checkout's `<bdi>`), so that it still reads "75.00 USDT"
   * and not "USDT 75.00", in text and attributes alike.
   */
  override amount(value: string, currency: string): string {
    const digits = decimalsOf(currency);
    const amount = `${this.number(new Decimal(value).toFixed(digits), digits)} ${currency}`;
    return this.dir === 'rtl' ? `\u2066${amount}\u2069` : amount;
  }
}
