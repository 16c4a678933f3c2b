import { CONFIRMATION_ACCEPTED, depositConfirmationRequestSchema } from '../shared/domain/invoicing/index.js';
import { httpHandler } from '../shared/http/handler.js';
import { idempotentByHeader } from '../shared/http/idempotency.js';
import { routeByName } from '../shared/routes.js';
import { fiatServiceWith } from './commons/fiat.js';
import { receiptStore } from './commons/receipts.js';

const fiatService = fiatServiceWith(receiptStore);

export const handler = httpHandler(routeByName('confirm-deposit'), { body: depositConfirmationRequestSchema, idempotency: idempotentByHeader }, async ({ body, merchantId }) => {
  await fiatService.confirmDeposit(merchantId, body);
  return { data: CONFIRMATION_ACCEPTED };
});
