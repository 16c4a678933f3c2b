/**
 * The demo provider's core over in-memory ports, through the same HTTP handler every runtime
 * uses: the provider protocol (docs/provider-protocol.md) as the gateway speaks it, its signatures,
 * the UTR decisions on a fake clock, the payment page and its choices, payouts, refunds, status
 * reads and event retries.
 */
import { createHash, randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { beforeEach, describe, expect, it } from 'vitest';
import { isValidIban } from '../../shared/domain/kernel/iban.js';
import { createdPaymentSchema, providerEventSchema, providerStatusSchema, requestedPayoutSchema, requestedRefundSchema, signMessage } from '../../shared/connectors/protocol/messages.js';
import type { CreatePaymentRequest, ProviderRefundRequest } from '../../shared/domain/providers/provider-port.js';
import {
  EVENT_DELIVERY_WINDOW_SECONDS,
  madeUpSenderDetails,
  paymentReferenceOf,
  PAYOUT_REQUEST_LIFETIME_SECONDS,
  refundedTotalWith,
  refundReferenceOf,
  UTR_REJECTION_REASON,
} from '../../demo-provider/core/records.js';
import { coreHarness, newProviderSecret, paymentRequest, payoutRequest, PUBLIC_URL, type CoreHarness } from '../support/demo-provider.js';

let h: CoreHarness;
beforeEach(() => {
  h = coreHarness();
});

const createPayment = async (fields: Partial<CreatePaymentRequest> = {}) => {
  const request = paymentRequest(fields);
  const response = await h.signed('POST', '/payments', request);
  expect(response.status, response.body).toBe(201);
  return { request, answer: JSON.parse(response.body) as any, providerReference: JSON.parse(response.body).providerReference as string };
};

const statusOf = async (providerReference: string, kind: 'payments' | 'payouts' | 'refunds' = 'payments') => {
  const response = await h.signed('GET', `/${kind}/${providerReference}`);
  expect(response.status, response.body).toBe(200);
  return providerStatusSchema.parse(JSON.parse(response.body));
};

const submitUtr = (providerReference: string, utr: string) => h.signed('POST', `/payments/${providerReference}/utr`, { utr });

const choose = (providerReference: string, outcome: string, lang = 'en') =>
  h.send({ method: 'POST', target: `/pay/${providerReference}`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `outcome=${outcome}&lang=${lang}` });

const page = (providerReference: string, query = '', headers: Record<string, string> = {}) => h.send({ method: 'GET', target: `/pay/${providerReference}${query}`, headers, body: '' });

const errorsOf = (body: string) => JSON.parse(body) as { success: false; errors: Array<{ code: string; message: string; field?: string }> };

/** Verifies an event as the gateway does, with a Standard Webhooks library. */
const verified = (secret: string, event: { headers: Record<string, string>; body: string }) =>
  new Webhook(secret).verify(event.body, {
    'webhook-id': event.headers['webhook-id']!,
    'webhook-timestamp': event.headers['webhook-timestamp']!,
    'webhook-signature': event.headers['webhook-signature']!,
  });

describe('creating a payment', () => {
  it.each([
    ['TRY', 'wallet'],
    ['TRY', 'bankpay'],
    ['TRY', 'iban'],
    ['PKR', 'wallet'],
    ['AZN', 'p2p'],
  ] as const)('%s %s: sends the customer to its own page', async (currency, method) => {
    const { request, answer } = await createPayment({ currency, method });
    expect(createdPaymentSchema.parse(answer)).toEqual({
      providerReference: paymentReferenceOf(request.reference),
      redirectUrl: `${PUBLIC_URL}/pay/${paymentReferenceOf(request.reference)}`,
    });
  });

  it('INR p2p: answers demo UPI instructions for the checkout to show', async () => {
    const { request, answer, providerReference } = await createPayment({ currency: 'INR', method: 'p2p', amount: '1500.00' });
    expect(createdPaymentSchema.parse(answer)).toEqual({
      providerReference,
      instructions: { payee: 'Demo Payments', upiId: 'demopayments@upi', accountNumber: null, bankName: null, amount: '1500.00', currency: 'INR', reference: expect.stringMatching(/^DEMO[0-9A-F]{8}$/) },
    });
    expect(providerReference).toBe(paymentReferenceOf(request.reference));
  });

  it('answers a repeated request as the first, and never makes a second payment', async () => {
    const first = await createPayment({ currency: 'INR', method: 'p2p' });
    // The gateway's retry: the same body under the same webhook-id, or a new one.
    const again = await h.signed('POST', '/payments', first.request);
    expect(again.status).toBe(201);
    expect(JSON.parse(again.body)).toEqual(first.answer);
    expect(h.store.records.size).toBe(1);
  });

  it("derives the provider reference from the gateway reference, in the protocol's alphabet", () => {
    const reference = '0b7f6f1e-3c39-4f7c-9d0b-2a6c0f5e9a11';
    expect(paymentReferenceOf(reference)).toBe(paymentReferenceOf(reference));
    expect(paymentReferenceOf(reference)).toMatch(/^pay_[0-9a-f]{24}$/);
    expect(paymentReferenceOf(reference)).not.toBe(paymentReferenceOf('5d1c2a9e-8a55-4d6b-9d4f-6f3e9b8c7a21'));
  });

  it.each([
    ['INR', 'intent'],
    ['TRY', 'p2p'],
    ['AZN', 'wallet'],
  ] as const)('refuses %s %s, which the demo does not offer, with a 422', async (currency, method) => {
    const response = await h.signed('POST', '/payments', paymentRequest({ currency, method }));
    expect(response.status).toBe(422);
    expect(errorsOf(response.body)).toEqual({ success: false, errors: [{ code: 'unprocessable_content', field: 'method', message: expect.stringContaining(method) }] });
    expect(h.store.records.size).toBe(0);
  });

  it('refuses a body that is not a payment with a 422 naming each field', async () => {
    const { amount: _amount, ...withoutAmount } = paymentRequest();
    const response = await h.signed('POST', '/payments', { ...withoutAmount, currency: 'USD' });
    expect(response.status).toBe(422);
    expect(errorsOf(response.body).errors.map((error) => error.field)).toEqual(['amount', 'currency']);
    const notJson = await h.signed('POST', '/payments', '{"reference":');
    expect(notJson.status).toBe(422);
    expect(errorsOf(notJson.body).errors[0]).toMatchObject({ code: 'unprocessable_content' });
  });

  it('sends customers back to web addresses only', async () => {
    const response = await h.signed('POST', '/payments', paymentRequest({ returnUrl: 'javascript:alert(1)' }));
    expect(response.status).toBe(422);
    expect(errorsOf(response.body).errors[0]).toMatchObject({ field: 'returnUrl' });
  });
});

describe('a request of the protocol', () => {
  const requests = (providerReference: string) =>
    [
      ['POST', '/payments', paymentRequest()],
      ['GET', `/payments/${providerReference}`, undefined],
      ['POST', `/payments/${providerReference}/utr`, { utr: '412345678901' }],
      ['POST', '/payouts', payoutRequest()],
      ['GET', `/payouts/${providerReference}`, undefined],
      ['POST', '/refunds', { reference: randomUUID(), paymentReference: providerReference, amount: '1.00', currency: 'INR' }],
      ['GET', `/refunds/${refundReferenceOf(randomUUID())}`, undefined],
    ] as const;

  it.each([
    ['unsigned', { headers: {} }],
    ['signed with another secret', { secret: newProviderSecret() }],
    ['signed 6 minutes ago', { at: new Date(Date.now() - 6 * 60_000) }],
    ['signed 6 minutes ahead', { at: new Date(Date.now() + 6 * 60_000) }],
  ] as const)('is refused with 401, reading and changing nothing, when %s', async (_, how) => {
    const { providerReference } = await createPayment({ currency: 'INR', method: 'p2p' });
    const before = structuredClone([...h.store.records]);
    for (const [method, target, body] of requests(providerReference)) {
      const text = body === undefined ? '' : JSON.stringify(body);
      const response = 'headers' in how ? await h.send({ method, target, headers: how.headers, body: text }) : await h.signed(method, target, body, how);
      expect(response.status, `${method} ${target}`).toBe(401);
      expect(errorsOf(response.body)).toEqual({ success: false, errors: [{ code: 'unauthorized', message: expect.any(String) }] });
    }
    expect([...h.store.records]).toEqual(before);
    expect(h.scheduler.held).toEqual([]);
  });

  it('is refused when its body is not the one signed', async () => {
    const request = paymentRequest();
    const signed = signMessage(h.secret, 'payment:1', JSON.stringify(request), new Date());
    const response = await h.send({ method: 'POST', target: '/payments', headers: signed.headers, body: JSON.stringify({ ...request, amount: '1.00' }) });
    expect(response.status).toBe(401);
    expect(h.store.records.size).toBe(0);
  });

  it('is checked before the provider reference is looked up', async () => {
    expect((await h.send({ method: 'GET', target: '/payments/pay_unknown', headers: {}, body: '' })).status).toBe(401);
    expect((await h.signed('GET', '/payments/pay_unknown')).status).toBe(404);
  });

  it('accepts the secret with or without whsec_ in front, as the protocol writes it', async () => {
    const bare = h.secret.slice('whsec_'.length);
    expect((await h.signed('POST', '/payments', paymentRequest(), { secret: bare })).status).toBe(201);
  });
});

describe('routes', () => {
  it('answers an unknown path with 404 and another method with 405, in the error envelope', async () => {
    const unknown = await h.send({ method: 'GET', target: '/nothing', headers: {}, body: '' });
    expect(unknown.status).toBe(404);
    expect(errorsOf(unknown.body).errors[0]!.code).toBe('not_found');
    const wrongMethod = await h.send({ method: 'DELETE', target: '/payments', headers: {}, body: '' });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.allow).toBe('POST');
  });

  it('answers an unknown provider reference with 404', async () => {
    for (const target of ['/payments/pay_000000000000000000000000', '/payouts/po_000000000000000000000000', '/refunds/rf_000000000000000000000000']) {
      const response = await h.signed('GET', target);
      expect(response.status, target).toBe(404);
      expect(errorsOf(response.body).errors[0]!.code).toBe('not_found');
    }
    expect((await submitUtr('pay_000000000000000000000000', '412345678901')).status).toBe(404);
  });

  it('does not take a payout for a payment, nor a payment for a payout', async () => {
    const { providerReference } = await createPayment();
    expect((await h.signed('GET', `/payouts/${providerReference}`)).status).toBe(404);
    const payout = JSON.parse((await h.signed('POST', '/payouts', payoutRequest())).body).providerReference;
    expect((await h.signed('GET', `/payments/${payout}`)).status).toBe(404);
    expect((await submitUtr(payout, '412345678901')).status).toBe(404);
  });
});

