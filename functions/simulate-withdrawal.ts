import { httpHandler } from '../shared/http/handler.js';
import { simulateWithdrawalRequestSchema } from '../shared/domain/simulation.js';
import { routeByName } from '../shared/routes.js';
import { transactionService } from './commons/transactions.js';

export const handler = httpHandler(routeByName('simulate-withdrawal'), { body: simulateWithdrawalRequestSchema }, async ({ body, merchantId }) => ({
  data: await transactionService.settle(merchantId, body.transactionId, body.status, 'withdraw'),
}));
