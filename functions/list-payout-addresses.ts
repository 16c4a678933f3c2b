import { httpHandler } from '../shared/http/handler.js';
import { routeByName } from '../shared/routes.js';
import { payoutAddresses } from './commons/payout-addresses.js';

export const handler = httpHandler(routeByName('list-payout-addresses'), {}, async ({ merchantId }) => ({
  data: await payoutAddresses.list(merchantId),
}));