describe('a UTR', () => {
  let providerReference: string;
  let request: CreatePaymentRequest;
  beforeEach(async () => {
    ({ providerReference, request } = await createPayment({ currency: 'INR', method: 'p2p', amount: '1500.00' }));
  });

  it('is taken with 202 and decided after the delay: confirmed, with the amount, the UTR and the sender', async () => {
    const response = await submitUtr(providerReference, '412345678901');
    expect(response.status).toBe(202);
    expect(JSON.parse(response.body)).toEqual({});
    expect(await statusOf(providerReference)).toEqual({ status: 'pending', utr: '412345678901' });
    expect(h.scheduler.held.map(({ job, at }) => [job, at.getTime() - h.clock.read().getTime()])).toEqual([[{ kind: 'decide-utr', providerReference }, 2000]]);

    h.clock.advance(1.9);
    expect(await h.runDue()).toBe(0);
    expect(h.events).toEqual([]);
    h.clock.advance(0.1);
    expect(await h.runDue()).toBe(1);

    expect(h.events).toHaveLength(1);
    const [event] = h.events;
    expect(event!.url).toBe(request.notifyUrl);
    expect(event!.headers['webhook-id']).toBe(`${providerReference}:payment.confirmed`);
    expect(verified(h.secret, event!)).toEqual(event!.json);
    const senderDetails = { senderIban: '', senderAccountNumber: expect.stringMatching(/^\d{12}$/), senderSortCode: expect.stringMatching(/^DEMO0\d{6}$/) };
    expect(providerEventSchema.parse(event!.json)).toEqual({
      type: 'payment.confirmed',
      reference: request.reference,
      providerReference,
      amount: '1500.00',
      currency: 'INR',
      utr: '412345678901',
      senderDetails,
    });
    expect(await statusOf(providerReference)).toEqual({ status: 'confirmed', amount: '1500.00', utr: '412345678901', senderDetails: event!.json.senderDetails });
  });

  it('starting with 000 fails: no transfer with this UTR', async () => {
    expect((await submitUtr(providerReference, '000123456789')).status).toBe(202);
    h.clock.advance(2);
    await h.runDue();
    expect(providerEventSchema.parse(h.events[0]!.json)).toEqual({
      type: 'payment.failed',
      reference: request.reference,
      providerReference,
      amount: '1500.00',
      currency: 'INR',
      utr: '000123456789',
      reason: UTR_REJECTION_REASON,
    });
    expect(h.events[0]!.headers['webhook-id']).toBe(`${providerReference}:payment.failed`);
    expect(await statusOf(providerReference)).toEqual({ status: 'failed', utr: '000123456789' });
  });

  it('is reported decided once due even when its decision never ran (a timer or message lost)', async () => {
    await submitUtr(providerReference, '412345678901');
    h.scheduler.held.length = 0;
    h.clock.advance(2);
    expect(await statusOf(providerReference)).toMatchObject({ status: 'confirmed', amount: '1500.00', utr: '412345678901' });
    // The decision that runs late reports the same.
    await h.provider.run({ kind: 'decide-utr', providerReference });
    expect(h.events[0]!.json.senderDetails).toEqual((await statusOf(providerReference)).senderDetails);
  });

  it('is taken again when the same UTR comes again, scheduling its decision again; the decision is made and sent once', async () => {
    expect((await submitUtr(providerReference, '412345678901')).status).toBe(202);
    h.clock.advance(1);
    expect((await submitUtr(providerReference, '412345678901')).status).toBe(202);
    expect(h.scheduler.held).toHaveLength(2);
    // The decision is due when the first UTR said, however often it is scheduled.
    expect(new Set(h.scheduler.held.map(({ at }) => at.toISOString())).size).toBe(1);
    h.clock.advance(1);
    expect(await h.runDue()).toBe(2);
    expect(h.events).toHaveLength(1);
  });

  it('is refused with 409 when another UTR was submitted for the payment', async () => {
    await submitUtr(providerReference, '412345678901');
    const response = await submitUtr(providerReference, '412345678902');
    expect(response.status).toBe(409);
    expect(errorsOf(response.body).errors[0]!.code).toBe('conflict');
    expect((await statusOf(providerReference)).utr).toBe('412345678901');
  });

  it('is refused with 409 for a payment paid on the page', async () => {
    const { providerReference: wallet } = await createPayment({ currency: 'TRY', method: 'wallet' });
    expect((await submitUtr(wallet, '412345678901')).status).toBe(409);
  });

  it('that is not 12 to 22 capital letters or digits is refused with 422', async () => {
    for (const utr of ['41234567890', 'abc123456789', '4123456789012345678901234']) expect((await submitUtr(providerReference, utr)).status, utr).toBe(422);
    expect(h.scheduler.held).toEqual([]);
  });

  it('waits as long as GATEWAY_PROVIDER_DELAY_S says', async () => {
    h = coreHarness({ utrDecisionDelaySeconds: 30 });
    ({ providerReference } = await createPayment({ currency: 'INR', method: 'p2p' }));
    await submitUtr(providerReference, '412345678901');
    h.clock.advance(29);
    expect((await statusOf(providerReference)).status).toBe('pending');
    h.clock.advance(1);
    expect((await statusOf(providerReference)).status).toBe('confirmed');
  });
});

