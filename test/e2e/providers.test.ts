/**
 * Production's path with a provider that is not the gateway's own (docs/provider-protocol.md): `npm start` with
 * GATEWAY_PROVIDERS naming a partner written in the tests from the protocol alone, over HTTP both
 * ways. Payments by redirect and by instructions, UTRs, payouts, the partner's events (confirmed,
 * failed, partial, replayed, forged, late, unknown), a partner that is down when a payment is made
 * or a UTR is forwarded, and the reconciliation settling what an event missed.
 */
import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCallbackReceiver, type CallbackReceiver } from '../support/callback-receiver.js';
import { callApi, simulateFunds, startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { startPartnerProvider, verifySignature, type PartnerProvider } from '../support/partner-provider.js';
import { eventually } from '../support/wait.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

let dataDir: string;
let partner: PartnerProvider;
let receiver: CallbackReceiver;
let gateway: GatewayProcess;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'gateway-providers-'));
  [partner, receiver] = await Promise.all([startPartnerProvider(), startCallbackReceiver()]);
  const methods = [
    { currency: 'TRY', method: 'wallet', min: '100', max: '10000' },
    { currency: 'INR', method: 'p2p', min: '300', max: '49000' },
    { currency: 'INR', method: 'intent', min: '300', max: '49000' },
  ];
  gateway = await startGatewayProcess({
    dataDir,
    env: {
      GATEWAY_PROVIDERS: JSON.stringify([{ id: 'partner', name: 'Partner Pay', url: partner.url, secret: partner.secret, priority: 1, methods }]),
      GATEWAY_DEMO_CALLBACK_URL: receiver.url,
      // The reconciliation runs every second and asks about what waited a second.
      GATEWAY_RECONCILE_S: '1',
      GATEWAY_RECONCILE_AFTER_S: '1',
    },
  });
  // What the payouts below are paid from.
  await simulateFunds(gateway, { baseCurrency: 'TRY', paymentMethod: 'wallet', amount: 1000 }, '10000');
});

