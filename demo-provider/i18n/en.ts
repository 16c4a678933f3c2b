/**
 * The demo provider's payment page in English: the key set every other language's catalogue
 * follows. `{name}` marks a value filled in when the page is rendered; every translation keeps
 * the same ones.
 */
export const en = {
  'page.title': 'Demo payment provider',
  'page.languages': 'Language',
  'page.demo': 'This is a demo for testing: no real money moves.',

  'payment.title': 'Pay {amount}',
  'payment.method': 'Payment method: {method}',
  'payment.reference': 'Payment reference: {reference}',
  'payment.choose': 'Choose how this payment ends.',
  'payment.succeed': 'Simulate successful payment',
  'payment.fail': 'Simulate failed payment',

  'confirmed.title': 'Payment successful',
  'confirmed.body': 'The payment of {amount} was simulated as successful.',
  'failed.title': 'Payment failed',
  'failed.body': 'The payment of {amount} was simulated as failed.',
  'end.return': 'Return to the shop',

  'notFound.title': 'Payment not found',
  'notFound.body': 'There is no payment at this address. Return to the shop and start the payment again.',

  'method.wallet': 'Wallet',
  'method.bankpay': 'Bank transfer',
  'method.iban': 'IBAN bank transfer',
  'method.p2p': 'Bank transfer',
} as const;

export type DemoMessageKey = keyof typeof en;

/** A language's text for every English key, no more. */
export type DemoCatalogue = Record<DemoMessageKey, string>;