describe('the choice on the payment page', () => {
  let providerReference: string;
  let request: CreatePaymentRequest;
  beforeEach(async () => {
    ({ providerReference, request } = await createPayment({ currency: 'TRY', method: 'wallet', amount: '1500.00' }));
  });

  it('"successful" sends payment.confirmed for the whole amount, then shows the outcome, which goes on to the returnUrl by itself', async () => {
    const response = await choose(providerReference, 'confirmed', 'tr');
    expect(response.status).toBe(303);
    // Back to the page itself, in its language; it then refreshes to the gateway's URL exactly.
    expect(response.headers.location).toBe('?lang=tr');
    const outcome = await page(providerReference, '?lang=tr');
    expect(outcome.body).toContain(`<meta http-equiv="refresh" content="1; url=${request.returnUrl}">`);
    expect(outcome.body).toContain(`<a class="button" href="${request.returnUrl}">`);
    expect(h.events).toHaveLength(1);
    const event = h.events[0]!;
    expect(verified(h.secret, event)).toEqual(event.json);
    expect(event.headers['webhook-id']).toBe(`${providerReference}:payment.confirmed`);
    expect(providerEventSchema.parse(event.json)).toEqual({
      type: 'payment.confirmed',
      reference: request.reference,
      providerReference,
      amount: '1500.00',
      currency: 'TRY',
      senderDetails: { senderIban: expect.stringMatching(/^TR\d{24}$/), senderAccountNumber: '', senderSortCode: '' },
    });
    expect(isValidIban(event.json.senderDetails.senderIban)).toBe(true);
    expect(await statusOf(providerReference)).toEqual({ status: 'confirmed', amount: '1500.00', senderDetails: event.json.senderDetails });
    expect(h.scheduler.held).toEqual([]);
  });

  it('"failed" sends payment.failed with a reason', async () => {
    expect((await choose(providerReference, 'failed')).status).toBe(303);
    expect(providerEventSchema.parse(h.events[0]!.json)).toMatchObject({ type: 'payment.failed', amount: '1500.00', reason: expect.any(String) });
    expect(await statusOf(providerReference)).toEqual({ status: 'failed' });
  });

  it('is recorded once: a second click changes nothing and sends nothing', async () => {
    await choose(providerReference, 'confirmed');
    const again = await choose(providerReference, 'failed');
    expect(again.status).toBe(303);
    expect(again.headers.location).toBe('?lang=en');
    expect(h.events).toHaveLength(1);
    expect((await statusOf(providerReference)).status).toBe('confirmed');
  });

  it('still sends the customer back when the gateway does not answer, and retries the event with the same webhook-id', async () => {
    h.answer = () => null;
    expect((await choose(providerReference, 'confirmed')).status).toBe(303);
    expect(h.scheduler.held.map(({ job }) => job)).toEqual([{ kind: 'deliver-event', providerReference, attempt: 2, firstAttemptAt: h.clock.read().toISOString() }]);
    h.answer = () => 200;
    h.clock.advance(1);
    await h.runDue();
    expect(h.events.map((event) => [event.headers['webhook-id'], event.body, event.status])).toEqual([
      [`${providerReference}:payment.confirmed`, h.events[0]!.body, null],
      [`${providerReference}:payment.confirmed`, h.events[0]!.body, 200],
    ]);
  });

  it('with anything but the two choices shows the page again with a 422 and records nothing', async () => {
    const response = await choose(providerReference, 'maybe');
    expect(response.status).toBe(422);
    expect(response.headers['content-type']).toMatch(/^text\/html/);
    expect(h.events).toEqual([]);
    expect((await statusOf(providerReference)).status).toBe('pending');
  });

  it('for an unknown payment, or one paid by UTR, is a 404 page', async () => {
    const { providerReference: inr } = await createPayment({ currency: 'INR', method: 'p2p' });
    for (const reference of ['pay_000000000000000000000000', inr]) {
      const response = await choose(reference, 'confirmed');
      expect(response.status).toBe(404);
      expect(response.headers['content-type']).toMatch(/^text\/html/);
    }
    expect(h.events).toEqual([]);
  });
});

