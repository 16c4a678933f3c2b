import { listBalanceEntriesQuerySchema } from '../shared/domain/ledger/index.js';
import { httpHandler } from '../shared/http/handler.js';
import { parseOrThrow } from '../shared/http/validation.js';
import { routeByName } from '../shared/routes.js';
import { balanceService } from './commons/balances.js';

export const handler = httpHandler(routeByName('list-balance-entries'), {}, async ({ queryParameters, merchantId }) => ({
  data: await balanceService.entries(merchantId, parseOrThrow(listBalanceEntriesQuerySchema, queryParameters)),
}));
