/**
 * The demo provider's local process for real: `tsx demo-provider/main.ts` against the test run's
 * DynamoDB Local (under an access key id of its own), spoken to over HTTP as the gateway speaks
 * the provider protocol, with a receiver standing in for the gateway's events route that checks
 * every event's signature with a Standard Webhooks library.
 */
import { randomUUID } from 'node:crypto';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { localDynamoClient } from '../../infra/local/dynamodb.js';
import { randomLocalCredentials } from '../../infra/local/environment.js';
import { signMessage } from '../../shared/connectors/protocol/messages.js';
import type { CreatePaymentRequest } from '../../shared/domain/providers/provider-port.js';
import { startCallbackReceiver, type CallbackReceiver, type ReceivedCallback } from '../support/callback-receiver.js';
import { paymentRequest, payoutRequest, newProviderSecret } from '../support/demo-provider.js';
import { startDemoProviderProcess, type DemoProviderProcess } from '../../infra/local/demo-provider-process.js';
import { isLoopback, listeningSockets, processTree } from '../support/listening-sockets.js';
import { eventually } from '../support/wait.js';

const DELAY_SECONDS = 0.5;
const RETURN_URL = 'https://shop.example/checkout/return';

const secret = newProviderSecret();
const credentials = randomLocalCredentials();
const dynamodbEndpoint = inject('gatewayEnv').AWS_ENDPOINT_URL_DYNAMODB!;
const providerEnv = {
  PORT: '0',
  DEMO_PROVIDER_SECRET: secret,
  DEMO_PROVIDER_DYNAMODB_ENDPOINT: dynamodbEndpoint,
  DEMO_PROVIDER_DYNAMODB_ACCESS_KEY_ID: credentials.accessKeyId,
  GATEWAY_PROVIDER_DELAY_S: String(DELAY_SECONDS),
};

let provider: DemoProviderProcess;
let gateway: CallbackReceiver;
/** The receiver's answer to an event that verifies, by webhook-id and attempt; 200 unless a test says otherwise. */
const answers = new Map<string, number[]>();

beforeAll(async () => {
  gateway = await startCallbackReceiver((event) => {
    try {
      new Webhook(secret).verify(event.body, event.headers as Record<string, string>);
    } catch {
      return 401;
    }
    return answers.get(event.webhookId)?.[event.attempt - 1] ?? 200;
  });
  provider = await startDemoProviderProcess(providerEnv);
});

afterAll(async () => {
  await provider?.stop();
  await gateway?.close();
});

interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

/** A request of the protocol, signed as the gateway signs it. */
async function signed(method: 'GET' | 'POST', path: string, body?: unknown): Promise<Answer> {
  const text = body === undefined ? '' : JSON.stringify(body);
  const { headers } = signMessage(secret, randomUUID(), text, new Date());
  const response = await fetch(`${provider.url}${path}`, { method, headers, body: method === 'GET' ? undefined : text });
  return { status: response.status, headers: response.headers, body: await response.json() };
}

const eventsOf = (providerReference: string): ReceivedCallback[] => gateway.received.filter((event) => event.json?.providerReference === providerReference);

async function createPayment(fields: Partial<CreatePaymentRequest>): Promise<{ request: CreatePaymentRequest; answer: any }> {
  const request = paymentRequest({ returnUrl: RETURN_URL, notifyUrl: `${gateway.url}/providers/demo/events`, ...fields });
  const answer = await signed('POST', '/payments', request);
  expect(answer.status, JSON.stringify(answer.body)).toBe(201);
  return { request, answer: answer.body };
}

const choose = (redirectUrl: string, outcome: 'confirmed' | 'failed', lang: string) =>
  fetch(redirectUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ outcome, lang }).toString(), redirect: 'manual' });

