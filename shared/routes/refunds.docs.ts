/** The OpenAPI description of the refunds' route, with its examples (shared/routes/route-doc.ts). */
import { refundRequestSchema, transactionViewSchema, type TransactionView } from '../domain/transactions/index.js';
import { AUTH_ERRORS, BODY_ERRORS, EXAMPLE_IDS, IDEMPOTENCY_CONFLICT, type RouteDocs } from './route-doc.js';
import type { REFUNDS_FUNCTIONS } from './refunds.js';
import { transactionExample } from './transactions.docs.js';

export const createRefundExample = { transactionId: EXAMPLE_IDS.transactionId, amount: '10', address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', reason: 'Order 1001 canceled' };

export const refundExample: TransactionView = {
  ...transactionExample,
  id: EXAMPLE_IDS.refundId,
  type: 'refund',
  status: 'processing',
  amount: '10.000000',
  transactionHash: null,
  address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
  refundOf: EXAMPLE_IDS.transactionId,
  info: { ...transactionExample.info, referenceAmount: '10.000000', transactionAmount: '10.000000' },
  fees: { processing: '0.000000', technical: '0.412300' },
  eur: '9.26',
  usd: '10.00',
};

export const REFUNDS_DOCS: RouteDocs<typeof REFUNDS_FUNCTIONS> = {
  'create-refund': {
    summary: 'Refund a confirmed deposit, whole or in part',
    description:
      "Gives `amount` of a `confirmed` deposit (`transactionId`) back to the customer, in the deposit's currency; without `amount`, what of " +
      'it is still refundable: its amount less its earlier refunds that are not `failed`. A deposit may be refunded several times, up to ' +
      "what it brought; more is a 422 on `amount`. A crypto deposit is refunded on its own network to `address`, the customer's " +
      "(required, checked for the network), from the gateway's treasury as a payout is, with the same approval rule: worth more USD than " +
      'your `payoutApprovalAboveUsd`, it waits as `pending_approval` for an owner. A local-fiat deposit is refunded by the provider that ' +
      'took it, and takes no `address`. The amount and its `fees` (`technical`: the network fee of a crypto refund, in the currency at ' +
      'the live rate; the processing fee of the deposit is not returned) are reserved from the available balance with the refund (more is ' +
      'a 402 and nothing is written). `Idempotency-Key` is required (400 without). The answer is the `refund` transaction with `refundOf`, ' +
      'the deposit\'s id; its callback (`type: "refund"`) follows when it is `confirmed` or `failed`, and a confirmed refund adds to the ' +
      "invoice's `refundedAmount` (and announces `invoice.refunded` to a merchant that takes invoice events).",
    tag: 'Refunds',
    schemaName: 'CreateRefund',
    request: refundRequestSchema,
    requestExample: createRefundExample,
    response: transactionViewSchema,
    responseExample: refundExample,
    success: 'The refund transaction, `processing`, or `pending_approval` when an owner must approve it',
    errors: {
      ...BODY_ERRORS,
      400: `${BODY_ERRORS[400]}; or the request has no \`Idempotency-Key\`, which a refund needs so that a retried request never refunds twice`,
      402: 'The available balance in the currency is less than the amount and its fees (the message names what is available); nothing is written',
      404: "The deposit is not one of yours (another merchant's, unknown, or not a UUID)",
      409: `The deposit's refunds or the balance kept changing; or: ${IDEMPOTENCY_CONFLICT}`,
      422: `${BODY_ERRORS[422]}; or \`transactionId\` is no confirmed deposit (a withdrawal, a refund, a deposit still processing or failed), or its provider does not refund; or \`amount\` is more than is still refundable`,
      423: "Payouts and refunds are held while your books are under review: nothing is written until the gateway's operator clears the hold",
      503: "The network's node did not quote the network fee; nothing is written, retry the request",
      ...AUTH_ERRORS,
    },
    notFound: 'Transaction',
    callbacks: true,
    invoiceEvents: true,
  },
};
