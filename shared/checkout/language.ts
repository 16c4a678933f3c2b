/**
 * The hosted checkout's languages (docs/merchant-guide.md#the-hosted-checkout): which one a request gets (`?lang=`, else
 * `Accept-Language`, else English), and its text, numbers and dates. The text of every language
 * lives in its catalogue under ./i18n; nothing here or in the pages writes words of its own.
 */
import Negotiator from 'negotiator';
import { Decimal, decimalsOf, isCryptoAsset } from '../domain/kernel/index.js';
import { escapeHtml, Html } from '../http/html.js';
import { az } from './i18n/az.js';
import { en, type Catalogue, type MessageKey } from './i18n/en.js';
import { hi } from './i18n/hi.js';
import { tr } from './i18n/tr.js';
import { ur } from './i18n/ur.js';

export type { MessageKey } from './i18n/en.js';

interface LanguageInfo {
  /** The language's name for itself, as the language switcher shows it. */
  name: string;
  dir: 'ltr' | 'rtl';
  catalogue: Catalogue;
}

/** The checkout's languages, English (the default) first. */
export const LANGUAGES = {
  en: { name: 'English', dir: 'ltr', catalogue: en },
  tr: { name: 'Türkçe', dir: 'ltr', catalogue: tr },
  hi: { name: 'हिन्दी', dir: 'ltr', catalogue: hi },
  ur: { name: 'اردو', dir: 'rtl', catalogue: ur },
  az: { name: 'Azərbaycanca', dir: 'ltr', catalogue: az },
} as const satisfies Record<string, LanguageInfo>;

export type Language = keyof typeof LANGUAGES;
export const LANGUAGE_CODES = Object.keys(LANGUAGES) as Language[];
export const DEFAULT_LANGUAGE: Language = 'en';

export const isLanguage = (value: string): value is Language => Object.hasOwn(LANGUAGES, value);

export interface LanguageChoice {
  language: Language;
  /** Named in the URL (`?lang=`): the checkout's own links, forms and redirects carry it on. */
  explicit: boolean;
}

/** `?lang=` when it names a language, else the best of `Accept-Language` by its q-values, else English. */
export function chooseLanguage(requested: string | undefined, acceptLanguage: string | undefined): LanguageChoice {
  const named = requested?.trim().toLowerCase();
  if (named !== undefined && isLanguage(named)) return { language: named, explicit: true };
  const [preferred] = new Negotiator({ headers: { 'accept-language': acceptLanguage } }).languages(LANGUAGE_CODES);
  return { language: preferred !== undefined && isLanguage(preferred) ? preferred : DEFAULT_LANGUAGE, explicit: false };
}

/** How dates are written: in UTC on the server, in the reader's own time zone once the page's script runs. */
export const DATE_TIME_OPTIONS: Intl.DateTimeFormatOptions = {
  year: 'numeric',
  month: 'long',
  day: 'numeric',
  hour: '2-digit',
  minute: '2-digit',
  timeZoneName: 'short',
};

type Values = Record<string, string | number | Html>;

/** `{name}` in a catalogue's text; the capture keeps the name when the text is split at it. */
export const PLACEHOLDER = /\{(\w+)\}/;

/**
 * One language's text from a catalogue of its own, and its numbers and dates: the checkout's
 * `Translator`, or another page set's (the demo provider's) with its own catalogues.
 */
export class CatalogueTranslator<Key extends string> {
  readonly dir: 'ltr' | 'rtl';
  private readonly dates: Intl.DateTimeFormat;

  constructor(
    readonly language: Language,
    private readonly catalogue: Readonly<Record<Key, string>>,
  ) {
    this.dir = LANGUAGES[language].dir;
    this.dates = new Intl.DateTimeFormat(language, { ...DATE_TIME_OPTIONS, timeZone: 'UTC' });
  }

  /** The text of `key` as HTML, each `{name}` replaced by its value (escaped, unless it is HTML already). */
  html(key: Key, values: Values = {}): Html {
    return new Html(this.fill(key, values, escapeHtml, (value) => (value instanceof Html ? value.text : escapeHtml(this.shown(value)))));
  }

  /** The text of `key` as plain text (a title, an attribute), each `{name}` replaced by its value. */
  text(key: Key, values: Record<string, string | number> = {}): string {
    return this.fill(
      key,
      values,
      (text) => text,
      (value) => this.shown(value),
    );
  }

  /** A decimal string with exactly `fractionDigits` places, grouped as the language groups digits. */
  number(value: string | number, fractionDigits = 0): string {
    const format = new Intl.NumberFormat(this.language, { minimumFractionDigits: fractionDigits, maximumFractionDigits: fractionDigits });
    // A numeric string is formatted exactly (no conversion to a binary float).
    return format.format(typeof value === 'number' ? value : (value as `${number}`));
  }

  /** An amount with its currency code: crypto without the trailing zeros of its precision, fiat with its cents. */
  amount(value: string, currency: string): string {
    const digits = isCryptoAsset(currency) ? new Decimal(value).decimalPlaces() : decimalsOf(currency);
    return `${this.number(new Decimal(value).toFixed(digits), digits)} ${currency}`;
  }

  dateTime(iso: string): string {
    return this.dates.format(new Date(iso));
  }

  private shown(value: string | number): string {
    return typeof value === 'number' ? this.number(value) : value;
  }

  /** The catalogue text split at its placeholders: even parts are text, odd parts placeholder names. */
  private fill<V>(key: Key, values: Record<string, V>, renderText: (text: string) => string, renderValue: (value: V) => string): string {
    return this.catalogue[key]
      .split(PLACEHOLDER)
      .map((part, index) => {
        if (index % 2 === 0) return renderText(part);
        if (!Object.hasOwn(values, part)) throw new Error(`No value for {${part}} in ${key}`);
        return renderValue(values[part]!);
      })
      .join('');
  }
}

/** One language of the hosted checkout: its catalogue's text, numbers and dates. */
export class Translator extends CatalogueTranslator<MessageKey> {
  constructor(language: Language) {
    super(language, LANGUAGES[language].catalogue);
  }
}
