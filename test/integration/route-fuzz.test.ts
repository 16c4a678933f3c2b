/**
 * Every HTTP route of the route table, fuzzed through the local API Gateway emulation over HTTP
 * (docs/merchant-guide.md#the-envelope): no 5xx, every answer an envelope with `x-request-id`, and a refused request
 * changes no item. `npm run fuzz -- --runs N` runs the same property longer; a failure prints the
 * seed and path that replay it.
 */
import { CRYPTO_NETWORKS } from '../../shared/domain/kernel/currencies.js';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_STAGE } from '../../infra/local/environment.js';
import { FUNCTIONS, functionsForStage, type HttpRoute, type TableAction } from '../../shared/routes.js';
import { tableGrantsOf } from '../../shared/store/table-access.js';
import { TABLE_KEYS, tableEnvVar, type TableKey } from '../../shared/store/tables.js';
import type { FuzzWorld, JsonSchema } from '../support/fuzz/requests.js';
import { startCallbackReceiver, type CallbackReceiver } from '../support/callback-receiver.js';
import { fuzzSettings } from '../support/fuzz/properties.js';

// Tables of this file's own: other files write to the shared ones meanwhile, and the before and
// after reads must see only what these requests did. Set before any function module loads.
const tables = Object.fromEntries(TABLE_KEYS.map((key) => [key, `fuzz-${randomUUID().slice(0, 8)}-${key}`])) as Record<TableKey, string>;
for (const key of TABLE_KEYS) process.env[tableEnvVar(key)] = tables[key];
// An EVM node, so that crypto payouts are quoted (their network fee) and some are accepted.
const { startLocalChain } = await import('../../infra/chain/local-chain.js');
const chain = await startLocalChain();
process.env.GATEWAY_RPC_ETHEREUM = chain.rpcUrl;
/** The fuzzed merchant's payout address, active at once as on the demo stage. */
const PAYOUT_ADDRESS = '0x00000000000000000000000000000000BEef0101';

const [
  { ensureTables },
  { createTestGateway, loadFunction },
  { seedKey, seedMerchant, testMerchantStore },
  { dynamoClient, documentClient },
  { buildOpenApiDocument, buildProvidersOpenApiDocument },
  { WriteLog, readTables, send, startFuzzServer, FUZZ_TAG_HEADER },
  { fuzzRoute },
  { treeOf },
  { TokenBucketThrottle },
  { quietLog },
  { invoker },
  { DynamoInvoiceStore },
  { signMessage },
  { configuredProvider },
  { payoutAddresses },
] = await Promise.all([
  import('../../infra/local/dynamodb.js'),
  import('../support/invoke.js'),
  import('../support/merchants.js'),
  import('../../shared/store/dynamo.js'),
  import('../../shared/openapi.js'),
  import('../support/fuzz/harness.js'),
  import('../support/fuzz/properties.js'),
  import('../support/fuzz/requests.js'),
  import('../../infra/local/throttle.js'),
  import('../support/logs.js'),
  import('../../infra/local/functions.js'),
  import('../../shared/store/invoices.js'),
  import('../../shared/connectors/protocol/messages.js'),
  import('../support/providers.js'),
  import('../support/payout-addresses.js'),
]);

const settings = fuzzSettings(process.env);
/**
 * The routes that change the fuzzed merchant's own settings (its callback URL among them) run last:
 * before them, a generated PATCH that clears the callback URL would leave the callback routes
 * nothing to answer but refusals.
 */
const CHANGES_SETTINGS = new Set(['update-merchant', 'rotate-callback-secret']);
const routes = functionsForStage(LOCAL_STAGE)
  .filter((fn): fn is HttpRoute => fn.kind === 'http' && (!settings.route || fn.name === settings.route))
  .sort((a, b) => Number(CHANGES_SETTINGS.has(a.name)) - Number(CHANGES_SETTINGS.has(b.name)));
const writes = new WriteLog(new Map(TABLE_KEYS.map((key) => [tables[key], key])));

const WRITES: ReadonlySet<TableAction> = new Set(['PutItem', 'UpdateItem', 'DeleteItem']);
const authorizer = FUNCTIONS.find((fn) => fn.name === 'authorize-merchant')!;
/**
 * The tables a request to the route can change: those its function and the authorizer may write.
 * The runtime holds each function to its route-table grants (infra/local/table-grants.ts), so no
 * other table can change, and reading only these keeps each batch's check to a few tables of 20.
 */
const writableTables = (route: HttpRoute): string[] => [
  ...new Set(
    [route, authorizer].flatMap((definition) =>
      tableGrantsOf(definition)
        .filter(({ actions }) => actions.some((action) => WRITES.has(action)))
        .map(({ table }) => tables[table]),
    ),
  ),
];

let server: Awaited<ReturnType<typeof startFuzzServer>>;
let world: FuzzWorld;
let receiver: CallbackReceiver;

