/**
 * The OpenAPI document (docs/merchant-guide.md#listings-and-pagination): what every operation carries for readers and client
 * generators, and examples that the schemas they illustrate accept. Redocly's lint of both stages'
 * documents runs its CLI, so it is an integration test (test/integration/openapi-lint.test.ts).
 */
import { CRYPTO_NETWORKS, type CryptoNetwork } from '../../shared/domain/kernel/currencies.js';
import { invoiceEventBodySchema } from '../../shared/domain/invoicing/invoice-events.js';
import { INVOICE_EVENTS } from '../../shared/domain/invoicing/invoice.js';
import type { z } from 'zod';
import { describe, expect, it } from 'vitest';
import { balanceEntryViewSchema, balancesViewSchema, listBalanceEntriesQuerySchema } from '../../shared/domain/ledger/balances.js';
import { callbackDeliverySchema, testCallbackResultSchema } from '../../shared/domain/callbacks/callbacks.js';
import { depositConfirmationRequestSchema } from '../../shared/domain/invoicing/deposit-confirmation.js';
import { createInvoiceRequestSchema, listInvoicesQuerySchema } from '../../shared/domain/invoicing/invoice-requests.js';
import { invoiceViewSchema } from '../../shared/domain/invoicing/invoice-views.js';
import { merchantSettingsRequestSchema, merchantViewSchema, rotatedSecretSchema } from '../../shared/domain/merchants/merchants.js';
import { pageSchema } from '../../shared/domain/kernel/pagination.js';
import { simulateDepositRequestSchema, simulateWithdrawalRequestSchema } from '../../shared/domain/invoicing/simulation.js';
import { callbackPayloadSchema, listTransactionsQuerySchema, transactionViewSchema } from '../../shared/domain/transactions/transactions.js';
import { withdrawalRequestSchema } from '../../shared/domain/transactions/withdrawals.js';
import { parseJsonBody } from '../../shared/http/json-body.js';
import { buildOpenApiDocument, buildProvidersOpenApiDocument } from '../../shared/openapi.js';
import * as callbackExamples from '../../shared/routes/callbacks.docs.js';
import * as invoiceExamples from '../../shared/routes/invoicing.docs.js';
import * as ledgerExamples from '../../shared/routes/ledger.docs.js';
import * as merchantExamples from '../../shared/routes/merchants.docs.js';
import * as paymentExamples from '../../shared/routes/payments.docs.js';
import * as payoutExamples from '../../shared/routes/payouts.docs.js';
import * as transactionExamples from '../../shared/routes/transactions.docs.js';
import { HTTP_ROUTES } from '../../shared/routes.js';
import { STAGES, type Stage } from '../../shared/stage.js';

const METHODS = ['get', 'post', 'patch'] as const;

/** The examples each capability describes its routes with. */
const examples = { ...callbackExamples, ...invoiceExamples, ...ledgerExamples, ...merchantExamples, ...paymentExamples, ...payoutExamples, ...transactionExamples };

type Doc = ReturnType<typeof buildOpenApiDocument>;

const documents = Object.fromEntries(STAGES.map((stage) => [stage, buildOpenApiDocument('https://gateway.example', stage, CRYPTO_NETWORKS)])) as Record<Stage, Doc>;

function operations(doc: Doc): { path: string; method: string; op: any }[] {
  return Object.entries(doc.paths).flatMap(([path, item]) => METHODS.filter((method) => (item as any)[method]).map((method) => ({ path, method, op: (item as any)[method] })));
}

const resolve = (doc: Doc, node: any): any =>
  node?.$ref
    ? resolve(
        doc,
        node.$ref
          .split('/')
          .slice(1)
          .reduce((at: any, key: string) => at[key], doc),
      )
    : node;

/** Every key of `node` and of what it refers to, $refs followed once each. */
function keysWithin(doc: Doc, node: unknown, seen = new Set<unknown>()): string[] {
  const resolved = resolve(doc, node);
  if (resolved === null || typeof resolved !== 'object' || seen.has(resolved)) return [];
  seen.add(resolved);
  return Object.entries(resolved).flatMap(([key, value]) => [key, ...keysWithin(doc, value, seen)]);
}

