import { config } from '../shared/config.js';
import { httpHandler } from '../shared/http/handler.js';
import { routeByName } from '../shared/routes.js';
import { merchantAccount } from './commons/merchant-account.js';
import { requireVault } from './commons/vault.js';

const { secretOverlapSeconds } = config();
const { callbackSecrets } = requireVault();

// Not replayed by Idempotency-Key (`answersSecret`): a replay would need the new secret kept in clear.
export const handler = httpHandler(routeByName('rotate-callback-secret'), {}, async ({ merchantId }) => ({
  data: await merchantAccount.rotateCallbackSecret(merchantId, callbackSecrets, secretOverlapSeconds),
}));
