/** The OpenAPI description of the deposits' routes: confirmation by UTR, and the simulated deposit of the demo stage, with their examples (shared/routes/route-doc.ts). */
import * as z from 'zod';
import { CONFIRMATION_ACCEPTED, depositConfirmationRequestSchema, RECEIPT_MAX_SIZE_TEXT, simulateDepositRequestSchema } from '../domain/invoicing/index.js';
import { transactionViewSchema } from '../domain/transactions/index.js';
import { AUTH_ERRORS, BODY_ERRORS, IDEMPOTENCY_CONFLICT, type RouteDocs, EXAMPLE_IDS } from './route-doc.js';
import type { PAYMENTS_FUNCTIONS } from './payments.js';
import { transactionExample } from './transactions.docs.js';

export const simulateDepositExample = { invoiceId: EXAMPLE_IDS.invoiceId };

export const confirmDepositExample = { invoiceId: EXAMPLE_IDS.invoiceId, utr: '123456789012' };

export const PAYMENTS_DOCS: RouteDocs<typeof PAYMENTS_FUNCTIONS> = {
  'confirm-deposit': {
    summary: 'Confirm a deposit by UTR (host to host)',
    description:
      "Confirms a customer's INR payment with its unique transaction reference. No property beyond the schema's is accepted. " +
      'A `processing` deposit transaction exists from then on; the provider confirms it (invoice `completed`) or rejects it ' +
      '(transaction `failed`, invoice `canceled`), and the merchant gets the callback. The same invoice and UTR again is ' +
      'accepted again. A UTR already used by another invoice, of any merchant, is a 409 `db_unique_violation` (one the provider ' +
      'rejected is released for another invoice); a canceled ' +
      'invoice a 410; a completed one a 409; an invoice that is not INR a 422 on `invoiceId`. Receipts: base64, jpg, jpeg, ' +
      `png or pdf matching their content, at most ${RECEIPT_MAX_SIZE_TEXT} decoded (else 413).`,
    tag: 'Deposits',
    schemaName: 'ConfirmDeposit',
    request: depositConfirmationRequestSchema,
    requestExample: confirmDepositExample,
    response: z.literal(CONFIRMATION_ACCEPTED),
    responseExample: CONFIRMATION_ACCEPTED,
    success: 'The confirmation is accepted; the decision follows by callback',
    errors: {
      ...BODY_ERRORS,
      413: `The body is over this route's limit, or the receipt is over ${RECEIPT_MAX_SIZE_TEXT} decoded`,
      422: 'A field is missing or invalid, the invoice is not INR, or the receipt does not match its extension: `field` names it',
      404: 'No invoice of this merchant has this id',
      409: `The invoice is completed, or the UTR was used by another invoice (\`db_unique_violation\`); or: ${IDEMPOTENCY_CONFLICT}`,
      410: 'The invoice is canceled',
      ...AUTH_ERRORS,
    },
    notFound: 'Invoice',
    callbacks: true,
  },
  'simulate-deposit': {
    summary: 'Simulate a deposit (demo only)',
    description:
      "Creates a deposit on the merchant's own invoice: by default the invoice's payment amount and currency with status " +
      '`confirmed`; crypto deposits get a made-up transaction hash and the first network of the invoice. The callback follows. ' +
      'A canceled fiat invoice is a 410; a completed one a 409. A crypto deposit after cancellation is credited (`paidLate`).',
    tag: 'Simulation',
    schemaName: 'SimulateDeposit',
    request: simulateDepositRequestSchema,
    requestExample: simulateDepositExample,
    response: transactionViewSchema,
    responseExample: transactionExample,
    success: 'The deposit transaction',
    errors: {
      ...BODY_ERRORS,
      404: 'No invoice of this merchant has this id',
      409: `The fiat invoice is already paid, or it kept changing; or: ${IDEMPOTENCY_CONFLICT}`,
      410: 'The fiat invoice is canceled and takes no payment',
      ...AUTH_ERRORS,
    },
    notFound: 'Invoice',
    callbacks: true,
  },
};
