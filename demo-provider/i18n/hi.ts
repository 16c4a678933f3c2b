import type { DemoCatalogue } from './en.js';

export const hi = {
  'page.title': 'डेमो भुगतान प्रदाता',
  'page.languages': 'भाषा',
  'page.demo': 'यह परीक्षण के लिए एक डेमो है: कोई असली पैसा नहीं भेजा जाता।',

  'payment.title': '{amount} का भुगतान करें',
  'payment.method': 'भुगतान का तरीका: {method}',
  'payment.reference': 'भुगतान संदर्भ: {reference}',
  'payment.choose': 'चुनें कि यह भुगतान कैसे समाप्त हो।',
  'payment.succeed': 'सफल भुगतान का सिमुलेशन करें',
  'payment.fail': 'विफल भुगतान का सिमुलेशन करें',

  'confirmed.title': 'भुगतान सफल रहा',
  'confirmed.body': '{amount} के भुगतान का सफल सिमुलेशन किया गया।',
  'failed.title': 'भुगतान विफल रहा',
  'failed.body': '{amount} के भुगतान का विफल सिमुलेशन किया गया।',
  'end.return': 'दुकान पर वापस जाएँ',

  'notFound.title': 'भुगतान नहीं मिला',
  'notFound.body': 'इस पते पर कोई भुगतान नहीं है। दुकान पर वापस जाएँ और भुगतान फिर से शुरू करें।',

  'method.wallet': 'वॉलेट',
  'method.bankpay': 'बैंक ट्रांसफ़र',
  'method.iban': 'IBAN बैंक ट्रांसफ़र',
  'method.p2p': 'बैंक ट्रांसफ़र',
} as const satisfies DemoCatalogue;