describe('event retries', () => {
  const decidedPayment = async (answers: Array<number | null>) => {
    h.answer = () => (answers.length > 1 ? answers.shift()! : answers[0]!);
    const { providerReference } = await createPayment();
    await choose(providerReference, 'confirmed');
    return providerReference;
  };

  /** Lets time pass to each held job and runs it, until none is left; resolves to the delays between attempts. */
  const runToTheEnd = async () => {
    const waits: number[] = [];
    for (let next = h.scheduler.held[0]; next; next = h.scheduler.held[0]) {
      waits.push((next.at.getTime() - h.clock.read().getTime()) / 1000);
      h.clock.advance(waits.at(-1)!);
      await h.runDue();
    }
    return waits;
  };

  it('go on after a 5xx or a 429 until a 2xx, with the same webhook-id and body, signed afresh', async () => {
    const providerReference = await decidedPayment([500, 429, 503, 200]);
    expect(await runToTheEnd()).toEqual([1, 5, 30]);
    expect(h.events.map((event) => event.status)).toEqual([500, 429, 503, 200]);
    expect(new Set(h.events.map((event) => event.headers['webhook-id']))).toEqual(new Set([`${providerReference}:payment.confirmed`]));
    expect(new Set(h.events.map((event) => event.body)).size).toBe(1);
    expect(h.events.map((event) => Number(event.headers['webhook-timestamp']))).toEqual([0, 1, 6, 36].map((seconds) => Number(h.events[0]!.headers['webhook-timestamp']) + seconds));
  });

  it('stop at a 4xx other than 429: the gateway will answer it the same way', async () => {
    await decidedPayment([404]);
    expect(h.scheduler.held).toEqual([]);
    expect(h.log.filter((line) => line.level === 'warn').map((line) => line.message)).toEqual([expect.stringContaining('refused')]);
  });

  it('spread over more than a day, then are given up', async () => {
    await decidedPayment([503]);
    const waits = await runToTheEnd();
    expect(waits.slice(0, 8)).toEqual([1, 5, 30, 120, 600, 1800, 3600, 10800]);
    const total = waits.reduce((sum, wait) => sum + wait, 0);
    expect(total).toBeGreaterThan(24 * 3600);
    expect(total).toBeLessThanOrEqual(EVENT_DELIVERY_WINDOW_SECONDS);
    expect(h.events).toHaveLength(waits.length + 1);
    expect(h.log.at(-1)).toMatchObject({ level: 'error', message: expect.stringContaining('given up') });
  });
});

