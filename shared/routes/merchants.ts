/** The merchants' functions: the API key authorizer, and a merchant's own settings and callback secret (docs/merchant-guide.md#merchant-settings). */
import { BOTH, type GatewayFunction } from './function-definition.js';

export const MERCHANTS_FUNCTIONS = [
  {
    kind: 'authorizer',
    name: 'authorize-merchant',
    stages: BOTH,
    // Reads the key by its digest; records its last use, at most once an hour (a conditional update).
    tables: { apiKeys: ['GetItem', 'UpdateItem'] },
  },
  {
    kind: 'http',
    name: 'get-merchant',
    method: 'GET',
    path: '/api/v2/merchant',
    auth: 'apiKey',
    scope: 'read',
    stages: BOTH,
    tables: { merchants: ['GetItem'] },
  },
  {
    kind: 'http',
    name: 'update-merchant',
    method: 'PATCH',
    path: '/api/v2/merchant',
    auth: 'apiKey',
    scope: 'settings',
    stages: BOTH,
    tables: { merchants: ['GetItem', 'UpdateItem'] },
  },
  {
    kind: 'http',
    name: 'rotate-callback-secret',
    method: 'POST',
    path: '/api/v2/merchant/callback-secret/rotate',
    auth: 'apiKey',
    scope: 'settings',
    stages: BOTH,
    // Seals the new secret; the old one moves, still sealed, beside it.
    sealsCallbackSecrets: true,
    answersSecret: true,
    tables: { merchants: ['GetItem', 'UpdateItem'] },
  },
] as const satisfies readonly GatewayFunction[];
