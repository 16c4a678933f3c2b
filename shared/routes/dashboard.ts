/** The dashboard's functions: its pages and forms, for people (docs/merchant-guide.md#the-dashboard). */
import { BOTH, type GatewayFunction } from './function-definition.js';

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
      outbox: ['byTransaction', 'byInvoice'],
      reports: ['byMerchant'],
    },
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
    // is written with its audit entry; a payout address added, also with its TOTP code's use on the user.
    opensCallbackSecrets: true,
    sealsCallbackSecrets: true,
    managesApiKeys: true,
    sendsTo: ['callbacks', 'reports'],
    tables: {
      dashboardSessions: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
      dashboardUsers: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem'],
      dashboardInvitations: ['GetItem', 'PutItem', 'DeleteItem'],
      auditLog: ['PutItem'],
      merchants: ['GetItem', 'UpdateItem'],
      apiKeys: ['GetItem', 'PutItem', 'UpdateItem'],
      invoices: ['GetItem'],
      transactions: ['GetItem'],
      outbox: ['GetItem', 'BatchGetItem', 'UpdateItem'],
      reports: ['PutItem', 'UpdateItem'],
      payoutAddresses: ['Query', 'GetItem', 'PutItem', 'DeleteItem'],
    },
    queries: {
      dashboardSessions: ['byUser'],
      dashboardUsers: ['byMerchant'],
      auditLog: ['byMerchant'],
      apiKeys: ['byMerchant'],
      outbox: ['byTransaction', 'byInvoice'],
      reports: ['byMerchant'],
    },
  },
] as const satisfies readonly GatewayFunction[];
