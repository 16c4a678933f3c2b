/** The OpenAPI description of the payouts' routes: the fiat withdrawal, and its simulated outcome on the demo stage, with their examples (shared/routes/route-doc.ts). */
import { simulateWithdrawalRequestSchema } from '../domain/invoicing/index.js';
import { transactionViewSchema, withdrawalRequestSchema, type TransactionView } from '../domain/transactions/index.js';
import { AUTH_ERRORS, BODY_ERRORS, IDEMPOTENCY_CONFLICT, type RouteDocs, EXAMPLE_IDS } from './route-doc.js';
import type { PAYOUTS_FUNCTIONS } from './payouts.js';
import { transactionExample } from './transactions.docs.js';

export const withdrawalExample: TransactionView = {
  ...transactionExample,
  id: EXAMPLE_IDS.withdrawalId,
  invoiceId: null,
  type: 'withdraw',
  status: 'processing',
  amount: '1500.00',
  currency: 'TRY',
  network: null,
  transactionHash: null,
  customerId: 'cust-42',
  orderId: 'payout-77',
  info: { exchangeRate: '1', referenceAmount: '1500.00', referenceCurrency: 'TRY', referenceExchangeRate: '1', transactionAmount: '1500.00', transactionCurrency: 'TRY' },
  fees: { processing: '0.00', technical: null },
  eur: '41.67',
  usd: '45.00',
};

export const simulateWithdrawalExample = { transactionId: EXAMPLE_IDS.withdrawalId, status: 'confirmed' };

export const createWithdrawalExample = {
  customerId: 'cust-42',
  amount: '1500.00',
  currency: 'TRY',
  orderId: 'payout-77',
  cardHolderName: 'Ayse Yilmaz',
  cardNumber: '4111111111111111',
};

export const PAYOUTS_DOCS: RouteDocs<typeof PAYOUTS_FUNCTIONS> = {
  'create-withdrawal': {
    summary: 'Initiate a fiat withdrawal (deprecated, peer to peer)',
    description:
      'Every field is a string. The variant is the one whose required field is present: `cardNumber` (12-19 digits, Luhn), ' +
      '`phoneNumber`, or `bankAccountNumber` with `bankAccountName`; none or several is a 422. `orderId` is unique per merchant ' +
      '(409 `db_unique_violation`). The amount and its fee are paid from the available balance in the currency: they are ' +
      'reserved with the withdrawal, paid out when it is confirmed and released when it fails; more than is available is a ' +
      '402 `payment_required` and nothing is written. While your books are under review (the hourly books check found them off), ' +
      "every withdrawal is a 423 `locked`, whatever the balance, and nothing is written, until the gateway's operator clears the hold. " +
      'Answers the withdraw transaction, `processing`, with the header ' +
      '`Deprecation: true`; the `withdraw` callback follows when it is settled. A card number is stored only encrypted and never returned.',
    tag: 'Withdrawals',
    schemaName: 'CreateWithdrawal',
    request: withdrawalRequestSchema,
    requestExample: createWithdrawalExample,
    response: transactionViewSchema,
    responseExample: withdrawalExample,
    success: 'The withdraw transaction, `processing`',
    errors: {
      ...BODY_ERRORS,
      402: 'The available balance in the currency is less than the amount and its fee (the message names what is available); nothing is written',
      409: `This orderId belongs to another withdrawal (\`db_unique_violation\`), or the balance kept changing; or: ${IDEMPOTENCY_CONFLICT}`,
      423: "Payouts are held while your books are under review: the books check found them off (the message names the check's time); nothing is written, and retrying does not help until the gateway's operator clears the hold",
      ...AUTH_ERRORS,
    },
    callbacks: true,
  },
  'simulate-withdrawal': {
    summary: 'Simulate a withdrawal outcome (demo only)',
    description: 'Moves a processing withdrawal of the merchant to `confirmed` or `failed`; the `withdraw` callback follows.',
    tag: 'Simulation',
    schemaName: 'SimulateWithdrawal',
    request: simulateWithdrawalRequestSchema,
    requestExample: simulateWithdrawalExample,
    response: transactionViewSchema,
    responseExample: { ...withdrawalExample, status: 'confirmed' },
    success: 'The settled withdrawal',
    errors: {
      ...BODY_ERRORS,
      404: 'No transaction of this merchant has this id',
      409: `The withdrawal already has the other outcome; or: ${IDEMPOTENCY_CONFLICT}`,
      ...AUTH_ERRORS,
    },
    notFound: 'Transaction',
    callbacks: true,
  },
};
