import { refundRequestSchema } from '../shared/domain/transactions/index.js';
import { httpHandler } from '../shared/http/handler.js';
import { idempotentByHeader } from '../shared/http/idempotency.js';
import { logger } from '../shared/observability/logger.js';
import { routeByName } from '../shared/routes.js';
import { refundService } from './commons/refunds.js';
import { transactionViews } from './commons/transaction-views.js';

const refunds = refundService();

export const handler = httpHandler(routeByName('create-refund'), { body: refundRequestSchema, idempotency: idempotentByHeader }, async ({ body, merchantId }) => {
  const refund = await refunds.create(merchantId, body);
  logger.info('Refund accepted', { transactionId: refund.id, refundOf: refund.refundOf, merchantId, network: refund.network, status: refund.status });
  return { data: await transactionViews.present(refund) };
});