describe('a payout', () => {
  it('is taken with 202 and its provider reference, once per reference, keeping no recipient', async () => {
    const request = payoutRequest();
    const first = await h.signed('POST', '/payouts', request);
    expect(first.status).toBe(202);
    const answer = requestedPayoutSchema.parse(JSON.parse(first.body));
    expect(answer.providerReference).toMatch(/^po_[0-9a-f]{24}$/);
    const again = await h.signed('POST', '/payouts', request);
    expect([again.status, JSON.parse(again.body)]).toEqual([202, answer]);
    expect(h.store.records.size).toBe(1);
    expect(JSON.stringify([...h.store.records.values()])).not.toContain('4111111111111111');
  });

  it("stays pending (the gateway's simulation decides it), and is failed once its request is a day old", async () => {
    const { providerReference } = JSON.parse((await h.signed('POST', '/payouts', payoutRequest())).body);
    expect(await statusOf(providerReference, 'payouts')).toEqual({ status: 'pending' });
    h.clock.advance(PAYOUT_REQUEST_LIFETIME_SECONDS - 1);
    expect(await statusOf(providerReference, 'payouts')).toEqual({ status: 'pending' });
    h.clock.advance(1);
    expect(await statusOf(providerReference, 'payouts')).toEqual({ status: 'failed' });
    expect(h.events).toEqual([]);
  });

  it('that is malformed is refused with 422', async () => {
    const response = await h.signed('POST', '/payouts', { ...payoutRequest(), recipient: { variant: 'pigeon' } });
    expect(response.status).toBe(422);
    expect(errorsOf(response.body).errors[0]).toMatchObject({ field: 'recipient.variant' });
  });
});

