/**
 * What tests know of the pages' catalogues (the checkout's and the dashboard's), to catch text
 * left untranslated: the English words no page in another language may show, and a key or an
 * unfilled placeholder showing through in any language.
 */
import { en, type MessageKey } from '../../shared/checkout/i18n/en.js';
import { PLACEHOLDER } from '../../shared/checkout/language.js';
import { en as dashboardEn, type DashboardKey } from '../../shared/dashboard/i18n/en.js';

export interface UntranslatedText {
  /**
   * The words of the English catalogue that no page in another language may show: each text's
   * parts between placeholders, where long enough to be words rather than punctuation.
   */
  englishPhrases: readonly string[];
  /** A catalogue key (`crypto.title`) or an unfilled placeholder (`{amount}`) showing through. */
  rawKeyOrPlaceholder: RegExp;
}

/** The checks of one catalogue, by its English text; `sameInEveryLanguage` names texts that are names or acronyms. */
export function untranslatedTextOf<Key extends string>(english: Readonly<Record<Key, string>>, sameInEveryLanguage: ReadonlySet<Key> = new Set()): UntranslatedText {
  const entries = Object.entries(english) as Array<[Key, string]>;
  return {
    englishPhrases: entries
      .filter(([key]) => !sameInEveryLanguage.has(key))
      .flatMap(([, text]) => text.split(PLACEHOLDER).filter((_, index) => index % 2 === 0))
      .map((part) => part.trim())
      .filter((part) => part.length >= 6),
    rawKeyOrPlaceholder: new RegExp(`\\{\\w+\\}|\\b(${[...new Set(entries.map(([key]) => key.split('.')[0]))].join('|')})\\.[a-z][A-Za-z]+\\b`),
  };
}

/** What is wrong with a page's readable text in `language`: a key or placeholder showing through, or (but in English) English words. */
export function untranslatedIn(text: string, language: string, checks: UntranslatedText): string[] {
  const raw = checks.rawKeyOrPlaceholder.exec(text)?.[0];
  return [...(raw === undefined ? [] : [raw]), ...(language === 'en' ? [] : checks.englishPhrases.filter((phrase) => text.includes(phrase)))];
}

/** Keys whose text is a name or an acronym, the same in every language. */
export const SAME_IN_EVERY_LANGUAGE: ReadonlySet<MessageKey> = new Set(['field.customerAccount', 'method.intent']);

const checkout = untranslatedTextOf(en, SAME_IN_EVERY_LANGUAGE);
export const ENGLISH_PHRASES = checkout.englishPhrases;
export const RAW_KEY_OR_PLACEHOLDER = checkout.rawKeyOrPlaceholder;

/** The dashboard's keys whose text is an acronym, the same in every language. */
export const DASHBOARD_SAME_IN_EVERY_LANGUAGE: ReadonlySet<DashboardKey> = new Set(['transaction.utr']);

export const DASHBOARD_TEXT = untranslatedTextOf(dashboardEn, DASHBOARD_SAME_IN_EVERY_LANGUAGE);

/**
 * For `page.evaluate` (an expression: the tests have no DOM types): everything a reader meets on
 * the page, its title, its text, the text alternatives of its elements and the titles and
 * descriptions of its drawings; but the text inside the elements `ignore` selects, when given
 * (data shown as it is stored, such as identifiers).
 */
export const readableText = (ignore?: string): string => `(() => {
  const ignored = ${JSON.stringify(ignore ?? '')} ? Array.from(document.querySelectorAll(${JSON.stringify(ignore ?? '')})) : [];
  const kept = (element) => !ignored.some((each) => each.contains(element));
  let text = document.body.innerText;
  for (const element of ignored) text = text.replace(element.innerText, '');
  return [document.title, text,
    ...Array.from(document.querySelectorAll('svg title, svg desc')).filter(kept).map((element) => element.textContent),
    ...Array.from(document.querySelectorAll('[alt], [aria-label], [title]')).filter(kept).flatMap((element) =>
      ['alt', 'aria-label', 'title'].map((name) => element.getAttribute(name) || ''))].join('\\n');
})()`;

/** For `page.evaluate`: the document's language and direction, as written and as laid out. */
export const DOCUMENT_LANGUAGE = `({ lang: document.documentElement.lang, dir: document.documentElement.dir, direction: getComputedStyle(document.body).direction })`;
