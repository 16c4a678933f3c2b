import { httpHandler } from '../shared/http/handler.js';
import { routeByName } from '../shared/routes.js';
import { providerSettlement } from './commons/provider-settlement.js';

/**
 * A payment provider's decision (docs/provider-protocol.md#signatures): the provider's signature over the exact body is
 * checked before anything else is read; a replay changes nothing and is answered as the first.
 */
export const handler = httpHandler(routeByName('receive-provider-event'), {}, async ({ pathParameters, headers, rawBody }) => {
  await providerSettlement.receive(pathParameters.providerId ?? '', headers, rawBody);
  return { data: { received: true } };
});
