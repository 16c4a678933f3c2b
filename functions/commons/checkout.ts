/** The hosted checkout of this container: its service and its page responses, wired once at load. */
import { config } from '../../shared/config.js';
import { CheckoutService, type Checkout } from '../../shared/domain/checkout-service.js';
import { checkoutUrl, renderCheckoutPage, renderNotFoundPage, type CheckoutPage, type RenderedPage } from '../../shared/checkout-page.js';
import type { RouteResult } from '../../shared/http/handler.js';
import type { HttpRouteName } from '../../shared/routes.js';
import { documentClient } from '../../shared/store/dynamo.js';
import { DynamoInvoiceStore } from '../../shared/store/invoices.js';
import { DynamoMerchantStore } from '../../shared/store/merchants.js';
import { DynamoTransactionStore } from '../../shared/store/transactions.js';

const { tables, publicBaseUrl } = config();

export const checkoutService = new CheckoutService({
  invoices: new DynamoInvoiceStore(documentClient, tables),
  merchants: new DynamoMerchantStore(documentClient, tables),
  claims: new DynamoTransactionStore(documentClient, tables),
  clock: () => new Date(),
});

/** Where a checkout route of the invoice is, on the public origin. */
export const urlOf = (route: HttpRouteName, invoiceId: string): string => checkoutUrl(publicBaseUrl, route, invoiceId);

const htmlResult = (page: RenderedPage): RouteResult => ({
  status: page.status,
  raw: page.html,
  contentType: 'text/html; charset=utf-8',
  headers: page.headers,
});

export const checkoutPage = async (checkout: Checkout, page: CheckoutPage): Promise<RouteResult> =>
  htmlResult(await renderCheckoutPage(checkout, page, publicBaseUrl));

export const notFoundPage = (): RouteResult => htmlResult(renderNotFoundPage());

/** After a form, or to the step the invoice is at: the browser follows with a GET. */
export const seeOther = (location: string): RouteResult => ({
  status: 303,
  raw: '',
  contentType: 'text/plain; charset=utf-8',
  headers: { location, 'cache-control': 'no-store' },
});