describe('a refund', () => {
  /** A payment the customer paid on the page, its event sent and forgotten. */
  const paidPayment = async (fields: Partial<CreatePaymentRequest> = {}) => {
    const created = await createPayment({ currency: 'TRY', method: 'wallet', amount: '1500.00', ...fields });
    expect((await choose(created.providerReference, 'confirmed')).status).toBe(303);
    h.events.length = 0;
    return created;
  };
  const refundRequest = (paymentReference: string, fields: Partial<ProviderRefundRequest> = {}): ProviderRefundRequest => ({
    reference: randomUUID(),
    paymentReference,
    amount: '400.00',
    currency: 'TRY',
    ...fields,
  });
  const requestRefund = (request: ProviderRefundRequest | Record<string, unknown>) => h.signed('POST', '/refunds', request);
  const refundOf = async (request: ProviderRefundRequest) => {
    const response = await requestRefund(request);
    expect(response.status, response.body).toBe(202);
    return requestedRefundSchema.parse(JSON.parse(response.body)).providerReference;
  };
  const paymentRecord = (providerReference: string) => h.store.records.get(providerReference) as { refundedAmount?: string; refundReferences?: string[] };

  it('is taken with 202 and its provider reference, once per reference: a repeated request answers the same refund, counted once', async () => {
    const { providerReference: payment } = await paidPayment();
    const request = refundRequest(payment, { reason: 'The customer returned the goods' });
    const first = await requestRefund(request);
    expect(first.status).toBe(202);
    const answer = requestedRefundSchema.parse(JSON.parse(first.body));
    expect(answer).toEqual({ providerReference: refundReferenceOf(request.reference) });
    expect(answer.providerReference).toMatch(/^rf_[0-9a-f]{24}$/);
    // The gateway's retry: the same body under the same webhook-id, or a new one.
    const again = await requestRefund(request);
    expect([again.status, JSON.parse(again.body)]).toEqual([202, answer]);
    expect(h.store.records.size).toBe(2);
    expect(paymentRecord(payment)).toMatchObject({ refundedAmount: '400.00', refundReferences: [answer.providerReference] });
    expect(h.store.records.get(answer.providerReference)).toMatchObject({ kind: 'refund', reference: request.reference, paymentReference: payment, amount: '400.00', reason: request.reason });
  });

  it('of a payment that is not known is refused with 404, storing nothing', async () => {
    for (const paymentReference of ['pay_000000000000000000000000', JSON.parse((await h.signed('POST', '/payouts', payoutRequest())).body).providerReference]) {
      const response = await requestRefund(refundRequest(paymentReference));
      expect(response.status, paymentReference).toBe(404);
      expect(errorsOf(response.body).errors[0]!.code).toBe('not_found');
    }
    expect([...h.store.records.values()].map((record) => record.kind)).toEqual(['payout']);
    expect(h.scheduler.held).toEqual([]);
  });

  it('of a payment that is not confirmed (pending, failed, its UTR not yet decided) is refused with 409', async () => {
    const { providerReference: pending } = await createPayment({ currency: 'TRY', method: 'wallet' });
    const { providerReference: failed } = await createPayment({ currency: 'TRY', method: 'wallet' });
    await choose(failed, 'failed');
    const { providerReference: utr } = await createPayment({ currency: 'INR', method: 'p2p' });
    await submitUtr(utr, '412345678901');
    h.scheduler.held.length = 0;
    for (const [paymentReference, currency] of [
      [pending, 'TRY'],
      [failed, 'TRY'],
      [utr, 'INR'],
    ] as const) {
      const response = await requestRefund(refundRequest(paymentReference, { currency }));
      expect(response.status, paymentReference).toBe(409);
      expect(errorsOf(response.body).errors[0]!.code).toBe('conflict');
    }
    expect([...h.store.records.values()].filter((record) => record.kind === 'refund')).toEqual([]);
    expect(h.scheduler.held).toEqual([]);
  });

  it('of a payment whose UTR decision is due is taken, even when the decision has not run yet, as the status read reports it', async () => {
    const { providerReference: payment } = await createPayment({ currency: 'INR', method: 'p2p', amount: '1500.00' });
    await submitUtr(payment, '412345678901');
    h.clock.advance(2);
    expect((await statusOf(payment)).status).toBe('confirmed');
    await refundOf(refundRequest(payment, { currency: 'INR' }));
  });

  it('is refused with 422 when the refunds of a payment together would exceed what it took', async () => {
    const { providerReference: payment } = await paidPayment({ amount: '1500.00' });
    const first = refundRequest(payment, { amount: '1000.00' });
    await refundOf(first);
    const over = await requestRefund(refundRequest(payment, { amount: '500.01' }));
    expect(over.status).toBe(422);
    expect(errorsOf(over.body).errors).toEqual([{ code: 'unprocessable_content', field: 'amount', message: expect.stringContaining('1500.00 TRY') }]);
    await refundOf(refundRequest(payment, { amount: '500' }));
    expect((await requestRefund(refundRequest(payment, { amount: '0.01' }))).status).toBe(422);
    // A repeated request of a refund counted is answered all the same, the payment refunded whole.
    expect((await requestRefund(first)).status).toBe(202);
    expect(paymentRecord(payment)).toMatchObject({ refundedAmount: '1500.00', refundReferences: expect.any(Array) });
    expect(paymentRecord(payment).refundReferences).toHaveLength(2);
  });

  it('racing another refund of the same payment is counted against the total the other left', async () => {
    const { providerReference: payment } = await paidPayment({ amount: '1500.00' });
    const answers = await Promise.all([requestRefund(refundRequest(payment, { amount: '1000.00' })), requestRefund(refundRequest(payment, { amount: '1000.00' }))]);
    expect(answers.map((answer) => answer.status).sort()).toEqual([202, 422]);
    const same = refundRequest(payment, { amount: '500.00' });
    const repeated = await Promise.all([requestRefund(same), requestRefund(same)]);
    expect(repeated.map((answer) => [answer.status, JSON.parse(answer.body)])).toEqual([
      [202, { providerReference: refundReferenceOf(same.reference) }],
      [202, { providerReference: refundReferenceOf(same.reference) }],
    ]);
    expect(paymentRecord(payment)).toMatchObject({ refundedAmount: '1500.00' });
    expect(paymentRecord(payment).refundReferences).toHaveLength(2);
  });

  it('in another currency than its payment, of nothing, or malformed, is refused with 422', async () => {
    const { providerReference: payment } = await paidPayment();
    const otherCurrency = await requestRefund(refundRequest(payment, { currency: 'AZN' }));
    expect([otherCurrency.status, errorsOf(otherCurrency.body).errors[0]!.field]).toEqual([422, 'currency']);
    const nothing = await requestRefund(refundRequest(payment, { amount: '0.00' }));
    expect([nothing.status, errorsOf(nothing.body).errors[0]!.field]).toEqual([422, 'amount']);
    const { paymentReference: _paymentReference, ...withoutPayment } = refundRequest(payment);
    const malformed = await requestRefund({ ...withoutPayment, reference: 'refund-1', amount: '1.001', reason: 'x'.repeat(501) });
    expect(malformed.status).toBe(422);
    expect(errorsOf(malformed.body).errors.map((error) => error.field)).toEqual(['reference', 'paymentReference', 'amount', 'reason']);
    expect((await h.signed('POST', '/refunds', '{"reference":')).status).toBe(422);
    expect(paymentRecord(payment).refundedAmount).toBeUndefined();
  });

  it("is decided after the delay: refund.confirmed, signed, sent to its payment's notifyUrl", async () => {
    const { providerReference: payment, request: paymentRequest } = await paidPayment();
    const request = refundRequest(payment, { amount: '250.50', reason: 'Returned' });
    const providerReference = await refundOf(request);
    expect(await statusOf(providerReference, 'refunds')).toEqual({ status: 'pending' });
    expect(h.scheduler.held.map(({ job, at }) => [job, at.getTime() - h.clock.read().getTime()])).toEqual([[{ kind: 'decide-refund', providerReference }, 2000]]);

    h.clock.advance(1.9);
    expect(await h.runDue()).toBe(0);
    expect(h.events).toEqual([]);
    h.clock.advance(0.1);
    expect(await h.runDue()).toBe(1);

    expect(h.events).toHaveLength(1);
    const event = h.events[0]!;
    expect(event.url).toBe(paymentRequest.notifyUrl);
    expect(event.headers['webhook-id']).toBe(`${providerReference}:refund.confirmed`);
    expect(verified(h.secret, event)).toEqual(event.json);
    expect(providerEventSchema.parse(event.json)).toEqual({ type: 'refund.confirmed', reference: request.reference, providerReference, amount: '250.50', currency: 'TRY' });
    expect(await statusOf(providerReference, 'refunds')).toEqual({ status: 'confirmed', amount: '250.50' });
    // A repeated request of a decided refund changes nothing and schedules nothing.
    expect((await requestRefund(request)).status).toBe(202);
    expect(h.scheduler.held).toEqual([]);
  });

  it('is decided and sent once, however often its request and its decision are repeated', async () => {
    const { providerReference: payment } = await paidPayment();
    const request = refundRequest(payment);
    const providerReference = await refundOf(request);
    h.clock.advance(1);
    await refundOf(request);
    // Scheduled again, at the time the first request said.
    expect(h.scheduler.held).toHaveLength(2);
    expect(new Set(h.scheduler.held.map(({ at }) => at.toISOString())).size).toBe(1);
    h.clock.advance(1);
    expect(await h.runDue()).toBe(2);
    await h.provider.run({ kind: 'decide-refund', providerReference });
    expect(h.events.map((event) => event.headers['webhook-id'])).toEqual([`${providerReference}:refund.confirmed`]);
  });

  it('is reported decided once due even when its decision never ran (a timer or message lost)', async () => {
    const { providerReference: payment } = await paidPayment();
    const providerReference = await refundOf(refundRequest(payment, { amount: '10.00' }));
    h.scheduler.held.length = 0;
    h.clock.advance(2);
    expect(await statusOf(providerReference, 'refunds')).toEqual({ status: 'confirmed', amount: '10.00' });
  });

  it('waits as long as GATEWAY_PROVIDER_DELAY_S says', async () => {
    h = coreHarness({ utrDecisionDelaySeconds: 30 });
    const { providerReference: payment } = await paidPayment();
    const providerReference = await refundOf(refundRequest(payment));
    h.clock.advance(29);
    expect((await statusOf(providerReference, 'refunds')).status).toBe('pending');
    h.clock.advance(1);
    expect((await statusOf(providerReference, 'refunds')).status).toBe('confirmed');
  });

  it('has its event retried as payment events are, with the same webhook-id and body', async () => {
    const { providerReference: payment } = await paidPayment();
    const providerReference = await refundOf(refundRequest(payment));
    const answers: Array<number | null> = [null, 503, 200];
    h.answer = () => answers.shift()!;
    h.clock.advance(2);
    await h.runDue();
    expect(h.scheduler.held.map(({ job }) => job)).toEqual([{ kind: 'deliver-event', providerReference, attempt: 2, firstAttemptAt: h.clock.read().toISOString() }]);
    h.clock.advance(1);
    await h.runDue();
    h.clock.advance(5);
    await h.runDue();
    expect(h.events.map((event) => [event.headers['webhook-id'], event.body, event.status])).toEqual([
      [`${providerReference}:refund.confirmed`, h.events[0]!.body, null],
      [`${providerReference}:refund.confirmed`, h.events[0]!.body, 503],
      [`${providerReference}:refund.confirmed`, h.events[0]!.body, 200],
    ]);
    expect(h.scheduler.held).toEqual([]);
  });

  it('is read by its own reference only: a payment or payout reference is no refund', async () => {
    const { providerReference: payment } = await paidPayment();
    const refund = await refundOf(refundRequest(payment));
    expect((await h.signed('GET', `/refunds/${payment}`)).status).toBe(404);
    expect((await h.signed('GET', `/payments/${refund}`)).status).toBe(404);
    expect((await h.signed('GET', `/payouts/${refund}`)).status).toBe(404);
    expect((await requestRefund(refundRequest(refund))).status).toBe(404);
    expect((await submitUtr(refund, '412345678901')).status).toBe(404);
  });

  it('counts refunds with exact decimals', () => {
    expect(refundedTotalWith({}, '1500.00', '1500')).toBe('1500.00');
    expect(refundedTotalWith({ refundedAmount: '0.10' }, '0.30', '0.20')).toBe('0.30');
    expect(refundedTotalWith({ refundedAmount: '0.10' }, '0.30', '0.21')).toBeUndefined();
    expect(refundedTotalWith({ refundedAmount: '999999999999999.98' }, '999999999999999.99', '0.01')).toBe('999999999999999.99');
  });
});

