import { config } from '../shared/config.js';
import { dashboardUrl } from '../shared/dashboard/document.js';
import { httpHandler } from '../shared/http/handler.js';
import { routeByName } from '../shared/routes.js';
import { chooseLanguage } from '../shared/checkout/language.js';

const { publicBaseUrl } = config();

/** `/dashboard`: on to the overview, which asks for a sign-in when there is no session. */
export const handler = httpHandler(routeByName('open-dashboard'), {}, async ({ queryParameters, headers }) => ({
  status: 303,
  raw: '',
  contentType: 'text/plain; charset=utf-8',
  headers: { location: dashboardUrl({ publicBaseUrl, language: chooseLanguage(queryParameters.lang, headers['accept-language']) }, 'overview'), 'cache-control': 'no-store' },
}));
