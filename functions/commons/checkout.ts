/** The hosted checkout of this container: its service and what its routes answer besides pages (checkout-pages.ts), wired once at load. */
import { chooseLanguage, type LanguageChoice } from '../../shared/checkout/language.js';
import { config } from '../../shared/config.js';
import { CheckoutService, type CheckoutServiceDeps } from '../../shared/domain/payments/index.js';
import { checkoutUrl } from '../../shared/checkout-page.js';
import type { RouteRequest, RouteResult } from '../../shared/http/handler.js';
import type { HttpRouteName } from '../../shared/routes.js';
import { documentClient } from '../../shared/store/dynamo.js';
import { DynamoInvoiceStore } from '../../shared/store/invoices.js';
import { DynamoMerchantStore } from '../../shared/store/merchants.js';
import { DynamoTransactionStore } from '../../shared/store/transactions.js';

const { tables, publicBaseUrl } = config();

/** The checkout; with the providers (`usesProviders` functions) for its payment step too. */
export const checkoutServiceWith = (providers?: CheckoutServiceDeps['providers']): CheckoutService =>
  new CheckoutService({
    invoices: new DynamoInvoiceStore(documentClient, tables),
    merchants: new DynamoMerchantStore(documentClient, tables),
    claims: new DynamoTransactionStore(documentClient, tables),
    providers,
    clock: () => new Date(),
  });

export const checkoutService = checkoutServiceWith();

/** The customer's language: `?lang=`, else `Accept-Language`, else English. */
export const languageOf = ({ queryParameters, headers }: Pick<RouteRequest<unknown>, 'queryParameters' | 'headers'>): LanguageChoice => chooseLanguage(queryParameters.lang, headers['accept-language']);

/** Where a checkout route of the invoice is, on the public origin, keeping a language chosen in the URL. */
export const urlOf = (route: HttpRouteName, invoiceId: string, language: LanguageChoice, query: Record<string, string> = {}): string => checkoutUrl({ publicBaseUrl, language }, route, invoiceId, query);

/** After a form, or to the step the invoice is at: the browser follows with a GET. */
export const seeOther = (location: string): RouteResult => ({
  status: 303,
  raw: '',
  contentType: 'text/plain; charset=utf-8',
  headers: { location, 'cache-control': 'no-store' },
});
