/** The OpenAPI description of the payouts' routes: the fiat withdrawal, its simulated outcome on the demo stage, and the payout addresses, with their examples (shared/routes/route-doc.ts). */
import { simulateWithdrawalRequestSchema } from '../domain/invoicing/index.js';
import { cryptoPayoutRequestSchema, payoutAddressListSchema, type PayoutAddressList } from '../domain/payouts/index.js';
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

export const payoutAddressListExample: PayoutAddressList = {
  items: [
    {
      id: '2d9f6b1e-4c3a-4e8b-9a7d-6f5e4d3c2b1a',
      network: 'tron',
      address: 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7',
      label: 'Exchange deposit',
      status: 'pending',
      activatesAt: '2025-06-03T09:30:00.000Z',
      createdAt: '2025-06-02T09:30:00.000Z',
    },
    {
      id: '7a1c3e5f-9b2d-4f6a-8c0e-1d3f5a7b9c2e',
      network: 'ethereum',
      address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
      label: 'Treasury',
      status: 'active',
      activatesAt: '2025-05-21T14:05:00.000Z',
      createdAt: '2025-05-20T14:05:00.000Z',
    },
  ],
};

export const cryptoPayoutExample: TransactionView = {
  ...withdrawalExample,
  id: EXAMPLE_IDS.payoutId,
  amount: '250.000000',
  currency: 'USDT',
  network: 'tron',
  address: 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7',
  customerId: '',
  orderId: 'settlement-2025-06',
  info: { exchangeRate: '1', referenceAmount: '250.000000', referenceCurrency: 'USDT', referenceExchangeRate: '1', transactionAmount: '250.000000', transactionCurrency: 'USDT' },
  fees: { processing: '1.000000', technical: '1.348200' },
  eur: '230.00',
  usd: '250.00',
};

export const createCryptoPayoutExample = { amount: '250', currency: 'USDT', network: 'tron', address: 'TLa2f6VPqDgRE67v1736s7bJ8Ray5wYjU7', orderId: 'settlement-2025-06' };

export const PAYOUTS_DOCS: RouteDocs<typeof PAYOUTS_FUNCTIONS> = {
  'create-payout': {
    summary: 'Pay out crypto to one of your payout addresses',
    description:
      "Sends `amount` of `currency` on `network` from the gateway's treasury to `address`, which must be one of your `active` payout " +
      'addresses on that network (`GET /api/v2/payout-addresses`; they are added in the dashboard), else a 422 on `address`. The network ' +
      'must carry the currency, the amount keep its decimals and be at least its deposit minimum there. `Idempotency-Key` is required ' +
      '(400 without). The answer is the `withdraw` transaction with `network`, `address`, `transactionHash: null` and its `fees`: ' +
      "`processing`, the gateway's payout fee in the currency, and `technical`, the network fee estimated from the node now and charged " +
      'in the currency at the live rate. The amount and both fees are reserved from the available balance with the payout (more is a 402 ' +
      'and nothing is written); `orderId` is unique per merchant (409). A payout worth more USD than your `payoutApprovalAboveUsd` waits ' +
      'as `pending_approval` until an owner approves it in the dashboard (then `processing`) or rejects it (`failed`, the reserve ' +
      'released); nothing is signed before. The `withdraw` callback, with `network` and `transactionHash`, follows once its transaction ' +
      "has the network's confirmations; a transaction that fails on chain fails the payout, and releases the reserve less the network " +
      'fee it spent.',
    tag: 'Withdrawals',
    schemaName: 'CreatePayout',
    request: cryptoPayoutRequestSchema,
    requestExample: createCryptoPayoutExample,
    response: transactionViewSchema,
    responseExample: cryptoPayoutExample,
    success: 'The withdraw transaction, `processing`, or `pending_approval` when an owner must approve it',
    errors: {
      ...BODY_ERRORS,
      400: `${BODY_ERRORS[400]}; or the request has no \`Idempotency-Key\`, which a payout needs so that a retried request never pays twice`,
      402: 'The available balance in the currency is less than the amount and its fees (the message names what is available); nothing is written',
      409: `This orderId belongs to another withdrawal (\`db_unique_violation\`), or the balance kept changing; or: ${IDEMPOTENCY_CONFLICT}`,
      423: "Payouts are held while your books are under review: the books check found them off; nothing is written until the gateway's operator clears the hold",
      503: "The network's node did not quote the network fee; nothing is written, retry the request",
      ...AUTH_ERRORS,
    },
    callbacks: true,
  },
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
    summary: 'Simulate a withdrawal or refund outcome (demo only)',
    description:
      'Moves a processing withdrawal of the merchant to `confirmed` or `failed`, or a refund of a simulated deposit (one no chain or provider ' +
      "took), which nothing else settles; the `withdraw` or `refund` callback follows, and a confirmed refund adds to its invoice's `refundedAmount`.",
    tag: 'Simulation',
    schemaName: 'SimulateWithdrawal',
    request: simulateWithdrawalRequestSchema,
    requestExample: simulateWithdrawalExample,
    response: transactionViewSchema,
    responseExample: { ...withdrawalExample, status: 'confirmed' },
    success: 'The settled withdrawal or refund',
    errors: {
      ...BODY_ERRORS,
      404: 'No transaction of this merchant has this id',
      409: `The withdrawal already has the other outcome; or: ${IDEMPOTENCY_CONFLICT}`,
      ...AUTH_ERRORS,
    },
    notFound: 'Transaction',
    callbacks: true,
    invoiceEvents: true,
  },
  'list-payout-addresses': {
    summary: 'Payout addresses',
    description:
      'The addresses crypto payouts may go to, newest first, all in one answer (`items`, no pages: a merchant has a few, as `GET ' +
      '/api/v2/balances` answers its balances). They are added in the dashboard by an owner who confirms each with a fresh TOTP code, ' +
      "or by the gateway's operator; never through an API key. A new address is `pending` until `activatesAt` (its creation plus " +
      '`payoutAddressDelaySeconds` of the merchant settings), then `active`; removing one is immediate. Each address is kept in its ' +
      "network's canonical form: EIP-55 checksummed on EVM networks, lower case for bech32.",
    tag: 'Withdrawals',
    schemaName: 'ListPayoutAddresses',
    response: payoutAddressListSchema,
    responseExample: payoutAddressListExample,
    success: 'Every payout address of the merchant, newest first',
    errors: { ...AUTH_ERRORS },
  },
};
