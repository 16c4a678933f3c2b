import { httpHandler } from '../shared/http/handler.js';
import { routeByName } from '../shared/routes.js';
import { balanceService } from './commons/balances.js';

export const handler = httpHandler(routeByName('list-balances'), {}, async ({ merchantId }) => ({
  data: await balanceService.view(merchantId),
}));