describe.each(STAGES)('the %s document', (stage) => {
  const doc = documents[stage];

  it('documents each merchant route of the stage, the new ones included, and nothing else', () => {
    const documented = operations(doc).map(({ path, method }) => `${method.toUpperCase()} ${path}`);
    // The customer's checkout pages, the merchant's people's dashboard, the providers' route and the documents themselves are not the merchant API.
    const served = HTTP_ROUTES.filter(
      (route) => (route.stages as readonly Stage[]).includes(stage) && !route.calledByProviders && !/^\/(checkout|dashboard|docs)(\/|$)|^\/api\/v2\/openapi\.json$/.test(route.path),
    ).map((route) => `${route.method} ${route.path}`);
    expect(documented.sort()).toEqual(served.sort());
    expect(documented).not.toContain('POST /api/v2/providers/{providerId}/events');
    expect(doc.tags.map(({ name }) => name)).not.toContain('Providers');
    expect(documented).toEqual(
      expect.arrayContaining([
        'GET /api/v2/invoices',
        'GET /api/v2/transactions',
        'GET /api/v2/transaction/{transactionId}/callbacks',
        'POST /api/v2/transaction/{transactionId}/callbacks/resend',
        'POST /api/v2/webhooks/test',
        'GET /api/v2/merchant',
        'PATCH /api/v2/merchant',
        'POST /api/v2/merchant/callback-secret/rotate',
      ]),
    );
  });

  it('gives every operation a tag that is declared, a summary, a description and an id', () => {
    const declared = doc.tags.map((tag) => tag.name);
    for (const { op } of operations(doc)) {
      expect(op.tags).toHaveLength(1);
      expect(declared).toContain(op.tags[0]);
      expect(op.summary).toBeTruthy();
      expect(op.description.length).toBeGreaterThan(20);
      expect(op.operationId).toMatch(/^[a-z][A-Za-z]+$/);
    }
  });

  it('has an example for every request body, query parameter and response, and a description and x-request-id for every status', () => {
    for (const { path, method, op } of operations(doc)) {
      const where = `${method} ${path}`;
      if (op.requestBody) expect(op.requestBody.content['application/json'].example, where).toBeDefined();
      for (const parameter of op.parameters ?? []) expect(parameter.example, `${where} ${parameter.name}`).toBeDefined();
      for (const [status, response] of Object.entries<any>(op.responses)) {
        expect(response.description, `${where} ${status}`).toMatch(/\w{3}/);
        expect(response.headers['x-request-id'], `${where} ${status}`).toEqual({ $ref: '#/components/headers/RequestId' });
        const [content] = Object.values<any>(response.content);
        expect(content.example, `${where} ${status}`).toBeDefined();
        if (status === '429') expect(response.headers['Retry-After']).toEqual({ $ref: '#/components/headers/RetryAfter' });
        else expect(response.headers['Retry-After']).toBeUndefined();
      }
      // Refusals that API Gateway answers itself, for every route behind a key.
      if (op.security.length > 0) expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['401', '429', '500']));
    }
  });

  it('marks the withdrawal deprecated, with Deprecation on the answers its function gives, and nothing else', () => {
    const deprecated = operations(doc).filter(({ op }) => op.deprecated);
    expect(deprecated.map(({ method, path }) => `${method} ${path}`)).toEqual(['post /api/v2/withdrawal']);
    const { responses } = deprecated[0]!.op;
    const marked = Object.entries<any>(responses)
      .filter(([, response]) => response.headers.Deprecation)
      .map(([status]) => status);
    expect(marked).toEqual(['200', '400', '402', '403', '409', '415', '422', '423', '500']);
    expect(doc.components.headers.Deprecation.schema).toEqual({ type: 'string', enum: ['true'] });
  });

  it("names each keyed operation's scope (x-scope and the description's last line) and its 403, and no scope elsewhere", () => {
    for (const { method, path, op } of operations(doc)) {
      const route = HTTP_ROUTES.find((candidate) => candidate.path === path && candidate.method.toLowerCase() === method)!;
      if (route.auth !== 'apiKey') {
        expect(op['x-scope'], op.operationId).toBeUndefined();
        continue;
      }
      expect(op['x-scope'], op.operationId).toBe(route.scope);
      expect(op.description, op.operationId).toMatch(new RegExp(`\\n\\nScope: \`${route.scope}\`\\.$`));
      expect(op.responses['403'].content['application/json'].example, op.operationId).toEqual({ success: false, errors: [{ code: 'forbidden', message: `This API key lacks the scope ${route.scope}` }] });
    }
    expect(operations(doc).find(({ op }) => op.operationId === 'createWithdrawal')!.op['x-scope']).toBe('payouts');
  });

  it('describes the callback the merchant receives as an OpenAPI callbacks object, with its signature headers and payload', () => {
    const callback = (doc.components.callbacks.TransactionCallback as any)['https://merchant.example/callbacks'].post;
    expect(callback.parameters.map((p: { name: string }) => p.name)).toEqual(['webhook-id', 'webhook-timestamp', 'webhook-signature']);
    expect(callback.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/CallbackPayload' });
    expect(callback.requestBody.content['application/json'].example).toEqual(examples.callbackPayloadExample);
    const withCallbacks = operations(doc)
      .filter(({ op }) => op.callbacks)
      .map(({ op }) => op.operationId);
    expect(withCallbacks).toEqual(expect.arrayContaining(['createInvoice', 'confirmDeposit', 'createWithdrawal', 'resendTransactionCallback', 'sendTestCallback']));
    const transactionCallback = { $ref: '#/components/callbacks/TransactionCallback' };
    const invoiceEvent = { $ref: '#/components/callbacks/InvoiceEvent' };
    for (const { op } of operations(doc).filter(({ op }) => op.callbacks)) {
      const expected = ['createInvoice', 'resendInvoiceCallback', 'createRefund', 'simulateWithdrawal'].includes(op.operationId) ? { invoiceEvent } : {};
      expect(op.callbacks, op.operationId).toEqual(op.operationId === 'resendInvoiceCallback' ? expected : { transactionCallback, ...expected });
    }
  });

  it('describes the invoice events a merchant may turn on: their webhook-id, signature headers and body', () => {
    const event = (doc.components.callbacks.InvoiceEvent as any)['https://merchant.example/callbacks'].post;
    expect(event.parameters.map((p: { name: string }) => p.name)).toEqual(['webhook-id', 'webhook-timestamp', 'webhook-signature']);
    expect(event.parameters[0].description).toContain('invoice:{invoiceId}:{event}:{n}');
    expect(event.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/InvoiceEvent' });
    expect(invoiceEventBodySchema.parse(event.requestBody.content['application/json'].example)).toEqual(examples.invoiceEventExample);
    expect((doc.components.schemas as any).InvoiceEvent.properties.event.enum).toEqual([...INVOICE_EVENTS]);
  });

  it('puts no default in what a client sends: a generator would send it as if the client had', () => {
    for (const { path, method, op } of operations(doc)) {
      const sent = [op.requestBody, ...(op.parameters ?? [])];
      expect(keysWithin(doc, sent), `${method} ${path}`).not.toContain('default');
    }
  });
});

