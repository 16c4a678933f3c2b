import type { DemoCatalogue } from './en.js';

export const tr = {
  'page.title': 'Demo ödeme sağlayıcısı',
  'page.languages': 'Dil',
  'page.demo': 'Bu, test amaçlı bir demodur: gerçek para aktarılmaz.',

  'payment.title': '{amount} ödeyin',
  'payment.method': 'Ödeme yöntemi: {method}',
  'payment.reference': 'Ödeme referansı: {reference}',
  'payment.choose': 'Bu ödemenin nasıl sonuçlanacağını seçin.',
  'payment.succeed': 'Başarılı ödemeyi simüle et',
  'payment.fail': 'Başarısız ödemeyi simüle et',

  'confirmed.title': 'Ödeme başarılı',
  'confirmed.body': '{amount} tutarındaki ödeme başarılı olarak simüle edildi.',
  'failed.title': 'Ödeme başarısız',
  'failed.body': '{amount} tutarındaki ödeme başarısız olarak simüle edildi.',
  'end.return': 'Mağazaya dön',

  'notFound.title': 'Ödeme bulunamadı',
  'notFound.body': 'Bu adreste bir ödeme yok. Mağazaya dönüp ödemeyi yeniden başlatın.',

  'method.wallet': 'Cüzdan',
  'method.bankpay': 'Banka havalesi',
  'method.iban': 'IBAN ile banka havalesi',
  'method.p2p': 'Banka havalesi',
} as const satisfies DemoCatalogue;
