/**
 * The dashboard of this container (docs/merchant-guide.md#dashboard): its access (users,
 * invitations, sessions, audit) and the API's own services it reads through, wired once at load.
 * Each of its two functions gives what only it does of reports: asking for them, or links to them.
 */
import { config } from '../../shared/config.js';
import { Dashboard, type DashboardRequest } from '../../shared/dashboard/dashboard.js';
import type { DashboardServices } from '../../shared/dashboard/page.js';
import type { DashboardAccess } from '../../shared/domain/dashboard/index.js';
import { stillRefundable } from '../../shared/domain/payments/index.js';
import type { ReportService } from '../../shared/domain/ledger/index.js';
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

const { tables, stage, publicBaseUrl, explorers, secretOverlapSeconds } = config();
const { dataKeys, callbackSecrets } = requireVault();

const dashboardAccess = dynamoDashboardAccess(documentClient, tables, dataKeys);

/** What the page function has of payouts: nothing, for it only reads them; asking for, quoting and deciding one are forms. */
const READS_PAYOUTS_ONLY: DashboardServices['payouts'] = {
  quote: () => Promise.reject(new Error('Payouts are quoted by the dashboard form function only')),
  create: () => Promise.reject(new Error('Payouts are asked for by the dashboard form function only')),
  decide: () => Promise.reject(new Error('Payouts are decided by the dashboard form function only')),
};

/** What the form function has of receipts: nothing, for only the page function signs them. */
const SIGNS_NO_RECEIPTS: DashboardServices['receipts'] = { receipt: () => Promise.reject(new Error('Receipts are signed by the dashboard page function only')) };

/** What the page function has of asking for a refund: nothing, for that is a form. */
const ASKS_NO_REFUNDS: DashboardServices['refunds']['create'] = () => Promise.reject(new Error('Refunds are asked for by the dashboard form function only'));

export function dashboardWith(parts: {
  reports: ReportService;
  keys: DashboardServices['keys'];
  totals: DashboardServices['totals'];
  payouts?: DashboardServices['payouts'];
  createRefund?: DashboardServices['refunds']['create'];
  receipts?: DashboardServices['receipts'];
}): Dashboard {
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
    receipts: parts.receipts ?? SIGNS_NO_RECEIPTS,
    callbacks: callbackLog,
    balances: balanceService,
    reports: parts.reports,
    totals: parts.totals,
    payoutAddresses,
    payouts: parts.payouts ?? READS_PAYOUTS_ONLY,
    refunds: { refundable: (merchantId, transactionId) => stillRefundable(transactionStore, merchantId, transactionId), create: parts.createRefund ?? ASKS_NO_REFUNDS },
    keys: parts.keys,
    clock: () => new Date(),
  };
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
