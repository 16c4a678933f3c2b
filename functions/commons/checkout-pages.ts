/**
 * The hosted checkout's pages as its routes answer them: their payment links name the tokens and
 * chains of the stage's configuration as it stands (docs/operations.md#stage-configuration).
 */
import type { RenderedPage } from '../../shared/checkout/document.js';
import type { LanguageChoice } from '../../shared/checkout/language.js';
import { renderCheckoutPage, renderNotFoundPage, type CheckoutPage } from '../../shared/checkout-page.js';
import { config } from '../../shared/config.js';
import type { Checkout } from '../../shared/domain/payments/index.js';
import type { RouteResult } from '../../shared/http/handler.js';
import { stageConfiguration } from './stage-configuration.js';

const { publicBaseUrl, stage } = config();

const htmlResult = (page: RenderedPage): RouteResult => ({
  status: page.status,
  raw: page.html,
  contentType: 'text/html; charset=utf-8',
  headers: page.headers,
});

export const checkoutPage = async (checkout: Checkout, page: CheckoutPage, language: LanguageChoice): Promise<RouteResult> =>
  htmlResult(await renderCheckoutPage(checkout, page, { publicBaseUrl, stage, chains: stageConfiguration.current().chains, language }));

export const notFoundPage = (invoiceId: string, language: LanguageChoice): RouteResult =>
  htmlResult(renderNotFoundPage({ publicBaseUrl, stage, chains: stageConfiguration.current().chains, language }, invoiceId));
