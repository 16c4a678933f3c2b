import type { DemoCatalogue } from './en.js';

export const ur = {
  'page.title': 'ڈیمو ادائیگی فراہم کنندہ',
  'page.languages': 'زبان',
  'page.demo': 'یہ جانچ کے لیے ایک ڈیمو ہے: کوئی اصل رقم منتقل نہیں ہوتی۔',

  'payment.title': '{amount} ادا کریں',
  'payment.method': 'ادائیگی کا طریقہ: {method}',
  'payment.reference': 'ادائیگی کا حوالہ: {reference}',
  'payment.choose': 'منتخب کریں کہ یہ ادائیگی کیسے ختم ہو۔',
  'payment.succeed': 'کامیاب ادائیگی کی نقل کریں',
  'payment.fail': 'ناکام ادائیگی کی نقل کریں',

  'confirmed.title': 'ادائیگی کامیاب رہی',
  'confirmed.body': '{amount} کی ادائیگی کی کامیاب نقل کی گئی۔',
  'failed.title': 'ادائیگی ناکام رہی',
  'failed.body': '{amount} کی ادائیگی کی ناکام نقل کی گئی۔',
  'end.return': 'دکان پر واپس جائیں',

  'notFound.title': 'ادائیگی نہیں ملی',
  'notFound.body': 'اس پتے پر کوئی ادائیگی نہیں ہے۔ دکان پر واپس جائیں اور ادائیگی دوبارہ شروع کریں۔',

  'method.wallet': 'والیٹ',
  'method.bankpay': 'بینک ٹرانسفر',
  'method.iban': 'IBAN بینک ٹرانسفر',
  'method.p2p': 'بینک ٹرانسفر',
} as const satisfies DemoCatalogue;