afterAll(async () => {
  await gateway?.stop();
  await Promise.all([partner?.close(), receiver?.close()]);
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const api = (method: 'GET' | 'POST', path: string, body?: unknown) => callApi(gateway, method, path, body);

async function createInvoice(fields: Record<string, unknown>) {
  const response = await api('POST', '/api/v2/invoices', { orderId: randomUUID(), customerId: `c-${randomUUID()}`, ...fields });
  expect(response.status, response.text).toBe(200);
  return response.body.data;
}

const INR = { baseCurrency: 'INR', amount: 1500, customerFirstName: 'Asha', customerLastName: 'Rao', customerEmail: 'asha@example.com' };

/** The checkout's answer, no redirect followed. */
const visit = (url: string) => fetch(url, { redirect: 'manual' });

const invoiceOf = async (id: string) => (await api('GET', `/api/v2/invoices/${id}`)).body.data;

describe("a payment on the partner's page", () => {
  it('is made at the partner once, signed, with every field of the protocol; its confirmed event completes the invoice and calls the merchant back', async () => {
    const invoice = await createInvoice({ baseCurrency: 'TRY', amount: 1000, paymentMethod: 'wallet', customerFullName: 'Ada Lovelace', redirectUrl: 'https://shop.example/done' });
    // Direct-open: the payment was made when the invoice was.
    const payment = await eventually(() => partner.paymentOf(invoice.id), { what: 'the payment at the partner' });
    const made = partner.requests.find((request) => request.path === '/payments' && request.json?.reference === invoice.id)!;
    expect(made.signed).toBe(true);
    expect(made.headers['webhook-id']).toBe(`payment:${invoice.id}`);
    expect(made.json).toEqual({
      reference: invoice.id,
      amount: '1000.00',
      currency: 'TRY',
      method: 'wallet',
      customer: { id: invoice.customerId, fullName: 'Ada Lovelace', firstName: null, lastName: null, email: null, phone: null, account: null, country: null },
      returnUrl: `${invoice.link}/provider?from=provider`,
      notifyUrl: `${gateway.baseUrl}/api/v2/providers/partner/events`,
      expiresAt: invoice.expiresAt,
    });

    // The link goes straight to the partner's page, and makes no second payment.
    const opened = await visit(invoice.link);
    expect(opened.status).toBe(303);
    const atProvider = await visit(opened.headers.get('location')!);
    expect(atProvider.headers.get('location')).toBe(`${partner.url}/pay/${payment.providerReference}`);
    expect(partner.requests.filter((request) => request.path === '/payments' && request.json?.reference === invoice.id).length).toBeLessThanOrEqual(2);
    expect(partner.payments.size).toBe(new Set([...partner.payments.values()].map((p) => p.request.reference)).size);

    const event = {
      type: 'payment.confirmed',
      reference: invoice.id,
      providerReference: payment.providerReference,
      amount: '1000.00',
      currency: 'TRY',
      senderDetails: { senderIban: 'TR330006100519786457841326' },
    };
    expect(await partner.sendEvent(event)).toEqual({ status: 200, body: { success: true, data: { received: true } } });
    expect(await invoiceOf(invoice.id)).toMatchObject({ status: 'completed', paymentStatus: 'paid' });
    const callback = await receiver.waitForDelivery((c) => c.json?.invoiceId === invoice.id);
    expect(callback.json).toMatchObject({ type: 'deposit', status: 'confirmed', amount: '1000.00', currency: 'TRY', callbackType: 'transaction' });
    const transaction = await api('GET', `/api/v2/transaction/${callback.json.id}`);
    expect(transaction.body.data.senderDetails).toEqual({ senderIban: 'TR330006100519786457841326', senderAccountNumber: '', senderSortCode: '' });
    // Back from the partner's page, the customer goes on to the shop.
    expect((await visit(`${invoice.link}/provider?from=provider`)).headers.get('location')).toBe('https://shop.example/done');
  });

  it('answers a replayed event 200 and changes nothing; refuses a forged one 401, a stale one 401, an unknown reference 404, a contradiction 409', async () => {
    const invoice = await createInvoice({ baseCurrency: 'TRY', amount: 500, paymentMethod: 'wallet', customerFullName: 'Ada' });
    const payment = await eventually(() => partner.paymentOf(invoice.id));
    const event = { type: 'payment.confirmed', reference: invoice.id, providerReference: payment.providerReference, amount: '500.00', currency: 'TRY' };
    expect((await partner.sendEvent(event, { secret: `whsec_${Buffer.alloc(32, 3).toString('base64')}` })).status).toBe(401);
    expect((await partner.sendEvent(event, { timestamp: Math.floor(Date.now() / 1000) - 6 * 60 })).status).toBe(401);
    expect((await partner.sendEvent({ ...event, reference: randomUUID() }, { to: payment.request.notifyUrl })).status).toBe(404);
    expect((await api('GET', `/api/v2/invoices/${invoice.id}`)).body.data.transactionIds).toEqual([]);

    const webhookId = `evt-${randomUUID()}`;
    expect((await partner.sendEvent(event, { webhookId })).status).toBe(200);
    expect((await partner.sendEvent(event, { webhookId })).status).toBe(200);
    expect((await partner.sendEvent({ ...event, type: 'payment.failed', reason: 'chargeback' })).status).toBe(409);
    expect((await invoiceOf(invoice.id)).transactionIds).toHaveLength(1);
  });

  it('credits a payment the partner confirms after the invoice expired: the money moved', async () => {
    const invoice = await createInvoice({ baseCurrency: 'TRY', amount: 700, paymentMethod: 'wallet', customerFullName: 'Ada' });
    const payment = await eventually(() => partner.paymentOf(invoice.id));
    await invoiceExpires(invoice.id);
    const late = await partner.sendEvent({ type: 'payment.confirmed', reference: invoice.id, providerReference: payment.providerReference, amount: '700.00', currency: 'TRY' });
    expect(late.status).toBe(200);
    expect(await invoiceOf(invoice.id)).toMatchObject({ status: 'completed', paidLate: true });
  });
});

/** Lets the invoice's lifetime end, and the expiry schedule cancel it, through the merchant's own view of time: the runtime's database. */
async function invoiceExpires(invoiceId: string): Promise<void> {
  const { openRuntimeStack } = await import('../support/runtime-stack.js');
  const { UpdateCommand } = await import('@aws-sdk/lib-dynamodb');
  const stack = await openRuntimeStack(dataDir);
  try {
    await stack.documentClient.send(
      new UpdateCommand({
        TableName: stack.info.tables.invoices,
        Key: { id: invoiceId },
        UpdateExpression: 'SET #status = :canceled, cancelReason = :expired',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':canceled': 'canceled', ':expired': 'expired' },
      }),
    );
  } finally {
    stack.close();
  }
}

describe("a payment by the partner's instructions", () => {
  it("shows them with a UPI link and its QR code for intent, forwards the customer's UTR, and counts a partial confirmation", async () => {
    const invoice = await createInvoice({ ...INR, paymentMethod: 'intent' });
    const page = await (await visit(`${invoice.link}/provider`)).text();
    expect(page).toContain('<dt>Payee</dt><dd><bdi>Partner Pay Ltd</bdi></dd>');
    const payment = partner.paymentOf(invoice.id)!;
    const reference = payment.request && /PP\d+/.exec(page)?.[0];
    const upi = `upi://pay?pa=partnerpay%40upi&amp;pn=Partner%20Pay%20Ltd&amp;am=1500.00&amp;cu=INR&amp;tn=${reference}`;
    expect(page).toContain(`<a class="button secondary" href="${upi}">Pay in a UPI app</a>`);
    expect(page).toContain('alt="QR code to pay 1,500.00 INR with UPI"');

    const utr = `UPI${Date.now()}`.slice(0, 15);
    const submitted = await fetch(`${invoice.link}/utr`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ utr }), redirect: 'manual' });
    expect(submitted.status).toBe(303);
    const forwarded = await eventually(() => partner.requests.find((request) => request.path === `/payments/${payment.providerReference}/utr`));
    expect(forwarded.signed).toBe(true);
    expect(forwarded.headers['webhook-id']).toMatch(new RegExp(`^utr:${UUID.source.slice(1, -1)}$`));
    expect(forwarded.json).toEqual({ utr: utr.toUpperCase() });

    const partial = await partner.sendEvent({ type: 'payment.confirmed', reference: invoice.id, providerReference: payment.providerReference, amount: '1000.00', currency: 'INR', utr: utr.toUpperCase() });
    expect(partial.status).toBe(200);
    expect(await invoiceOf(invoice.id)).toMatchObject({ status: 'active', paymentStatus: 'partial', paidAmount: '1000.00' });
    const callback = await receiver.waitForDelivery((c) => c.json?.invoiceId === invoice.id);
    expect(callback.json).toMatchObject({ status: 'confirmed', amount: '1000.00' });
  });

  it("takes a merchant's host-to-host UTR for an invoice its customer never opened: the payment is made at the partner first", async () => {
    const invoice = await createInvoice(INR);
    const utr = `H2H${Date.now()}`.slice(0, 16);
    const answer = await api('POST', '/api/v2/gateway9/deposit/confirm', { invoiceId: invoice.id, utr });
    expect(answer.status, answer.text).toBe(200);
    const payment = partner.paymentOf(invoice.id)!;
    expect(payment.request.method).toBe('p2p');
    expect(payment.utr).toBe(utr);
  });

  it('leaves a UTR the partner did not take processing, and the reconciliation sends it again with the same webhook-id', async () => {
    const invoice = await createInvoice({ ...INR, paymentMethod: 'p2p' });
    await visit(`${invoice.link}/provider`);
    const payment = partner.paymentOf(invoice.id)!;
    partner.failNext('POST', `/payments/${payment.providerReference}/utr`, '500');
    const utr = `RTY${Date.now()}`.slice(0, 16);
    expect((await api('POST', '/api/v2/gateway9/deposit/confirm', { invoiceId: invoice.id, utr })).status).toBe(200);
    const attempts = await eventually(
      () => {
        const sent = partner.requests.filter((request) => request.path === `/payments/${payment.providerReference}/utr`);
        return sent.length >= 2 && sent;
      },
      { timeoutMs: 20_000, what: 'the UTR sent again' },
    );
    expect(new Set(attempts.map((request) => request.headers['webhook-id'])).size).toBe(1);
    expect(payment.utr).toBe(utr);
  });
});

