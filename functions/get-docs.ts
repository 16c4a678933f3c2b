import { config, type StageConfiguration } from '../shared/config.js';
import { offeredNetworks } from '../shared/domain/chains/index.js';
import { renderDocsPage } from '../shared/docs-page.js';
import { httpHandler } from '../shared/http/handler.js';
import { buildOpenApiDocument } from '../shared/openapi.js';
import { routeByName } from '../shared/routes.js';
import { stageConfiguration } from './commons/stage-configuration.js';

const { publicBaseUrl, stage, watchedNetworks } = config();
const document = buildOpenApiDocument(publicBaseUrl, stage, offeredNetworks(stage, watchedNetworks));
/** The page, drawn again when the stage's configuration changes. */
let drawn: { for: StageConfiguration; page: string } | undefined;

/** The limits of this environment's providers, as its invoices apply them (the demo provider: INR from 500, no intent). */
function page(): string {
  const configuration = stageConfiguration.current();
  if (drawn?.for !== configuration) drawn = { for: configuration, page: renderDocsPage(document, configuration.providers) };
  return drawn.page;
}

export const handler = httpHandler(routeByName('get-docs'), {}, async () => ({
  raw: page(),
  contentType: 'text/html; charset=utf-8',
  headers: { 'cache-control': 'public, max-age=300', 'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'" },
}));
