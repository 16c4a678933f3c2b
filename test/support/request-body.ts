import { parseJsonBody } from '../../shared/http/json-body.js';

/** Fields as a route's schema receives them: sent as JSON and read by the gateway's body parser. */
export const asRequestBody = (fields: Record<string, unknown>): unknown => parseJsonBody(JSON.stringify(fields));