describe('a partner that does not answer', () => {
  it.each<['500' | 'garbage' | 'silence']>([['500'], ['garbage'], ['silence']])(
    '(%s) gives the customer "try again" in their language, makes nothing, and the next try makes one payment',
    async (failure) => {
      // The payment at creation fails, and the first visit's too.
      partner.failNext('POST', '/payments', failure, 2);
      const invoice = await createInvoice({ ...INR, paymentMethod: 'p2p' });
      const refused = await visit(`${invoice.link}/provider?lang=tr`);
      expect(refused.status).toBe(503);
      const page = await refused.text();
      expect(page).toContain('Ödeme sağlayıcısı yanıt vermiyor');
      expect(page).toContain(`href="${invoice.link}/provider?lang=tr"`);
      const retried = await visit(`${invoice.link}/provider?lang=tr`);
      expect(retried.status).toBe(200);
      expect(await retried.text()).toContain('Partner Pay Ltd');
      const made = partner.requests.filter((request) => request.path === '/payments' && request.json?.reference === invoice.id);
      expect(new Set(made.map((request) => request.headers['webhook-id']))).toEqual(new Set([`payment:${invoice.id}`]));
      expect([...partner.payments.values()].filter((p) => p.request.reference === invoice.id)).toHaveLength(1);
    },
    40_000,
  );

  it('never fails invoice creation: a direct-open invoice is made all the same, and its link asks the partner again', async () => {
    partner.failNext('POST', '/payments', '500');
    const invoice = await createInvoice({ baseCurrency: 'TRY', amount: 1200, paymentMethod: 'wallet', customerFullName: 'Ada' });
    expect(invoice.directOpen).toBe(true);
    expect((await visit(`${invoice.link}/provider`)).status).toBe(303);
    expect(partner.paymentOf(invoice.id)).toBeDefined();
  });
});

