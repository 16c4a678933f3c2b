import type { DemoCatalogue } from './en.js';

export const az = {
  'page.title': 'Demo ödəniş provayderi',
  'page.languages': 'Dil',
  'page.demo': 'Bu, test üçün demodur: real pul köçürülmür.',

  'payment.title': '{amount} ödəyin',
  'payment.method': 'Ödəniş üsulu: {method}',
  'payment.reference': 'Ödəniş istinadı: {reference}',
  'payment.choose': 'Bu ödənişin necə başa çatacağını seçin.',
  'payment.succeed': 'Uğurlu ödənişi simulyasiya et',
  'payment.fail': 'Uğursuz ödənişi simulyasiya et',

  'confirmed.title': 'Ödəniş uğurlu oldu',
  'confirmed.body': '{amount} məbləğindəki ödəniş uğurlu kimi simulyasiya edildi.',
  'failed.title': 'Ödəniş uğursuz oldu',
  'failed.body': '{amount} məbləğindəki ödəniş uğursuz kimi simulyasiya edildi.',
  'end.return': 'Mağazaya qayıt',

  'notFound.title': 'Ödəniş tapılmadı',
  'notFound.body': 'Bu ünvanda ödəniş yoxdur. Mağazaya qayıdın və ödənişi yenidən başladın.',

  'method.wallet': 'Elektron pul kisəsi',
  'method.bankpay': 'Bank köçürməsi',
  'method.iban': 'IBAN ilə bank köçürməsi',
  'method.p2p': 'Bank köçürməsi',
} as const satisfies DemoCatalogue;
