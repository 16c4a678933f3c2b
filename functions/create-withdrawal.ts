import { withMaskedCard, withdrawalRequestSchema } from '../shared/domain/withdrawals.js';
import { httpHandler } from '../shared/http/handler.js';
import { logger } from '../shared/http/logger.js';
import { routeByName } from '../shared/routes.js';
import { fiatService } from './commons/fiat.js';
import { transactionViews } from './commons/transaction-views.js';

export const handler = httpHandler(routeByName('create-withdrawal'), { body: withdrawalRequestSchema, idempotencyFingerprint: withMaskedCard }, async ({ body, merchantId }) => {
  const withdrawal = await fiatService.createWithdrawal(merchantId, body);
  logger.info('Withdrawal accepted', { transactionId: withdrawal.id, merchantId });
  return { data: await transactionViews.present(withdrawal) };
});
