import { config } from '../shared/config.js';
import { offeredNetworks } from '../shared/domain/chains/index.js';
import { httpHandler } from '../shared/http/handler.js';
import { buildOpenApiDocument } from '../shared/openapi.js';
import { routeByName } from '../shared/routes.js';

const { publicBaseUrl, stage, watchedNetworks } = config();
const document = buildOpenApiDocument(publicBaseUrl, stage, offeredNetworks(stage, watchedNetworks));

export const handler = httpHandler(routeByName('get-openapi'), {}, async () => ({
  raw: JSON.stringify(document),
  contentType: 'application/json; charset=utf-8',
  headers: { 'cache-control': 'public, max-age=300' },
}));
