import { httpHandler } from '../shared/http/handler.js';
import { routeByName } from '../shared/routes.js';
import { merchantAccount } from './commons/merchant-account.js';

export const handler = httpHandler(routeByName('get-merchant'), {}, async ({ merchantId }) => ({
  data: await merchantAccount.view(merchantId),
}));
