import { CONFIRMATION_ACCEPTED, depositConfirmationRequestSchema } from '../shared/domain/deposit-confirmation.js';
import { httpHandler } from '../shared/http/handler.js';
import { routeByName } from '../shared/routes.js';
import { fiatService } from './commons/fiat.js';

export const handler = httpHandler(routeByName('confirm-deposit'), { body: depositConfirmationRequestSchema }, async ({ body, merchantId }) => {
  await fiatService.confirmDeposit(merchantId, body);
  return { data: CONFIRMATION_ACCEPTED };
});
