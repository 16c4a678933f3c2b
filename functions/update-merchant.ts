import { merchantSettingsRequestSchema } from '../shared/domain/merchants/index.js';
import { httpHandler } from '../shared/http/handler.js';
import { routeByName } from '../shared/routes.js';
import { merchantAccount } from './commons/merchant-account.js';

export const handler = httpHandler(routeByName('update-merchant'), { body: merchantSettingsRequestSchema }, async ({ body, merchantId }) => ({
  data: await merchantAccount.update(merchantId, body),
}));