/** Bodies the routes accepted during setup, by route path, and the checkout forms a customer sends. */
const examples: Record<string, unknown[]> = {
  'submit-checkout-details': [{ customerFullName: 'Ayşe Yılmaz', customerEmail: 'ayse@example.com', customerAccount: 'TR330006100519786457841326' }],
  'submit-checkout-utr': [{ utr: '123456789012' }],
};

/** A request of the world's own making, which must succeed; its body becomes an example of its route. */
async function call(method: string, target: string, apiKey: string, body?: unknown): Promise<any> {
  const route = routes.find((candidate) => candidate.method === method && candidate.path === target);
  if (route && body !== undefined) (examples[route.name] ??= []).push(body);
  const headers: Array<[string, string]> = [['x-api-key', apiKey], ...(body === undefined ? [] : [['content-type', 'application/json'] as [string, string]])];
  // A key on every write: a crypto payout takes none without it.
  if (method === 'POST') headers.push(['idempotency-key', randomUUID()]);
  const answer = await send(server.url, { method, target, headers, body: Buffer.from(body === undefined ? '' : JSON.stringify(body)) }, 'setup');
  if (answer.status !== 200 && answer.status !== 202) throw new Error(`${method} ${target}: ${answer.status} ${JSON.stringify(answer.headers)} ${answer.body.toString('utf8')}`);
  return JSON.parse(answer.body.toString('utf8')).data;
}

/** A merchant's invoices of each family (one with an invoice event) and its transactions (a partial deposit, money to pay out, withdrawals open and settled, a UTR under review, a payout, a refund), and a report. */
async function recordsOf(apiKey: string): Promise<string[]> {
  // Invoice events on: the partial deposit below announces one, which the invoice's delivery log lists and resends.
  await call('PATCH', '/api/v2/merchant', apiKey, { invoiceCallbacks: true });
  const invoice = (body: Record<string, unknown>) => call('POST', '/api/v2/invoices', apiKey, { orderId: randomUUID(), customerId: 'fuzz-customer', ...body });
  const crypto = await invoice({ baseCurrency: 'USDT', invoiceStrategy: 'fixed', amount: 50 });
  const inr = await invoice({ baseCurrency: 'INR', amount: 1000 });
  const tryInvoice = await invoice({ baseCurrency: 'TRY', paymentMethod: 'iban', amount: 500 });
  // A payment at the demo provider, which the events of the world name.
  const atProvider = await invoice({ baseCurrency: 'TRY', paymentMethod: 'wallet', amount: 1000, customerFullName: 'Fuzz Customer' });
  await send(server.url, { method: 'GET', target: `/checkout/${atProvider.id}/provider`, headers: [], body: Buffer.alloc(0) }, 'setup');
  const { providerReference } = (await new DynamoInvoiceStore(documentClient, tables).get(atProvider.id))!.providerPayment!;
  (examples['receive-provider-event'] ??= []).push(
    { type: 'payment.confirmed', reference: atProvider.id, providerReference, amount: '1000.00', currency: 'TRY' },
    { type: 'payment.failed', reference: atProvider.id, providerReference, amount: '1000.00', currency: 'TRY', reason: 'fuzz' },
  );
  const deposit = await call('POST', '/api/v2/simulate/deposit', apiKey, { invoiceId: crypto.id, amount: '20' });
  // Money to pay withdrawals from, as a merchant of the demo gets it.
  const funds = await invoice({ baseCurrency: 'TRY', paymentMethod: 'iban', amount: 500 });
  await call('POST', '/api/v2/simulate/deposit', apiKey, { invoiceId: funds.id, amount: '1000000' });
  const withdrawal = () => call('POST', '/api/v2/withdrawal', apiKey, { customerId: 'fuzz-customer', amount: '100', currency: 'TRY', cardNumber: '4111111111111111' });
  const [open, settled] = [await withdrawal(), await withdrawal()];
  await call('POST', '/api/v2/simulate/withdrawal', apiKey, { transactionId: settled.id, status: 'confirmed' });
  await call('POST', '/api/v2/gateway9/deposit/confirm', apiKey, { invoiceId: inr.id, utr: randomUUID().replace(/-/g, '').slice(0, 16) });
  // A crypto payout from the partial USDT deposit above, to the merchant's payout address.
  const payout = await call('POST', '/api/v2/payouts', apiKey, { amount: '5', currency: 'USDT', network: 'ethereum', address: PAYOUT_ADDRESS });
  // A refund of part of the same deposit, which the fuzz may refund further.
  const refund = await call('POST', '/api/v2/refunds', apiKey, { transactionId: deposit.id, amount: '1', address: PAYOUT_ADDRESS });
  const report = await call('POST', '/api/v2/reports', apiKey, { type: 'transactions', createdFrom: new Date(Date.now() - 86_400_000).toISOString(), createdTo: new Date().toISOString() });
  return [crypto.id, inr.id, tryInvoice.id, atProvider.id, deposit.id, open.id, settled.id, payout.id, refund.id, report.id];
}

