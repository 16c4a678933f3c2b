import { config } from '../shared/config.js';
import { offeredNetworks } from '../shared/domain/networks.js';
import { renderDocsPage } from '../shared/docs-page.js';
import { httpHandler } from '../shared/http/handler.js';
import { buildOpenApiDocument } from '../shared/openapi.js';
import { routeByName } from '../shared/routes.js';

const { publicBaseUrl, stage, providers, chains } = config();
// The limits of this environment's providers, as its invoices apply them (the demo provider: INR from 500, no intent).
const page = renderDocsPage(buildOpenApiDocument(publicBaseUrl, stage, offeredNetworks(stage, chains)), providers);

export const handler = httpHandler(routeByName('get-docs'), {}, async () => ({
  raw: page,
  contentType: 'text/html; charset=utf-8',
  headers: { 'cache-control': 'public, max-age=300', 'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'" },
}));
