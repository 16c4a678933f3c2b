/**
 * A payment provider that is not the gateway's own, written from the provider protocol alone
 * (docs/provider-protocol.md; docs/provider-protocol.md): plain Node HTTP and HMAC, none of the gateway's code.
 * It serves payments by redirect (TRY, PKR, AZN) or by instructions (INR), takes UTRs, payouts and
 * refunds (or refuses every refund with 501 when a test says it refunds nothing), answers status
 * reads with what a test sets, sends signed events when a test says, and fails on request: a 500,
 * an answer outside the protocol, or silence.
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface PartnerRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  json: any;
  /** The signature verified with the shared secret, within 5 minutes. */
  signed: boolean;
}

/** How the next requests to a path fail: a 500, JSON outside the protocol, or no answer at all. */
export type PartnerFailure = '500' | 'garbage' | 'silence';

export interface PartnerPayment {
  providerReference: string;
  request: any;
  webhookId: string;
  utr?: string;
  /** What a status read answers; `pending` until a test decides. */
  status: { status: 'pending' | 'confirmed' | 'failed'; amount?: string; utr?: string; senderDetails?: Record<string, string> };
}

export interface PartnerPayout {
  providerReference: string;
  request: any;
  webhookId: string;
  status: { status: 'pending' | 'confirmed' | 'failed' };
}

/** A refund as requested; it checks nothing of it (the payment refunded may be one it never made). */
export interface PartnerRefund {
  providerReference: string;
  request: any;
  webhookId: string;
  /** What a status read answers; `pending` until a test decides. */
  status: { status: 'pending' | 'confirmed' | 'failed'; amount?: string };
}

export interface PartnerEventOptions {
  webhookId?: string;
  /** Unix seconds; now by default. */
  timestamp?: number;
  /** Another secret than the shared one: a forgery. */
  secret?: string;
  /** Where to; the payment's or payout's `notifyUrl` by default, the refunded payment's for a refund. */
  to?: string;
}

export interface PartnerProvider {
  url: string;
  secret: string;
  readonly requests: PartnerRequest[];
  readonly payments: Map<string, PartnerPayment>;
  readonly payouts: Map<string, PartnerPayout>;
  readonly refunds: Map<string, PartnerRefund>;
  /** The next `count` requests of this method and path fail so (before the signature is checked, or refunds refused). */
  failNext(method: string, path: string, failure: PartnerFailure, count?: number): void;
  /** Whether it takes refunds from now on; false answers each refund request 501. */
  offerRefunds(offered: boolean): void;
  /** The payment of an invoice. */
  paymentOf(invoiceId: string): PartnerPayment | undefined;
  /** The refund of the gateway's refund transaction. */
  refundOf(refundId: string): PartnerRefund | undefined;
  /** Posts a signed event to the gateway; resolves to its answer. */
  sendEvent(event: Record<string, unknown>, options?: PartnerEventOptions): Promise<{ status: number; body: any }>;
  close(): Promise<void>;
}

const TOLERANCE_SECONDS = 5 * 60;

const keyOf = (secret: string) => Buffer.from(secret.replace(/^whsec_/, ''), 'base64');

export const hmacSignature = (secret: string, id: string, timestamp: number, body: string): string => `v1,${createHmac('sha256', keyOf(secret)).update(`${id}.${timestamp}.${body}`).digest('base64')}`;

/** Standard Webhooks verification, by hand: any `v1,` signature of the header may match. */
export function verifySignature(secret: string, headers: IncomingHttpHeaders | Record<string, string | undefined>, body: string, nowSeconds = Date.now() / 1000): boolean {
  const id = headers['webhook-id'];
  const timestamp = Number(headers['webhook-timestamp']);
  const signatures = String(headers['webhook-signature'] ?? '').split(' ');
  if (typeof id !== 'string' || !Number.isFinite(timestamp) || Math.abs(nowSeconds - timestamp) > TOLERANCE_SECONDS) return false;
  const expected = Buffer.from(hmacSignature(secret, id, timestamp, body));
  return signatures.some((signature) => {
    const given = Buffer.from(signature);
    return given.length === expected.length && timingSafeEqual(given, expected);
  });
}

const sendJson = (status: number, value: unknown) => ({ status, body: JSON.stringify(value) });