describe('a payout at the partner', () => {
  it('carries the card number in clear to the partner alone, and its confirmed event settles the withdrawal and calls the merchant back', async () => {
    const response = await api('POST', '/api/v2/withdrawal', {
      customerId: 'cust-9',
      amount: '2500.00',
      currency: 'TRY',
      cardNumber: '4111 1111 1111 1111',
      cardHolderName: 'Ada Lovelace',
      comment: 'refund',
    });
    expect(response.status, response.text).toBe(200);
    expect(response.text).not.toContain('4111111111111111');
    const withdrawal = response.body.data;
    const payout = [...partner.payouts.values()].find((candidate) => candidate.request.reference === withdrawal.id)!;
    expect(payout.webhookId).toBe(`payout:${withdrawal.id}`);
    expect(payout.request).toEqual({
      reference: withdrawal.id,
      amount: '2500.00',
      currency: 'TRY',
      recipient: { variant: 'card', cardNumber: '4111111111111111', cardHolderName: 'Ada Lovelace', customerId: 'cust-9', comment: 'refund' },
      notifyUrl: `${gateway.baseUrl}/api/v2/providers/partner/events`,
    });
    const event = await partner.sendEvent({ type: 'payout.confirmed', reference: withdrawal.id, providerReference: payout.providerReference, amount: '2500.00', currency: 'TRY' });
    expect(event.status).toBe(200);
    const callback = await receiver.waitForDelivery((c) => c.json?.id === withdrawal.id);
    expect(callback.json).toMatchObject({ type: 'withdraw', status: 'confirmed' });
  });
});

describe('a payout the partner did not take', () => {
  it('stays processing; the reconciliation sends it again under the same webhook-id, then settles it by asking when its event is lost', async () => {
    partner.failNext('POST', '/payouts', 'garbage');
    const response = await api('POST', '/api/v2/withdrawal', { customerId: 'cust-10', amount: '700.00', currency: 'TRY', phoneNumber: '+905551112233' });
    expect(response.status, response.text).toBe(200);
    const withdrawal = response.body.data;
    expect(withdrawal.status).toBe('processing');
    const payout = await eventually(() => [...partner.payouts.values()].find((candidate) => candidate.request.reference === withdrawal.id), { timeoutMs: 20_000, what: 'the payout sent again' });
    const sent = partner.requests.filter((request) => request.method === 'POST' && request.path === '/payouts' && request.json?.reference === withdrawal.id);
    expect(sent.length).toBeGreaterThanOrEqual(2);
    expect(new Set(sent.map((request) => request.headers['webhook-id']))).toEqual(new Set([`payout:${withdrawal.id}`]));
    expect(partner.payouts.size).toBe([...new Set([...partner.payouts.values()].map((candidate) => candidate.request.reference))].length);
    // The partner fails the payout and its event never arrives.
    payout.status = { status: 'failed' };
    await eventually(async () => (await api('GET', `/api/v2/transaction/${withdrawal.id}`)).body.data.status === 'failed', { timeoutMs: 20_000, what: 'the reconciliation to settle it' });
    const callback = await receiver.waitForDelivery((c) => c.json?.id === withdrawal.id);
    expect(callback.json).toMatchObject({ type: 'withdraw', status: 'failed' });
  });
});

