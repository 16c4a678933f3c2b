/** The OpenAPI description of the invoices' routes, with their examples (shared/routes/route-doc.ts). */
import { createInvoiceRequestSchema, invoiceViewSchema, listInvoicesQuerySchema, type InvoiceView } from '../domain/invoicing/index.js';
import { pageSchema, type Page } from '../domain/kernel/index.js';
import { AUTH_ERRORS, BODY_ERRORS, IDEMPOTENCY_CONFLICT, QUERY_ERRORS, type RouteDocs, EXAMPLE_IDS, PAGE_QUERY_EXAMPLE, EXAMPLE_CURSOR } from './route-doc.js';
import type { INVOICING_FUNCTIONS } from './invoicing.js';

const ADDRESS = '0x9858EfFD232B4033E47d90003D41EC34EcaEda94';

export const createInvoiceExample = { orderId: '1001', customerId: 'cust-42', baseCurrency: 'USDT', invoiceStrategy: 'fixed', amount: 25 };

export const invoiceExample: InvoiceView = {
  id: EXAMPLE_IDS.invoiceId,
  link: `https://pay.example.com/checkout/${EXAMPLE_IDS.invoiceId}`,
  status: 'created',
  amount: '25.000000',
  baseCurrency: 'USDT',
  paymentCurrency: 'USDT',
  paymentAmount: '25.000000',
  exchangeRate: '1',
  paymentMethod: 'crypto',
  directOpen: false,
  customerId: 'cust-42',
  orderId: '1001',
  applicationId: null,
  redirectUrl: null,
  expiresAt: '2025-06-01T10:15:00.000Z',
  createdAt: '2025-06-01T10:00:00.000Z',
  paidAmount: '0.000000',
  refundedAmount: '0.000000',
  paymentStatus: 'unpaid',
  transactionIds: [],
  completedAt: null,
  wallet: {
    address: ADDRESS,
    networks: ['ethereum', 'bsc', 'polygon', 'tron'],
    addresses: [
      { network: 'ethereum', address: ADDRESS },
      { network: 'bsc', address: ADDRESS },
      { network: 'polygon', address: ADDRESS },
      { network: 'tron', address: 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH' },
    ],
  },
};

export const listInvoicesQueryExample = { status: 'completed', orderId: '1001', customerId: 'cust-42', ...PAGE_QUERY_EXAMPLE };

export const invoicePageExample: Page<InvoiceView> = { items: [invoiceExample], nextCursor: EXAMPLE_CURSOR };

export const INVOICING_DOCS: RouteDocs<typeof INVOICING_FUNCTIONS> = {
  'create-invoice': {
    summary: 'Create an invoice',
    description:
      'Creates an invoice for a crypto or local-fiat deposit at a fixed exchange rate and returns the hosted checkout link. ' +
      'The deposit family comes from paymentCurrency, else baseCurrency. An orderId is unique per merchant: the same body returns ' +
      'the existing invoice, another body is a 409. Optional Idempotency-Key header (1-255 characters): the same key and body ' +
      'within 24 h replay the first response. Where rates are live, an invoice that would convert at a price older than the ' +
      'deployment allows is a 503 `service_unavailable` naming the currency; retry shortly. The deposits that pay it are announced by callbacks.',
    tag: 'Invoices',
    schemaName: 'CreateInvoice',
    request: createInvoiceRequestSchema,
    requestExample: createInvoiceExample,
    response: invoiceViewSchema,
    responseExample: invoiceExample,
    success: 'The invoice: new, or the existing one of this orderId and body',
    invoiceEvents: true,
    errors: {
      ...BODY_ERRORS,
      409: `This orderId belongs to an invoice made from another body; or: ${IDEMPOTENCY_CONFLICT}`,
      503: 'Rates are live and a price the invoice converts through is older than the deployment allows (the message names the currency); retry shortly',
      ...AUTH_ERRORS,
    },
    callbacks: true,
  },
  'get-invoice': {
    summary: 'Retrieve an invoice',
    description: "Returns one of the merchant's invoices. Another merchant's invoice is a 404.",
    tag: 'Invoices',
    schemaName: 'GetInvoice',
    response: invoiceViewSchema,
    responseExample: invoiceExample,
    success: 'The invoice',
    errors: { 404: 'No invoice of this merchant has this id', ...AUTH_ERRORS },
    notFound: 'Invoice',
  },
  'list-invoices': {
    summary: 'List invoices',
    description:
      "The merchant's invoices, newest first, a page at a time: follow `nextCursor` until it is null. Filters combine; each " + 'is read from an index of its own. `orderId` names at most one invoice.',
    tag: 'Invoices',
    schemaName: 'ListInvoices',
    query: listInvoicesQuerySchema,
    queryExample: listInvoicesQueryExample,
    response: pageSchema(invoiceViewSchema),
    responseExample: invoicePageExample,
    success: 'A page of invoices',
    errors: { ...QUERY_ERRORS, ...AUTH_ERRORS },
  },
};
