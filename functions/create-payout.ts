import { cryptoPayoutRequestSchema } from '../shared/domain/payouts/index.js';
import { httpHandler } from '../shared/http/handler.js';
import { idempotentByHeader } from '../shared/http/idempotency.js';
import { logger } from '../shared/observability/logger.js';
import { routeByName } from '../shared/routes.js';
import { cryptoPayoutService } from './commons/payouts.js';
import { transactionViews } from './commons/transaction-views.js';

const payouts = cryptoPayoutService();

export const handler = httpHandler(routeByName('create-payout'), { body: cryptoPayoutRequestSchema, idempotency: idempotentByHeader }, async ({ body, merchantId }) => {
  const payout = await payouts.create(merchantId, body);
  logger.info('Crypto payout accepted', { transactionId: payout.id, merchantId, network: payout.network, status: payout.status });
  return { data: await transactionViews.present(payout) };
});
