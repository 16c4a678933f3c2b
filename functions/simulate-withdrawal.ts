import { httpHandler } from '../shared/http/handler.js';
import { idempotentByHeader } from '../shared/http/idempotency.js';
import { simulateWithdrawalRequestSchema } from '../shared/domain/invoicing/index.js';
import { routeByName } from '../shared/routes.js';
import { transactionViews } from './commons/transaction-views.js';
import { transactionService } from './commons/transactions.js';

export const handler = httpHandler(routeByName('simulate-withdrawal'), { body: simulateWithdrawalRequestSchema, idempotency: idempotentByHeader }, async ({ body, merchantId }) => ({
  data: await transactionViews.present(
    await transactionService.settle(merchantId, body.transactionId, body.status, { expectedType: ['withdraw', 'refund'], details: { evidence: { source: 'simulation' } } }),
  ),
}));
