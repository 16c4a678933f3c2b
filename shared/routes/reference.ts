/** The reference's functions: the OpenAPI document and its readable page. */
import { BOTH, type GatewayFunction } from './function-definition.js';

export const REFERENCE_FUNCTIONS = [
  {
    kind: 'http',
    name: 'get-openapi',
    method: 'GET',
    path: '/api/v2/openapi.json',
    auth: 'none',
    stages: BOTH,
    tables: {},
  },
  {
    kind: 'http',
    name: 'get-docs',
    method: 'GET',
    path: '/docs',
    auth: 'none',
    stages: BOTH,
    describesProviders: true,
    tables: {},
  },
] as const satisfies readonly GatewayFunction[];
