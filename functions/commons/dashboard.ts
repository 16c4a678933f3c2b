/**
 * The dashboard of this container (docs/merchant-guide.md#dashboard): its access (users,
 * invitations, sessions, audit) and the API's own services it reads through, wired once at load.
 * Each of its functions gives what only it does: the page function links to reports, the form
 * function asks for reports, payouts and refunds, the receipt download signs receipts.
 */
import { config } from '../../shared/config.js';
import { Dashboard, type DashboardRequest } from '../../shared/dashboard/dashboard.js';
import type { DashboardServices } from '../../shared/dashboard/page.js';
import type { DashboardAccess } from '../../shared/domain/dashboard/index.js';
import type { NetworkExplorers } from '../../shared/domain/chains/index.js';
import { stillRefundable } from '../../shared/domain/payments/index.js';
import type { RouteRequest, RouteResult } from '../../shared/http/handler.js';
import { dynamoDashboardAccess } from '../../shared/store/dashboard-access.js';
import { documentClient } from '../../shared/store/dynamo.js';
import { callbackLog } from './callback-log.js';
import { balanceService } from './balances.js';
import { languageOf } from './checkout.js';
import { invoiceServiceWith } from './invoices.js';
import { merchantAccount } from './merchant-account.js';
import { payoutAddresses } from './payout-addresses.js';
import { transactionViews } from './transaction-views.js';
import { requireVault } from './vault.js';
import { transactionStore } from './stores.js';

const { tables, stage, publicBaseUrl, secretOverlapSeconds } = config();
const { dataKeys, callbackSecrets } = requireVault();

const dashboardAccess = dynamoDashboardAccess(documentClient, tables, dataKeys);

/**
 * A service another of the dashboard's functions gives (asking for a payout or a refund is a form,
 * signing a receipt is the receipt download's): here every call is refused, as this function's
 * grants would refuse it.
 */
function servedElsewhere<T extends object>(what: string): T {
  return new Proxy({} as T, {
    get: (_target, name) => (name === 'then' ? undefined : () => Promise.reject(new Error(`${what} is served by another of the dashboard's functions`))),
  });
}

/** The dashboard with what this function gives of its parts that only some functions do; the rest are refused. */
export function dashboardWith(
  parts: Partial<Pick<DashboardServices, 'reports' | 'keys' | 'totals' | 'payouts' | 'receipts'>> & {
    createRefund?: DashboardServices['refunds']['create'];
    /** The stage's block explorers, for the functions that draw pages (`drawsDashboardPages`); the receipt download draws none. */
    explorers?: () => NetworkExplorers;
  },
): Dashboard {
  const invoices = invoiceServiceWith();
  const services: DashboardServices = {
    access: dashboardAccess as DashboardAccess<unknown>,
    account: {
      view: (merchantId) => merchantAccount.view(merchantId),
      update: (merchantId, request) => merchantAccount.update(merchantId, request),
      rotateCallbackSecret: (merchantId) => merchantAccount.rotateCallbackSecret(merchantId, callbackSecrets, secretOverlapSeconds),
      secretOverlapSeconds,
    },
    invoices: { list: (merchantId, query) => invoices.list(merchantId, query), get: (merchantId, id) => invoices.get(merchantId, id) },
    transactions: transactionViews,
    receipts: parts.receipts ?? servedElsewhere('Signing receipts'),
    callbacks: callbackLog,
    balances: balanceService,
    reports: parts.reports ?? servedElsewhere('Reports'),
    totals: parts.totals ?? servedElsewhere('Daily totals'),
    payoutAddresses,
    payouts: parts.payouts ?? servedElsewhere('Asking for payouts'),
    refunds: {
      refundable: (merchantId, transactionId) => stillRefundable(transactionStore, merchantId, transactionId),
      create: parts.createRefund ?? servedElsewhere<{ create: DashboardServices['refunds']['create'] }>('Asking for refunds').create,
    },
    keys: parts.keys ?? servedElsewhere('API keys'),
    clock: () => new Date(),
  };
  const explorers =
    parts.explorers ??
    (() => {
      throw new Error("Block explorers are read by the dashboard's functions that draw pages");
    });
  return new Dashboard(services, { stage, publicBaseUrl, explorers });
}

/** A request of the gateway's as the dashboard's: the path under `/dashboard/`, the form, the language. */
export function dashboardRequest(method: DashboardRequest['method'], request: RouteRequest<Record<string, string> | undefined>): DashboardRequest {
  return {
    method,
    page: request.pathParameters.page ?? '',
    query: request.queryParameters,
    form: request.body ?? {},
    headers: request.headers,
    language: languageOf(request),
  };
}

/** The dashboard's answer as the gateway's: a page, a 303 to the next one, or a file to keep. */
export async function servePage(dashboard: Dashboard, request: DashboardRequest): Promise<RouteResult> {
  const answer = await dashboard.serve(request);
  if (answer.kind === 'file') {
    return { status: 200, raw: answer.body, contentType: answer.contentType, headers: { 'content-disposition': `attachment; filename="${answer.name}"`, 'cache-control': 'no-store' } };
  }
  if (answer.kind === 'redirect') {
    return { status: 303, raw: '', contentType: 'text/plain; charset=utf-8', headers: { location: answer.location, 'cache-control': 'no-store', ...answer.headers } };
  }
  return { status: answer.page.status, raw: answer.page.html, contentType: 'text/html; charset=utf-8', headers: answer.page.headers };
}
