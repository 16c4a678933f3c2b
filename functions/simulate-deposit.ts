import { httpHandler } from '../shared/http/handler.js';
import { idempotentByHeader } from '../shared/http/idempotency.js';
import { simulateDepositRequestSchema, simulatedChainHash, simulatedSenderDetails } from '../shared/domain/simulation.js';
import { routeByName } from '../shared/routes.js';
import { transactionViews } from './commons/transaction-views.js';
import { transactionService } from './commons/transactions.js';

export const handler = httpHandler(routeByName('simulate-deposit'), { body: simulateDepositRequestSchema, idempotency: idempotentByHeader }, async ({ body, merchantId }) => {
  const invoice = await transactionService.ownedInvoice(merchantId, body.invoiceId);
  const network = invoice.family === 'crypto' ? (body.network ?? invoice.wallet?.networks[0]) : body.network;
  const deposit = await transactionService.recordDeposit(merchantId, invoice.id, {
    source: 'simulated',
    amount: body.amount,
    currency: body.currency,
    network,
    status: body.status,
    transactionHash: network && invoice.family === 'crypto' ? simulatedChainHash(network) : null,
    senderDetails: simulatedSenderDetails(invoice),
  });
  return { data: await transactionViews.present(deposit) };
});