describe('the reconciliation', () => {
  it('settles a payment whose event was lost, by asking the partner', async () => {
    const invoice = await createInvoice({ baseCurrency: 'TRY', amount: 900, paymentMethod: 'wallet', customerFullName: 'Ada' });
    const payment = await eventually(() => partner.paymentOf(invoice.id));
    // The partner knows it was paid, and never told the gateway.
    payment.status = { status: 'confirmed', amount: '900.00', senderDetails: { senderIban: 'TR330006100519786457841326', senderAccountNumber: '', senderSortCode: '' } };
    await eventually(async () => (await invoiceOf(invoice.id)).status === 'completed', { timeoutMs: 20_000, what: 'the reconciliation to settle it' });
    const asked = partner.requests.filter((request) => request.method === 'GET' && request.path === `/payments/${payment.providerReference}`);
    expect(asked.length).toBeGreaterThan(0);
    expect(asked.every((request) => request.signed && verifySignature(partner.secret, request.headers, ''))).toBe(true);
  });
});

describe('a refund at the partner', () => {
  /** A TRY payment of `amount` at the partner, confirmed by its event: the deposit. */
  async function paidAtPartner(amount: number) {
    const invoice = await createInvoice({ baseCurrency: 'TRY', amount, paymentMethod: 'wallet', customerFullName: 'Ada' });
    const payment = await eventually(() => partner.paymentOf(invoice.id));
    const total = amount.toFixed(2);
    expect((await partner.sendEvent({ type: 'payment.confirmed', reference: invoice.id, providerReference: payment.providerReference, amount: total, currency: 'TRY' })).status).toBe(200);
    const [depositId] = (await invoiceOf(invoice.id)).transactionIds as string[];
    return { invoice, payment, depositId: depositId! };
  }
  const refund = (body: Record<string, unknown>) => callApi(gateway, 'POST', '/api/v2/refunds', body, { 'idempotency-key': randomUUID() });

  it("is asked of the partner with its payment's reference, signed; its refund.confirmed settles it, counts it on the invoice and calls the merchant back", async () => {
    const { invoice, payment, depositId } = await paidAtPartner(800);
    const response = await refund({ transactionId: depositId, amount: '300', reason: 'Returned' });
    expect(response.status, response.text).toBe(200);
    const created = response.body.data;
    expect(created).toMatchObject({ type: 'refund', status: 'processing', refundOf: depositId, amount: '300.00', currency: 'TRY', network: null });
    const asked = partner.refundOf(created.id)!;
    expect(asked.webhookId).toBe(`refund:${created.id}`);
    expect(asked.request).toEqual({ reference: created.id, paymentReference: payment.providerReference, amount: '300.00', currency: 'TRY', reason: 'Returned' });
    expect(partner.requests.find((request) => request.path === '/refunds' && request.json?.reference === created.id)?.signed).toBe(true);

    expect((await partner.sendEvent({ type: 'refund.confirmed', reference: created.id, providerReference: asked.providerReference, amount: '300.00', currency: 'TRY' })).status).toBe(200);
    expect((await api('GET', `/api/v2/transaction/${created.id}`)).body.data).toMatchObject({ type: 'refund', status: 'confirmed', refundOf: depositId });
    expect(await invoiceOf(invoice.id)).toMatchObject({ refundedAmount: '300.00', paidAmount: '800.00' });
    const callback = await receiver.waitForDelivery((c) => c.json?.id === created.id);
    expect(callback.json).toMatchObject({ type: 'refund', status: 'confirmed', refundOf: depositId, callbackType: 'transaction' });
  });

  it('is a 422 on transactionId when the partner refunds nothing (501), and nothing stays reserved', async () => {
    const { depositId } = await paidAtPartner(600);
    const balance = async () => ((await api('GET', '/api/v2/balances')).body.data.items as Array<{ currency: string }>).find((item) => item.currency === 'TRY');
    const before = await balance();
    partner.offerRefunds(false);
    try {
      const response = await refund({ transactionId: depositId, amount: '100' });
      expect(response.status, response.text).toBe(422);
      expect(response.body.errors[0]).toMatchObject({ code: 'unprocessable_content', field: 'transactionId', message: expect.stringMatching(/does not refund payments/) });
    } finally {
      partner.offerRefunds(true);
    }
    expect(await balance()).toEqual(before);
  });
});
