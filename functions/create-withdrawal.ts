import { withMaskedCard, withdrawalRequestSchema } from '../shared/domain/transactions/index.js';
import { httpHandler } from '../shared/http/handler.js';
import { idempotentByHeader } from '../shared/http/idempotency.js';
import { logger } from '../shared/observability/logger.js';
import { routeByName } from '../shared/routes.js';
import { fiatServiceWith } from './commons/fiat.js';
import { transactionViews } from './commons/transaction-views.js';

/** Paying out stores no receipt. */
const fiatService = fiatServiceWith();

export const handler = httpHandler(
  routeByName('create-withdrawal'),
  { body: withdrawalRequestSchema, idempotencyFingerprint: withMaskedCard, idempotency: idempotentByHeader },
  async ({ body, merchantId }) => {
    const withdrawal = await fiatService.createWithdrawal(merchantId, body);
    logger.info('Withdrawal accepted', { transactionId: withdrawal.id, merchantId });
    return { data: await transactionViews.present(withdrawal) };
  },
);