export async function startPartnerProvider(): Promise<PartnerProvider> {
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  const requests: PartnerRequest[] = [];
  const payments = new Map<string, PartnerPayment>();
  const payouts = new Map<string, PartnerPayout>();
  const refunds = new Map<string, PartnerRefund>();
  let refundsOffered = true;
  const failures: Array<{ method: string; path: string; failure: PartnerFailure }> = [];
  let sequence = 0;
  let url = '';

  const handle = (request: PartnerRequest): { status: number; body: string } | 'silence' => {
    const failureAt = failures.findIndex((failure) => failure.method === request.method && failure.path === request.path);
    if (failureAt >= 0) {
      const { failure } = failures.splice(failureAt, 1)[0]!;
      if (failure === 'silence') return 'silence';
      return failure === '500' ? sendJson(500, { error: 'down' }) : { status: 200, body: '<html>not json</html>' };
    }
    if (!request.signed) return sendJson(401, { error: 'bad signature' });
    const webhookId = String(request.headers['webhook-id']);
    const [, collection, reference, action] = request.path.split('/');
    if (request.method === 'POST' && request.path === '/payments') {
      // The same request again (same webhook-id, or the same reference) is the same payment.
      const existing = [...payments.values()].find((payment) => payment.webhookId === webhookId || payment.request.reference === request.json.reference);
      const payment = existing ?? { providerReference: `pp-${++sequence}`, request: request.json, webhookId, status: { status: 'pending' as const } };
      payments.set(payment.providerReference, payment);
      const { amount, currency, method } = payment.request;
      return sendJson(
        201,
        ['p2p', 'intent'].includes(method)
          ? {
              providerReference: payment.providerReference,
              instructions: { payee: 'Partner Pay Ltd', upiId: 'partnerpay@upi', accountNumber: '000123456789', bankName: 'Partner Bank', amount, currency, reference: `PP${sequence}` },
            }
          : { providerReference: payment.providerReference, redirectUrl: `${url}/pay/${payment.providerReference}` },
      );
    }
    if (request.method === 'POST' && collection === 'payments' && action === 'utr') {
      const payment = payments.get(reference!);
      if (!payment) return sendJson(404, { error: 'no such payment' });
      payment.utr = request.json.utr;
      return sendJson(202, {});
    }
    if (request.method === 'POST' && request.path === '/payouts') {
      const existing = [...payouts.values()].find((payout) => payout.webhookId === webhookId || payout.request.reference === request.json.reference);
      const payout = existing ?? { providerReference: `po-${++sequence}`, request: request.json, webhookId, status: { status: 'pending' as const } };
      payouts.set(payout.providerReference, payout);
      return sendJson(202, { providerReference: payout.providerReference });
    }
    if (request.method === 'POST' && request.path === '/refunds') {
      if (!refundsOffered) return sendJson(501, { error: 'refunds are not offered' });
      // The same reference again is the same refund, answered the same.
      const existing = [...refunds.values()].find((refund) => refund.webhookId === webhookId || refund.request.reference === request.json.reference);
      const refund = existing ?? { providerReference: `rf-${++sequence}`, request: request.json, webhookId, status: { status: 'pending' as const } };
      refunds.set(refund.providerReference, refund);
      return sendJson(202, { providerReference: refund.providerReference });
    }
    if (request.method === 'GET' && collection === 'payments' && !action) {
      const payment = payments.get(reference!);
      return payment ? sendJson(200, payment.status) : sendJson(404, { error: 'no such payment' });
    }
    if (request.method === 'GET' && collection === 'payouts' && !action) {
      const payout = payouts.get(reference!);
      return payout ? sendJson(200, payout.status) : sendJson(404, { error: 'no such payout' });
    }
    if (request.method === 'GET' && collection === 'refunds' && !action) {
      const refund = refunds.get(reference!);
      return refund ? sendJson(200, refund.status) : sendJson(404, { error: 'no such refund' });
    }
    return sendJson(404, { error: 'no such route' });
  };

  const server: Server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try {
        json = body === '' ? undefined : JSON.parse(body);
      } catch {
        json = undefined;
      }
      const path = (incoming.url ?? '/').split('?')[0]!;
      const request: PartnerRequest = { method: incoming.method ?? 'GET', path, headers: incoming.headers, body, json, signed: verifySignature(secret, incoming.headers, body) };
      requests.push(request);
      const answer = handle(request);
      if (answer === 'silence') return; // Never answered: the gateway's time runs out.
      response.writeHead(answer.status, { 'content-type': 'application/json' });
      response.end(answer.body);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    url,
    secret,
    requests,
    payments,
    payouts,
    refunds,
    failNext(method, path, failure, count = 1) {
      for (let i = 0; i < count; i++) failures.push({ method, path, failure });
    },
    offerRefunds(offered) {
      refundsOffered = offered;
    },
    paymentOf: (invoiceId) => [...payments.values()].find((payment) => payment.request.reference === invoiceId),
    refundOf: (refundId) => [...refunds.values()].find((refund) => refund.request.reference === refundId),
    async sendEvent(event, options = {}) {
      const subject = [...payments.values(), ...payouts.values()].find((candidate) => candidate.request.reference === event.reference);
      // A refund request carries no notifyUrl: its events go where its payment's do.
      const refund = [...refunds.values()].find((candidate) => candidate.request.reference === event.reference);
      const to = options.to ?? subject?.request.notifyUrl ?? (refund && payments.get(refund.request.paymentReference)?.request.notifyUrl);
      if (!to) throw new Error(`No notifyUrl for ${String(event.reference)}`);
      const body = JSON.stringify(event);
      const webhookId = options.webhookId ?? `evt-${++sequence}`;
      const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
      const response = await fetch(to, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'webhook-id': webhookId,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': hmacSignature(options.secret ?? secret, webhookId, timestamp, body),
        },
        body,
      });
      const text = await response.text();
      return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolveClose) => server.close(resolveClose));
    },
  };
}