describe('the payment page', () => {
  let providerReference: string;
  let request: CreatePaymentRequest;
  beforeEach(async () => {
    ({ providerReference, request } = await createPayment({ currency: 'TRY', method: 'bankpay', amount: '1234567.50', returnUrl: 'https://shop.example/return?a=1&b=2' }));
  });

  it('says it is a demo, shows what is paid, and offers the two choices as a form that works without script', async () => {
    const response = await page(providerReference);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe('text/html; charset=utf-8');
    const body = response.body;
    expect(body).toContain('no real money moves');
    expect(body).toContain('1,234,567.50 TRY');
    expect(body).toContain('Bank transfer');
    expect(body).toContain(providerReference);
    expect(body).toMatch(new RegExp(`<form method="post" action="${providerReference}">`));
    expect(body).toContain('<input type="hidden" name="lang" value="en">');
    expect(body).toContain('<button type="submit" name="outcome" value="confirmed">Simulate successful payment</button>');
    expect(body).toContain('<button type="submit" name="outcome" value="failed" class="fail">Simulate failed payment</button>');
  });

  it("is in the language ?lang= names, else Accept-Language's, else English", async () => {
    const cases: Array<[string, Record<string, string>, string, string]> = [
      ['?lang=tr', {}, 'tr', 'Başarılı ödemeyi simüle et'],
      ['', { 'accept-language': 'hi-IN,hi;q=0.9' }, 'hi', 'सफल भुगतान का सिमुलेशन करें'],
      ['?lang=ur', { 'accept-language': 'tr' }, 'ur', 'کامیاب ادائیگی کی نقل کریں'],
      ['', { 'accept-language': 'az-Latn-AZ' }, 'az', 'Uğurlu ödənişi simulyasiya et'],
      ['?lang=xx', { 'accept-language': 'de' }, 'en', 'Simulate successful payment'],
    ];
    for (const [query, headers, language, button] of cases) {
      const response = await page(providerReference, query, headers);
      expect(response.headers['content-language'], query).toBe(language);
      expect(response.body).toContain(`<html lang="${language}" dir="${language === 'ur' ? 'rtl' : 'ltr'}">`);
      expect(response.body).toContain(button);
      expect(response.body).toContain(`<input type="hidden" name="lang" value="${language}">`);
    }
    expect((await page(providerReference, '?lang=tr')).body).toContain('1.234.567,50 TRY');
  });

  it('loads nothing from anywhere: no script, no external resource, its one style allowed by hash', async () => {
    const { body, headers } = await page(providerReference);
    expect(body).not.toMatch(/<script|<iframe|<object|<embed|<img|\bsrc=|@import|url\(/i);
    expect([...body.matchAll(/<link [^>]*>/g)].map(([link]) => link)).toEqual(['<link rel="icon" href="data:,">']);
    const style = /<style>([\s\S]*?)<\/style>/.exec(body)![1]!;
    const csp = headers['content-security-policy']!;
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain(`style-src 'sha256-${createHash('sha256').update(style).digest('base64')}'`);
    expect(csp).toContain("frame-ancestors 'none'");
    // The form posts here, and its answer is this page again: no other origin is a form's target.
    expect(csp).toContain("form-action 'self';");
    expect(csp).not.toContain('script-src');
    expect(headers).toMatchObject({ 'cache-control': 'no-store', 'referrer-policy': 'no-referrer', 'x-content-type-options': 'nosniff', vary: 'Accept-Language' });
  });

  it('is a whole document: one title, one h1, the language links', async () => {
    const { body } = await page(providerReference);
    expect(body.startsWith('<!doctype html>')).toBe(true);
    expect(body.match(/<title>/g)).toHaveLength(1);
    expect(body.match(/<h1>/g)).toHaveLength(1);
    expect(body.match(/<form /g)).toHaveLength(1);
    expect([...body.matchAll(/href="\?lang=(\w+)"/g)].map(([, code]) => code)).toEqual(['en', 'tr', 'hi', 'ur', 'az']);
    expect(body).toMatch(/<\/main><\/body><\/html>$/);
  });

  it('once decided shows the outcome and the way back to the shop', async () => {
    await choose(providerReference, 'failed');
    const { status, body, headers } = await page(providerReference, '?lang=az');
    expect(status).toBe(200);
    expect(body).toContain('<h1>Ödəniş uğursuz oldu</h1>');
    expect(body).toContain('<a class="button" href="https://shop.example/return?a=1&amp;b=2">Mağazaya qayıt</a>');
    expect(body).not.toContain('<form');
    expect(headers['content-security-policy']).toContain("form-action 'self';");
    expect(request.returnUrl).toBe('https://shop.example/return?a=1&b=2');
  });

  it('of an unknown payment, or of one paid by UTR, is a 404 page in the language asked', async () => {
    const { providerReference: inr } = await createPayment({ currency: 'INR', method: 'p2p' });
    for (const reference of ['pay_000000000000000000000000', inr]) {
      const response = await page(reference, '?lang=tr');
      expect(response.status).toBe(404);
      expect(response.body).toContain('Ödeme bulunamadı');
    }
  });
});

describe('made-up senders', () => {
  it('are the same for a payment every time, and look like accounts of its country', () => {
    const payment = (currency: 'TRY' | 'AZN' | 'PKR' | 'INR') => ({ providerReference: paymentReferenceOf(`${currency}-reference`), currency });
    for (const [currency, pattern] of [
      ['TRY', /^TR\d{24}$/],
      ['AZN', /^AZ\d{2}DEMO\d{20}$/],
      ['PKR', /^PK\d{2}DEMO\d{16}$/],
    ] as const) {
      const { senderIban } = madeUpSenderDetails(payment(currency));
      expect(senderIban).toMatch(pattern);
      expect(isValidIban(senderIban!), senderIban).toBe(true);
      expect(madeUpSenderDetails(payment(currency)).senderIban).toBe(senderIban);
    }
    expect(madeUpSenderDetails(payment('INR'))).toEqual({ senderIban: '', senderAccountNumber: expect.stringMatching(/^\d{12}$/), senderSortCode: expect.stringMatching(/^[A-Z]{4}0\d{6}$/) });
  });
});
