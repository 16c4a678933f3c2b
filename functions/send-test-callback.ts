import { randomUUID } from 'node:crypto';
import { config } from '../shared/config.js';
import { sendTestCallback } from '../shared/domain/payments/index.js';
import { httpHandler } from '../shared/http/handler.js';
import { idempotentByHeader } from '../shared/http/idempotency.js';
import { httpDeliver } from '../shared/outbound/http-delivery.js';
import { routeByName } from '../shared/routes.js';
import { merchantStore } from './commons/merchants.js';
import { requireVault } from './commons/vault.js';

const { callbackGuard } = config();

const deps = {
  merchants: merchantStore,
  secrets: requireVault().callbackSecrets,
  // Deployed stages never call loopback, private or link-local addresses (docs/merchant-guide.md#callbacks).
  deliver: httpDeliver({ guard: callbackGuard }),
  clock: () => new Date(),
  newId: randomUUID,
};

export const handler = httpHandler(routeByName('send-test-callback'), { idempotency: idempotentByHeader }, async ({ merchantId }) => ({
  data: await sendTestCallback(deps, merchantId),
}));
