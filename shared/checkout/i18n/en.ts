/**
 * The hosted checkout's English text: the key set every other language's catalogue follows.
 * `{name}` marks a value filled in when the page is rendered; every translation keeps the same ones.
 */
export const en = {
  'page.title': 'Pay {merchant}',
  'page.languages': 'Language',
  'demo.notice': 'Demo: a test payment page. The addresses are test addresses and no real money moves.',

  'summary.order': 'Order {orderId}',
  'summary.timeLeft': 'Time left: {time}',
  'summary.minutes': '{minutes} min',
  'summary.payBy': 'Pay by {date}',
  'summary.paid': 'Paid so far: {amount}',
  'summary.remaining': 'Still to pay: {amount}',

  'crypto.title': 'Pay with {currency}',
  'crypto.sendOn': 'Send exactly {amount} to your address on the {network} network.',
  'crypto.sendOnOneOf': 'Send exactly {amount} to your address on one of the networks below.',
  'crypto.partial': 'Part of your payment has arrived. Send the remaining {amount} to complete it.',
  'crypto.addressIsYours': 'The address is yours for every payment to {merchant}.',
  'crypto.copyAmount': 'Copy amount',
  'crypto.copyAddress': 'Copy address',
  'crypto.copied': 'Copied',
  'crypto.copyFailed': 'Copy failed: select the text',
  'crypto.openWallet': 'Open in wallet',
  'crypto.qrPayment': 'QR code to pay {amount} on {network}',
  'crypto.qrAddress': 'QR code of your address on {network}',
  'crypto.addressOnly': 'This QR code holds only the address: enter the amount in your wallet yourself.',
  'crypto.sendOnlyOn': 'Send only {currency}, and only on the {network} network.',
  'crypto.sendOnlyNamed': 'Send only {currency}, and only on the network named above the address.',
  'crypto.waiting': 'Waiting for your payment. This page updates by itself.',

  'details.title': 'Your details',
  'details.intro': '{merchant} needs these details for your {method} payment.',
  'details.continue': 'Continue to payment',
  'field.customerFullName': 'Full name',
  'field.customerFirstName': 'First name',
  'field.customerLastName': 'Last name',
  'field.customerEmail': 'Email',
  'field.customerAccount': 'IBAN',
  'problem.required': 'This field is required',
  'problem.tooLong': 'Must be at most {max} characters',
  'problem.email': 'Must be a valid email address',
  'problem.iban': 'Must be a valid IBAN',
  'problem.invalid': 'This value is not valid',

  'method.wallet': 'Wallet',
  'method.bankpay': 'Bank transfer',
  'method.iban': 'IBAN bank transfer',
  'method.p2p': 'Bank transfer',
  'method.intent': 'UPI',

  'provider.demo': 'Demo payment provider: a simulation for testing. No money moves.',
  'provider.payer': 'Payer: {name}',
  'provider.choose': 'Choose a payment provider',
  'channel.upi': 'UPI',
  'channel.imps': 'IMPS / NEFT bank transfer',
  'utr.title': 'Transaction information',
  'utr.intro': 'Pay {amount} with {channel}, then enter the UTR (transaction reference) that your bank or UPI app shows for the payment.',
  'utr.label': 'UTR (12 to 22 letters or digits)',
  'utr.submit': 'Submit',
  'utr.otherProvider': 'Choose another provider',
  'utr.invalid': 'Must be 12 to 22 letters or digits',
  'utr.used': 'This UTR was already used for another payment',
  'simulated.intro': 'Choose how this payment of {amount} ends.',
  'simulated.success': 'Simulate successful payment',
  'simulated.failure': 'Simulate failed payment',

  'instructions.title': 'Complete your payment',
  'instructions.intro': 'Your {method} payment of {amount} is with the local payment provider. Follow its instructions to pay.',
  'instructions.waiting': 'This page updates by itself when the payment is confirmed.',
  'waiting.title': 'Confirming your payment',
  'waiting.body': 'The payment provider is confirming your payment. This page updates by itself.',

  'completed.title': 'Payment received',
  'completed.body': 'Thank you: {merchant} has your payment.',
  'completed.bodyLate': 'Thank you: {merchant} has your payment, which arrived after the invoice had expired.',
  'rejected.title': 'Payment rejected',
  'rejected.body': 'The payment provider rejected this payment. Ask {merchant} for a new payment link to try again.',
  'expired.title': 'This invoice has expired',
  'expired.body': 'The time to pay ran out on {date}. Ask {merchant} for a new payment link.',
  'expired.credited': 'If you have already sent {currency} to the address, it is still credited to you.',
  'end.return': 'Return to {merchant}',
  'end.close': 'You can close this page.',

  'notFound.title': 'Payment link not found',
  'notFound.body': 'This payment link is not valid. Check that you opened the whole link, or ask the shop for a new one.',
} as const;

export type MessageKey = keyof typeof en;

/** A language's text for every English key, no more. */
export type Catalogue = Record<MessageKey, string>;