describe('the local demo provider', () => {
  it('prints exactly one line when ready, and listens on loopback only', async () => {
    expect(provider.stdout()).toBe(`${provider.stdout().trim()}\n`);
    expect(provider.stdout().trim()).toMatch(/^Demo provider listening on http:\/\/127\.0\.0\.1:\d+$/);
    const sockets = await listeningSockets(await processTree(provider.child.pid!));
    expect(sockets.map((socket) => socket.port)).toContain(Number(new URL(provider.url).port));
    expect(sockets.filter((socket) => !isLoopback(socket.address))).toEqual([]);
  });

  it("keeps its table in a database of its own in DynamoDB Local, which the gateway's key does not see", async () => {
    const own = localDynamoClient(dynamodbEndpoint, credentials);
    const env = inject('gatewayEnv');
    const gatewayStore = localDynamoClient(dynamodbEndpoint, { accessKeyId: env.AWS_ACCESS_KEY_ID!, secretAccessKey: env.AWS_SECRET_ACCESS_KEY! });
    try {
      expect((await own.send(new ListTablesCommand({}))).TableNames).toEqual(['demo-provider']);
      expect((await gatewayStore.send(new ListTablesCommand({}))).TableNames).not.toContain('demo-provider');
    } finally {
      own.destroy();
      gatewayStore.destroy();
    }
  });

  it('refuses an unsigned request with 401', async () => {
    const response = await fetch(`${provider.url}/payments`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(paymentRequest()) });
    expect(response.status).toBe(401);
    expect(await response.json()).toMatchObject({ success: false, errors: [{ code: 'unauthorized' }] });
  });

  it('TRY: its page in two languages, "successful" sends the signed event, then its outcome goes on to the returnUrl', async () => {
    const { request, answer } = await createPayment({ currency: 'TRY', method: 'wallet', amount: '250.00' });
    const { providerReference, redirectUrl } = answer;
    expect(redirectUrl).toBe(`${provider.url}/pay/${providerReference}`);
    // A retry of the same request finds the same payment.
    expect((await signed('POST', '/payments', request)).body).toEqual(answer);

    const english = await fetch(redirectUrl);
    expect(english.status).toBe(200);
    expect(english.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(await english.text()).toContain('Simulate successful payment');
    const turkish = await fetch(redirectUrl, { headers: { 'accept-language': 'tr-TR,tr;q=0.9' } });
    expect(turkish.headers.get('content-language')).toBe('tr');
    const turkishPage = await turkish.text();
    expect(turkishPage).toContain('Başarılı ödemeyi simüle et');
    expect(turkishPage).toContain('250,00 TRY');

    const response = await choose(redirectUrl, 'confirmed', 'tr');
    expect(response.status).toBe(303);
    expect(new URL(response.headers.get('location')!, redirectUrl).href).toBe(`${redirectUrl}?lang=tr`);
    expect(await (await fetch(`${redirectUrl}?lang=tr`)).text()).toContain(`<meta http-equiv="refresh" content="1; url=${RETURN_URL}">`);
    // Sent before the customer was: the gateway knows the outcome when the customer arrives.
    const [event] = eventsOf(providerReference);
    expect(event).toMatchObject({ status: 200, webhookId: `${providerReference}:payment.confirmed`, path: '/callbacks/providers/demo/events' });
    expect(event!.json).toEqual({
      type: 'payment.confirmed',
      reference: request.reference,
      providerReference,
      amount: '250.00',
      currency: 'TRY',
      senderDetails: { senderIban: expect.stringMatching(/^TR\d{24}$/), senderAccountNumber: '', senderSortCode: '' },
    });

    const status = await signed('GET', `/payments/${providerReference}`);
    expect(status).toMatchObject({ status: 200, body: { status: 'confirmed', amount: '250.00', senderDetails: event!.json.senderDetails } });
    // The page now shows the outcome and the way back.
    expect(await (await fetch(`${redirectUrl}?lang=tr`)).text()).toContain(`href="${RETURN_URL}"`);
  });

  it('INR p2p: instructions, then a UTR, decided and announced after the delay', async () => {
    const { request, answer } = await createPayment({ currency: 'INR', method: 'p2p', amount: '1500.00' });
    const { providerReference, instructions } = answer;
    expect(instructions).toMatchObject({ payee: 'Demo Payments', upiId: 'demopayments@upi', amount: '1500.00', currency: 'INR' });

    const submittedAt = Date.now();
    expect(await signed('POST', `/payments/${providerReference}/utr`, { utr: '412345678901' })).toMatchObject({ status: 202, body: {} });
    const meanwhile = await signed('GET', `/payments/${providerReference}`);
    // Pending when read before the delay could have passed; a busy machine may read it later, decided (checked below).
    if (Date.now() - submittedAt < DELAY_SECONDS * 1000) expect(meanwhile.body).toEqual({ status: 'pending', utr: '412345678901' });
    const event = await gateway.waitForDelivery((received) => received.json?.providerReference === providerReference);
    expect(event.at - submittedAt).toBeGreaterThanOrEqual(DELAY_SECONDS * 1000 - 50);
    expect(event.webhookId).toBe(`${providerReference}:payment.confirmed`);
    expect(event.json).toMatchObject({ type: 'payment.confirmed', reference: request.reference, amount: '1500.00', currency: 'INR', utr: '412345678901' });
    expect((await signed('GET', `/payments/${providerReference}`)).body).toEqual({ status: 'confirmed', amount: '1500.00', utr: '412345678901', senderDetails: event.json.senderDetails });
  });

  it('INR p2p: a UTR starting with 000 fails', async () => {
    const { answer } = await createPayment({ currency: 'INR', method: 'p2p' });
    expect((await signed('POST', `/payments/${answer.providerReference}/utr`, { utr: '000987654321' })).status).toBe(202);
    const event = await gateway.waitForDelivery((received) => received.json?.providerReference === answer.providerReference);
    expect(event.json).toMatchObject({ type: 'payment.failed', utr: '000987654321', reason: 'No transfer with this UTR' });
    expect((await signed('GET', `/payments/${answer.providerReference}`)).body).toEqual({ status: 'failed', utr: '000987654321' });
  });

  it('retries an event the gateway answered with 500, with the same webhook-id, until it answers 200', async () => {
    const { answer } = await createPayment({ currency: 'AZN', method: 'p2p' });
    const providerReference = answer.providerReference as string;
    answers.set(`${providerReference}:payment.failed`, [500, 200]);
    const response = await choose(`${provider.url}/pay/${providerReference}`, 'failed', 'az');
    // The customer goes back all the same.
    expect(response.status).toBe(303);
    await gateway.waitForDelivery((received) => received.json?.providerReference === providerReference);
    const attempts = eventsOf(providerReference);
    expect(attempts.map((event) => [event.webhookId, event.status])).toEqual([
      [`${providerReference}:payment.failed`, 500],
      [`${providerReference}:payment.failed`, 200],
    ]);
    expect(attempts[1]!.body).toBe(attempts[0]!.body);
  });

  it('takes a payout, and answers its status', async () => {
    const request = payoutRequest();
    const answer = await signed('POST', '/payouts', request);
    expect(answer).toMatchObject({ status: 202, body: { providerReference: expect.stringMatching(/^po_/) } });
    expect((await signed('POST', '/payouts', request)).body).toEqual(answer.body);
    expect((await signed('GET', `/payouts/${answer.body.providerReference}`)).body).toEqual({ status: 'pending' });
    expect((await signed('GET', '/payouts/po_000000000000000000000000')).status).toBe(404);
  });

  it("takes a refund of a confirmed payment, once, within its amount, and announces it to the payment's notifyUrl after the delay", async () => {
    const { request, answer } = await createPayment({ currency: 'PKR', method: 'wallet', amount: '900.00' });
    const paymentReference = answer.providerReference as string;
    expect((await choose(answer.redirectUrl, 'confirmed', 'ur')).status).toBe(303);
    const refund = { reference: randomUUID(), paymentReference, amount: '600.00', currency: 'PKR' };
    const requestedAt = Date.now();
    const taken = await signed('POST', '/refunds', refund);
    expect(taken).toMatchObject({ status: 202, body: { providerReference: expect.stringMatching(/^rf_/) } });
    const providerReference = taken.body.providerReference as string;
    // The same refund again is the same refund; another would give back more than was paid.
    expect((await signed('POST', '/refunds', refund)).body).toEqual(taken.body);
    expect((await signed('POST', '/refunds', { ...refund, reference: randomUUID(), amount: '300.01' })).status).toBe(422);
    expect((await signed('GET', `/refunds/${providerReference}`)).body).toEqual({ status: 'pending' });

    const event = await gateway.waitForDelivery((received) => received.json?.providerReference === providerReference);
    expect(event.at - requestedAt).toBeGreaterThanOrEqual(DELAY_SECONDS * 1000 - 50);
    expect(event).toMatchObject({ status: 200, webhookId: `${providerReference}:refund.confirmed`, path: new URL(request.notifyUrl).pathname });
    expect(event.json).toEqual({ type: 'refund.confirmed', reference: refund.reference, providerReference, amount: '600.00', currency: 'PKR' });
    expect((await signed('GET', `/refunds/${providerReference}`)).body).toEqual({ status: 'confirmed', amount: '600.00' });
    expect((await signed('POST', '/refunds', { ...refund, reference: randomUUID(), amount: '300.00' })).status).toBe(202);
    expect(eventsOf(providerReference)).toHaveLength(1);
  });

  it('once restarted, reports a UTR decision its lost timer would have made, from the stored time', async () => {
    const delaySeconds = 2;
    const first = await startDemoProviderProcess({ ...providerEnv, GATEWAY_PROVIDER_DELAY_S: String(delaySeconds) });
    const { answer } = await createPayment({ currency: 'INR', method: 'p2p', amount: '999.00' });
    const { headers } = signMessage(secret, randomUUID(), JSON.stringify({ utr: '512345678901' }), new Date());
    const submitted = await fetch(`${first.url}/payments/${answer.providerReference}/utr`, { method: 'POST', headers, body: JSON.stringify({ utr: '512345678901' }) });
    expect(submitted.status).toBe(202);
    const submittedAt = Date.now();
    // Stopped before the decision is due: its timer goes with it.
    expect(await first.stop()).toBe(0);
    const second = await startDemoProviderProcess(providerEnv);
    try {
      await new Promise((resolve) => setTimeout(resolve, Math.max(submittedAt + delaySeconds * 1000 - Date.now(), 0)));
      const { headers: readHeaders } = signMessage(secret, randomUUID(), '', new Date());
      const status = await fetch(`${second.url}/payments/${answer.providerReference}`, { headers: readHeaders });
      expect(await status.json()).toMatchObject({ status: 'confirmed', amount: '999.00', utr: '512345678901' });
      expect(eventsOf(answer.providerReference)).toEqual([]);
    } finally {
      await second.stop();
    }
  });

  it('exits when the process that started it ends (its standard input closes)', async () => {
    const orphan = await startDemoProviderProcess(providerEnv);
    orphan.child.stdin.end();
    expect(await orphan.exited).toBe(0);
    await eventually(
      async () =>
        !(await fetch(orphan.url).then(
          () => true,
          () => false,
        )),
      { what: 'the orphan to stop listening' },
    );
  });

  it('stops cleanly on SIGTERM', async () => {
    const other = await startDemoProviderProcess(providerEnv);
    expect(await other.stop()).toBe(0);
    expect(other.stdout().trim().split('\n')).toHaveLength(1);
  });
});
