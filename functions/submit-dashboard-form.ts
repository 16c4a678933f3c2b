import * as z from 'zod';
import { httpHandler } from '../shared/http/handler.js';
import { routeByName } from '../shared/routes.js';
import { apiKeyServiceWith } from './commons/api-keys.js';
import { keyRegistry } from './commons/key-registry.js';
import { dailyTotals } from './commons/daily-totals.js';
import { stageConfiguration } from './commons/stage-configuration.js';
import { dashboardRequest, dashboardWith, servePage } from './commons/dashboard.js';
import { cryptoPayoutService } from './commons/payouts.js';
import { refundService } from './commons/refunds.js';
import { reportQueue, reportService } from './commons/reports.js';

const payouts = cryptoPayoutService();
const refunds = refundService();
const dashboard = dashboardWith({
  reports: reportService({ queue: reportQueue() }),
  keys: apiKeyServiceWith(keyRegistry),
  totals: dailyTotals,
  explorers: () => stageConfiguration.current().explorers,
  payouts: {
    quote: (merchantId, request) => payouts.quote(merchantId, request),
    create: (merchantId, request, code) => payouts.create(merchantId, request, code),
    decide: (merchantId, transactionId, decision, code) => payouts.decide(merchantId, transactionId, decision, code),
  },
  createRefund: (merchantId, request, code) => refunds.create(merchantId, request, code),
});

/** A dashboard form (docs/merchant-guide.md#dashboard): its fields as the browser sends them, judged by the page's own rules. */
export const handler = httpHandler(routeByName('submit-dashboard-form'), { body: z.record(z.string(), z.string()), bodyFormat: 'form' }, async (request) =>
  servePage(dashboard, dashboardRequest('POST', request)),
);
