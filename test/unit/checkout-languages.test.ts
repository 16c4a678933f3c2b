import { describe, expect, it } from 'vitest';
import { chooseLanguage, LANGUAGE_CODES, LANGUAGES, PLACEHOLDER, Translator } from '../../shared/checkout/language.js';
import { en } from '../../shared/checkout/i18n/en.js';
import { html } from '../../shared/http/html.js';
import { SAME_IN_EVERY_LANGUAGE } from '../support/catalogues.js';

const placeholders = (text: string): string[] =>
  text
    .split(PLACEHOLDER)
    .filter((_, index) => index % 2 === 1)
    .sort();

/** The keys a catalogue lacks and the keys it has beyond English's. */
function keyDifferences(catalogue: Record<string, string>): { missing: string[]; extra: string[] } {
  const keys = Object.keys(catalogue);
  return { missing: Object.keys(en).filter((key) => !keys.includes(key)), extra: keys.filter((key) => !Object.hasOwn(en, key)) };
}

describe('the catalogues', () => {
  it.each(LANGUAGE_CODES.filter((code) => code !== 'en'))('%s has exactly the keys English has', (code) => {
    expect(keyDifferences(LANGUAGES[code].catalogue)).toEqual({ missing: [], extra: [] });
  });

  it('are told apart when one lacks a key or has one more', () => {
    const { 'utr.used': _dropped, ...lacking } = LANGUAGES.tr.catalogue;
    expect(keyDifferences({ ...lacking, 'utr.unused': 'x' })).toEqual({ missing: ['utr.used'], extra: ['utr.unused'] });
  });

  it.each(LANGUAGE_CODES.filter((code) => code !== 'en'))('%s keeps every placeholder of the English text, and translates it', (code) => {
    const catalogue: Record<string, string> = LANGUAGES[code].catalogue;
    for (const [key, english] of Object.entries(en)) {
      expect(placeholders(catalogue[key] ?? ''), key).toEqual(placeholders(english));
      expect(catalogue[key]!.trim(), key).not.toBe('');
      if (!SAME_IN_EVERY_LANGUAGE.has(key as keyof typeof en)) expect(catalogue[key], `${key} is left in English`).not.toBe(english);
    }
  });
});

describe('the language of a request', () => {
  it('is the one ?lang= names, in any case', () => {
    expect(chooseLanguage('ur', 'tr')).toEqual({ language: 'ur', explicit: true });
    expect(chooseLanguage('TR', undefined)).toEqual({ language: 'tr', explicit: true });
  });

  it('else the best of Accept-Language by its q-values and language prefixes', () => {
    expect(chooseLanguage(undefined, 'en;q=0.5, tr;q=0.9')).toEqual({ language: 'tr', explicit: false });
    expect(chooseLanguage(undefined, 'ur-PK')).toEqual({ language: 'ur', explicit: false });
    expect(chooseLanguage(undefined, 'az-Latn-AZ,az;q=0.9,ru;q=0.8')).toEqual({ language: 'az', explicit: false });
    expect(chooseLanguage(undefined, 'tr;q=0, hi;q=0.1')).toEqual({ language: 'hi', explicit: false });
    expect(chooseLanguage('xx', 'hi-IN,hi;q=0.9,en-US;q=0.8')).toEqual({ language: 'hi', explicit: false });
  });

  it('else English', () => {
    for (const header of [undefined, '', 'de-DE,fr;q=0.9', '*', 'garbage;;q=x']) {
      expect(chooseLanguage(undefined, header)).toEqual({ language: 'en', explicit: false });
    }
  });
});

describe('a translator', () => {
  it('fills placeholders, escaping text and values but not HTML fragments', () => {
    const t = new Translator('en');
    expect(t.html('page.title', { merchant: '<b>&' }).text).toBe('Pay &lt;b&gt;&amp;');
    expect(t.html('crypto.title', { currency: html`<em>BTC</em>` }).text).toBe('Pay with <em>BTC</em>');
    expect(t.text('page.title', { merchant: '<b>' })).toBe('Pay <b>');
    expect(() => t.text('page.title')).toThrow('No value for {merchant} in page.title');
  });

  it('writes right to left for Urdu only', () => {
    expect(LANGUAGE_CODES.map((code) => new Translator(code).dir)).toEqual(['ltr', 'ltr', 'ltr', 'rtl', 'ltr']);
  });

  it('keeps every digit of an amount, grouping as the language does', () => {
    expect(new Translator('en').amount('0.123456789012345678', 'ETH')).toBe('0.123456789012345678 ETH');
    expect(new Translator('tr').amount('98765432109.123456789012345678', 'ETH')).toBe('98.765.432.109,123456789012345678 ETH');
    expect(new Translator('en').amount('25.000000', 'USDT')).toBe('25 USDT');
    expect(new Translator('hi').amount('1234567.50', 'INR')).toBe('12,34,567.50 INR');
    expect(new Translator('az').amount('1234567.5', 'AZN')).toBe('1.234.567,50 AZN');
    expect(new Translator('ur').amount('1000', 'PKR')).toBe('1,000.00 PKR');
  });

  it('writes dates in the language, in UTC', () => {
    expect(new Translator('en').dateTime('2026-01-02T03:04:00.000Z')).toBe('January 2, 2026 at 03:04 AM UTC');
    expect(new Translator('tr').dateTime('2026-01-02T03:04:00.000Z')).toBe('2 Ocak 2026 03:04 UTC');
  });
});