beforeAll(async () => {
  await ensureTables(dynamoClient, tables);
  writes.instrument(dynamoClient);
  // Throttling is not under test here: thousands of requests on one key would be mostly 429s.
  const throttle = new TokenBucketThrottle({ ratePerSecond: 1_000_000, burst: 1_000_000 });
  const run = invoker(loadFunction);
  const gateway = createTestGateway({
    throttle,
    log: quietLog,
    // Each invocation runs under the tag of the request it serves, so that its writes are known.
    invoke: (fn, event) => {
      const headers = (event as { headers?: Record<string, string> }).headers ?? {};
      const tag = Object.entries(headers).find(([name]) => name.toLowerCase() === FUZZ_TAG_HEADER)?.[1];
      return writes.run(tag, () => run(fn, event));
    },
  });
  server = await startFuzzServer(gateway, quietLog);

  // The merchant's callbacks go somewhere, so that resending one and sending a test callback can succeed.
  receiver = await startCallbackReceiver();
  const [own, other, revoked] = await Promise.all([seedMerchant({ callbackUrl: receiver.url }), seedMerchant(), seedMerchant()]);
  await testMerchantStore().revokeKey(revoked.merchant.id, revoked.key.keyId, new Date());
  for (const { merchant } of [own, other]) await payoutAddresses().add(merchant.id, { network: 'ethereum', address: PAYOUT_ADDRESS }, 'operator');
  // The merchant's own keys beyond their reach: the requests come from loopback, never from 192.0.2.0/24 (TEST-NET-1).
  const [readOnly, fenced] = await Promise.all([seedKey(own.merchant.id, { scopes: ['read'] }), seedKey(own.merchant.id, { allowedIps: ['192.0.2.0/24'] })]);
  // Each used once first, as the merchant's own key is by the records below: the authorizer records a key's first use (docs/merchant-guide.md#authentication), which is no change a refusal made.
  for (const key of [readOnly, fenced]) await send(server.url, { method: 'GET', target: '/api/v2/merchant', headers: [['x-api-key', key]], body: Buffer.alloc(0) }, 'setup');
  // The merchant API's document and the payment providers': each route is in one of them, or in neither (pages, the documents).
  const documents = [buildOpenApiDocument(server.url.origin, LOCAL_STAGE, CRYPTO_NETWORKS), buildProvidersOpenApiDocument(server.url.origin)];
  type Operation = { requestBody?: { content: Record<string, { schema?: JsonSchema }> }; responses: Record<string, { content?: Record<string, { schema?: JsonSchema }> }> };
  const operationOf = (route: HttpRoute) => documents.map((openapi) => openapi.paths[route.path]?.[route.method.toLowerCase()] as Operation | undefined).find(Boolean);
  world = {
    keys: { own: own.apiKey, other: other.apiKey, revoked: revoked.apiKey, readOnly, fenced },
    ownIds: await recordsOf(own.apiKey),
    otherIds: await recordsOf(other.apiKey),
    examples: Object.fromEntries(Object.entries(examples).map(([name, bodies]) => [name, bodies.map(treeOf)])),
    answersEnvelopes: Object.fromEntries(routes.map((route) => [route.name, operationOf(route)?.responses['200']?.content?.['application/json']?.schema !== undefined])),
    requestSchemas: Object.fromEntries(routes.map((route) => [route.name, operationOf(route)?.requestBody?.content['application/json']?.schema])),
    components: Object.assign({}, ...documents.map((openapi) => openapi.components.schemas)) as Record<string, JsonSchema>,
    pathValues: {
      providerId: ['demo'],
      // The dashboard's pages and forms: without a session most go to the sign-in page.
      page: ['sign-in', 'overview', 'invoices', 'keys', 'settings', 'users', 'sign-out', 'join/unknown', 'reports', 'keys/unknown/revoke'],
    },
    // Signed as the demo provider signs: the events' schema and state are fuzzed past their signature.
    signs: {
      'receive-provider-event': (body) => Object.entries(signMessage(configuredProvider().secret, `evt_${randomUUID()}`, body, new Date()).headers).filter(([name]) => name.startsWith('webhook-')),
    },
  };
});

afterAll(async () => {
  await server?.close();
  await receiver?.close();
  await chain.stop();
});

describe('every route of the route table under generated requests', () => {
  it.each(routes.map((route) => [`${route.method} ${route.path}`, route] as const))(
    '%s: no 5xx, envelopes with x-request-id, refusals change nothing',
    async (_, route) => {
      const outcome = await fuzzRoute(route, { world, url: server.url, writes, readTables: () => readTables(documentClient, writableTables(route), writes) }, settings);
      console.log(`${route.name}: ${outcome.sent} requests, ${JSON.stringify(outcome.statuses)}`);
      expect(outcome.sent).toBeGreaterThanOrEqual(settings.requestsPerRoute);
      // Checks that the generated requests are not all refused at the door.
      expect(Object.keys(outcome.statuses).length).toBeGreaterThan(1);
    },
    // About 10 ms a request under load; longer runs of `npm run fuzz` get the time they need.
    Math.max(600_000, settings.requestsPerRoute * 100),
  );
});