describe("the payment providers' document", () => {
  const doc = buildProvidersOpenApiDocument('https://gateway.example');

  it("holds the routes providers call, and none of the merchant's", () => {
    const providersRoutes = HTTP_ROUTES.filter((route) => route.calledByProviders).map((route) => `${route.method.toLowerCase()} ${route.path}`);
    expect(providersRoutes).toEqual(['post /api/v2/providers/{providerId}/events']);
    expect(operations(doc).map(({ method, path }) => `${method} ${path}`)).toEqual(providersRoutes);
    expect(doc.tags.map(({ name }) => name)).toEqual(['Providers']);
    expect(doc.info.description).toContain('docs/provider-protocol.md');
  });

  it('asks for no key and offers no callbacks: a provider signs its events', () => {
    const { op } = operations(doc)[0]!;
    expect(op.security).toEqual([]);
    expect(op.responses['401'].description).toContain('webhook-signature');
    expect(doc.components.securitySchemes).toEqual({});
    expect(doc.components.callbacks).toEqual({});
    expect(Object.keys(doc.components.schemas)).toEqual(expect.arrayContaining(['ProviderEventRequest', 'ProviderEventResponse', 'ErrorEnvelope']));
  });
});

describe('the examples', () => {
  it("offer the networks the stage offers: an invoice's wallet names those alone", () => {
    const walletOf = (offered: CryptoNetwork[]) => {
      const doc = buildOpenApiDocument('https://gateway.example', 'prod', offered);
      return (doc.paths['/api/v2/invoices']!.post as any).responses['200'].content['application/json'].example.data.wallet;
    };
    expect(walletOf(['tron', 'bitcoin'])).toEqual({ address: 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH', networks: ['tron'], addresses: [{ network: 'tron', address: 'TUEZSdKsoDHQMeZwihtdoBiN46zxhGWYdH' }] });
    expect(walletOf(['ethereum', 'tron']).networks).toEqual(['ethereum', 'tron']);
    expect(walletOf([...CRYPTO_NETWORKS]).networks).toEqual(['ethereum', 'bsc', 'polygon', 'tron']);
  });

  // As the functions receive them: a query as strings, a body through the gateway's JSON parser.
  const query = (values: Record<string, string | number>) => Object.fromEntries(Object.entries(values).map(([key, value]) => [key, String(value)]));
  const body = (value: unknown) => parseJsonBody(JSON.stringify(value));

  it.each<[string, z.ZodType, unknown]>([
    ['create invoice', createInvoiceRequestSchema, body(examples.createInvoiceExample)],
    ['invoice', invoiceViewSchema, examples.invoiceExample],
    ['transaction', transactionViewSchema, examples.transactionExample],
    ['withdrawal', transactionViewSchema, examples.withdrawalExample],
    ['callback payload', callbackPayloadSchema, examples.callbackPayloadExample],
    ['simulate deposit', simulateDepositRequestSchema, body(examples.simulateDepositExample)],
    ['simulate withdrawal', simulateWithdrawalRequestSchema, body(examples.simulateWithdrawalExample)],
    ['confirm deposit', depositConfirmationRequestSchema, body(examples.confirmDepositExample)],
    ['create withdrawal', withdrawalRequestSchema, body(examples.createWithdrawalExample)],
    ['list invoices query', listInvoicesQuerySchema, query(examples.listInvoicesQueryExample)],
    ['list transactions query', listTransactionsQuerySchema, query(examples.listTransactionsQueryExample)],
    ['invoice page', pageSchema(invoiceViewSchema), examples.invoicePageExample],
    ['transaction page', pageSchema(transactionViewSchema), examples.transactionPageExample],
    ['callback log', callbackDeliverySchema.array(), examples.callbackLogExample],
    ['test callback', testCallbackResultSchema, examples.testCallbackExample],
    ['merchant', merchantViewSchema, examples.merchantExample],
    ['merchant settings', merchantSettingsRequestSchema, body(examples.merchantSettingsExample)],
    ['rotated secret', rotatedSecretSchema, examples.rotatedSecretExample],
    ['balances', balancesViewSchema, examples.balancesExample],
    ['list balance entries query', listBalanceEntriesQuerySchema, query(examples.listBalanceEntriesQueryExample)],
    ['balance entry page', pageSchema(balanceEntryViewSchema), examples.balanceEntryPageExample],
  ])('%s passes its schema', (_name, schema, example) => {
    expect(schema.safeParse(example).error).toBeUndefined();
  });
});
