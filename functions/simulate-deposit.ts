import { IDEMPOTENCY_HEADER, httpHandler } from '../shared/http/handler.js';
import { idempotentByHeader } from '../shared/http/idempotency.js';
import { idempotentWriteClaimId } from '../shared/domain/chains/index.js';
import { simulateDepositRequestSchema, simulatedChainHash, simulatedSenderDetails } from '../shared/domain/invoicing/index.js';
import { routeByName } from '../shared/routes.js';
import { transactionViews } from './commons/transaction-views.js';
import { transactionService } from './commons/transactions.js';

const route = routeByName('simulate-deposit');

export const handler = httpHandler(route, { body: simulateDepositRequestSchema, idempotency: idempotentByHeader }, async ({ body, merchantId, headers }) => {
  const invoice = await transactionService.ownedInvoice(merchantId, body.invoiceId);
  const network = invoice.family === 'crypto' ? (body.network ?? invoice.wallet?.networks[0]) : body.network;
  const deposit = await transactionService.recordDeposit(
    merchantId,
    invoice.id,
    {
      source: 'simulated',
      amount: body.amount,
      currency: body.currency,
      network,
      status: body.status ?? 'confirmed',
      transactionHash: network && invoice.family === 'crypto' ? simulatedChainHash(network) : null,
      senderDetails: simulatedSenderDetails(invoice),
      evidence: { source: 'simulation' },
      // A retry with the key after a crash finds the deposit the first attempt recorded.
      uniqueId: headers[IDEMPOTENCY_HEADER] === undefined ? undefined : idempotentWriteClaimId(merchantId, route.name, headers[IDEMPOTENCY_HEADER]),
    },
    invoice,
  );
  return { data: await transactionViews.present(deposit) };
});
