import { httpHandler } from '../shared/http/handler.js';
import { routeByName } from '../shared/routes.js';
import { receiptSignerWith } from './commons/receipt-signer.js';
import { stageConfiguration } from './commons/stage-configuration.js';

const signer = receiptSignerWith(() => stageConfiguration.current().retiredReceiptKeys ?? []);

/** The receipt keys' public halves (RFC 7517): public, and cached a while by whoever reads them, as a rotation keeps the old key listed. */
export const handler = httpHandler(routeByName('get-jwks'), {}, async () => ({
  raw: JSON.stringify({ keys: await signer.publicKeys() }),
  contentType: 'application/jwk-set+json',
  headers: { 'cache-control': 'public, max-age=300' },
}));
