import { config } from '../shared/config.js';
import { httpHandler } from '../shared/http/handler.js';
import { buildOpenApiDocument } from '../shared/openapi.js';
import { routeByName } from '../shared/routes.js';

const document = buildOpenApiDocument(config().publicBaseUrl, config().stage);

export const handler = httpHandler(routeByName('get-openapi'), {}, async () => ({
  raw: JSON.stringify(document),
  contentType: 'application/json; charset=utf-8',
  headers: { 'cache-control': 'public, max-age=300' },
}));
