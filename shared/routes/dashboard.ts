/** The dashboard's functions: its pages and forms, for people (docs/merchant-guide.md#the-dashboard). */
import { BOTH, LIVE_PRICES, POSTS_TO_BALANCES, type GatewayFunction } from './function-definition.js';

export const DASHBOARD_FUNCTIONS = [
  {
    kind: 'http',
    name: 'open-dashboard',
    method: 'GET',
    path: '/dashboard',
    auth: 'none',
    stages: BOTH,
    // Sends the browser on to the overview, which asks for a sign-in when there is no session.
    tables: {},
  },
  {
    kind: 'http',
    name: 'get-dashboard-page',
    method: 'GET',
    path: '/dashboard/{page+}',
    auth: 'none',
    stages: BOTH,
    // Every page reads through the API's own services (docs/merchant-guide.md#dashboard); the
    // session is checked and its idle limit moved on at each page, in the function.
    opensCallbackSecrets: true,
    drawsDashboardPages: true,
    reportFiles: 'links',
    tables: {
      dashboardSessions: ['GetItem', 'UpdateItem'],
      dashboardUsers: ['GetItem'],
      dashboardInvitations: ['GetItem'],
      merchants: ['GetItem'],
      apiKeys: ['GetItem'],
      invoices: ['GetItem'],
      // The invoices' orderId filter looks the order up through its uniqueness claim, as list-invoices does.
      uniques: ['GetItem'],
      transactions: ['GetItem'],
      outbox: ['BatchGetItem'],
      balances: ['BatchGetItem'],
      reports: ['GetItem'],
      dailyTotals: ['Query'],
      payoutAddresses: ['Query'],
    },
    queries: {
      dashboardUsers: ['byMerchant'],
      auditLog: ['byMerchant'],
      apiKeys: ['byMerchant'],
      invoices: ['byMerchant', 'byMerchantStatus', 'byCustomer'],
      transactions: ['byMerchant', 'byMerchantStatus', 'byMerchantType', 'byInvoice', 'byOrder'],
      // The callbacks page: every delivery of the merchant's, newest first; an invoice's and a transaction's on their pages.
      outbox: ['byTransaction', 'byInvoice', 'byMerchant'],
      reports: ['byMerchant'],
      balanceEntries: ['byMerchant', 'byMerchantCurrency', 'byMerchantType', 'byTransaction'],
    },
  },
  {
    kind: 'http',
    name: 'get-dashboard-receipt',
    method: 'GET',
    path: '/dashboard/receipts/{transactionId}',
    auth: 'none',
    stages: BOTH,
    // A transaction's signed receipt, the file its page offers: signed as the receipt route signs it,
    // by a function that does nothing else, so that the page function never holds the key. The
    // session is checked and moved on as at any page.
    opensCallbackSecrets: true,
    signsReceipts: true,
    tables: {
      dashboardSessions: ['GetItem', 'UpdateItem'],
      dashboardUsers: ['GetItem'],
      merchants: ['GetItem'],
      transactions: ['GetItem'],
      outbox: ['BatchGetItem'],
    },
    queries: { outbox: ['byTransaction'], balanceEntries: ['byTransaction'] },
  },
  {
    kind: 'http',
    name: 'submit-dashboard-form',
    method: 'POST',
    path: '/dashboard/{page+}',
    auth: 'none',
    stages: BOTH,
    // Sign-in opens the user's sealed TOTP seed, joining seals one, and rotating the callback
    // secret seals the merchant's; keys are registered with the gateway's usage plan. Each change
    // is written with its audit entry; a payout address added, a payout asked for, approved or
    // rejected, also with its TOTP code's use on the user. A payout is quoted by its network's node
    // at the live rates and written with its reserve, as create-payout does (without an orderId); a
    // refund with its reserve and what it holds of its deposit, as create-refund does, a fiat one
    // asked of the provider that took the payment.
    opensCallbackSecrets: true,
    sealsCallbackSecrets: true,
    // A refused form draws its page again.
    drawsDashboardPages: true,
    managesApiKeys: true,
    usesChainNodes: true,
    usesProviders: true,
    // A new payout's quote: the fee of a transfer from the treasury is estimated from its address.
    readsTreasuryKeys: true,
    sendsTo: ['callbacks', 'reports', 'payouts'],
    tables: {
      dashboardSessions: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
      dashboardUsers: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
      dashboardInvitations: ['GetItem', 'PutItem', 'DeleteItem'],
      auditLog: ['PutItem'],
      merchants: ['GetItem', 'UpdateItem'],
      apiKeys: ['GetItem', 'PutItem', 'UpdateItem'],
      invoices: ['GetItem'],
      transactions: ['GetItem', 'PutItem', 'UpdateItem'],
      outbox: ['GetItem', 'BatchGetItem', 'UpdateItem', 'PutItem'],
      reports: ['PutItem', 'UpdateItem'],
      payoutAddresses: ['Query', 'GetItem', 'PutItem', 'DeleteItem'],
      rates: LIVE_PRICES,
      // A payout's reserve, released when it is rejected; the payouts page read again beside a refused form.
      balances: ['GetItem', 'PutItem', 'BatchGetItem'],
      balanceEntries: POSTS_TO_BALANCES.balanceEntries,
    },
    queries: {
      // The payouts page, drawn again beside a refused payout form: the payouts, and those waiting for
      // approval; a deposit's page beside a refused refund form: its invoice's refunds.
      transactions: ['byMerchantType', 'byMerchantStatus', 'byInvoice'],
      dashboardSessions: ['byUser'],
      dashboardUsers: ['byMerchant'],
      auditLog: ['byMerchant'],
      apiKeys: ['byMerchant'],
      outbox: ['byTransaction', 'byInvoice'],
      reports: ['byMerchant'],
    },
  },
] as const satisfies readonly GatewayFunction[];
