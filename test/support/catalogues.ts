/** What tests know of the checkout's catalogues, to catch text left untranslated. */
import { en, type MessageKey } from '../../shared/checkout/i18n/en.js';
import { PLACEHOLDER } from '../../shared/checkout/language.js';

/** Keys whose text is a name or an acronym, the same in every language. */
export const SAME_IN_EVERY_LANGUAGE: ReadonlySet<MessageKey> = new Set(['field.customerAccount', 'method.intent']);

/**
 * The words of the English catalogue that no page in another language may show: each text's
 * parts between placeholders, where long enough to be words rather than punctuation.
 */
export const ENGLISH_PHRASES: readonly string[] = (Object.entries(en) as [MessageKey, string][])
  .filter(([key]) => !SAME_IN_EVERY_LANGUAGE.has(key))
  .flatMap(([, text]) => text.split(PLACEHOLDER).filter((_, index) => index % 2 === 0))
  .map((part) => part.trim())
  .filter((part) => part.length >= 6);

/** A catalogue key (`crypto.title`) or an unfilled placeholder (`{amount}`) showing through. */
export const RAW_KEY_OR_PLACEHOLDER = new RegExp(`\\{\\w+\\}|\\b(${[...new Set(Object.keys(en).map((key) => key.split('.')[0]))].join('|')})\\.[a-z][A-Za-z]+\\b`);
