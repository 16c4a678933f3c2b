/**
 * The provider port's seam: a partner with an API of its own (its own paths, field names, amounts in
 * minor units and a bearer secret) is reached through a connector of its own kind, registered beside
 * the provider protocol's, and the gateway's side sees the same `PaymentProvider` either way. The
 * partner here is a small HTTP server on loopback; its connector is what a new connector folder
 * under shared/connectors/ holds.
 */
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProviderConfig } from '../../shared/config.js';
import { CONNECTORS, type Connector } from '../../shared/connectors/kinds.js';
import { providerRegistry } from '../../shared/connectors/registry.js';
import { type CreatePaymentRequest, type PaymentProvider, ProviderDoesNotRefund, ProviderUnavailable, type ProviderStatusAnswer } from '../../shared/domain/providers/index.js';

const SECRET = randomBytes(32).toString('base64');

/** The partner's API: charges in minor units, answered only with its bearer secret. */
interface PartnerCharge {
  id: string;
  merchantReference: string;
  amountMinor: number;
  currencyCode: string;
  state: 'PENDING' | 'SUCCEEDED' | 'DECLINED';
}
const charges = new Map<string, PartnerCharge>();
let partner: Server;
let partnerUrl: string;

const bodyOf = async (request: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString('utf8'));
};

beforeAll(async () => {
  partner = createServer(async (request, response) => {
    const answer = (status: number, body: unknown) => response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (request.headers.authorization !== `Bearer ${SECRET}`) return answer(401, { error: 'unauthorized' });
    if (request.method === 'POST' && request.url === '/v1/charges') {
      const { merchantReference, amountMinor, currencyCode } = await bodyOf(request);
      const charge: PartnerCharge = { id: `ch_${charges.size + 1}`, merchantReference, amountMinor, currencyCode, state: 'PENDING' };
      charges.set(charge.id, charge);
      return answer(201, { id: charge.id, hostedUrl: `${partnerUrl}/pay/${charge.id}` });
    }
    const charge = request.method === 'GET' ? charges.get(request.url?.replace('/v1/charges/', '') ?? '') : undefined;
    return charge ? answer(200, charge) : answer(404, { error: 'not found' });
  });
  partner.listen(0, '127.0.0.1');
  await once(partner, 'listening');
  partnerUrl = `http://127.0.0.1:${(partner.address() as AddressInfo).port}`;
});

afterAll(() => partner?.close());

/** The partner's connector: the domain's messages to its API and back. */
const partnerConnector: Connector = ({ id, url, secret }) => {
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${await secret()}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    if (!response.ok) throw new ProviderUnavailable(id, `answered ${response.status}`);
    return response.json();
  };
  const notOffered = async (): Promise<never> => {
    throw new ProviderUnavailable(id, 'not offered by this partner');
  };
  const STATES: Record<PartnerCharge['state'], ProviderStatusAnswer['status']> = { PENDING: 'pending', SUCCEEDED: 'confirmed', DECLINED: 'failed' };
  const provider: PaymentProvider = {
    id,
    async createPayment({ body }) {
      const created = (await call('POST', '/v1/charges', { merchantReference: body.reference, amountMinor: Math.round(Number(body.amount) * 100), currencyCode: body.currency })) as {
        id: string;
        hostedUrl: string;
      };
      return { providerReference: created.id, redirectUrl: created.hostedUrl };
    },
    async paymentStatus(providerReference) {
      const charge = (await call('GET', `/v1/charges/${providerReference}`)) as PartnerCharge;
      return { status: STATES[charge.state], amount: (charge.amountMinor / 100).toFixed(2) };
    },
    forwardUtr: notOffered,
    requestPayout: notOffered,
    payoutStatus: notOffered,
    // Its API refunds nothing: a refund of its payments is refused before anything is reserved.
    requestRefund: async () => {
      throw new ProviderDoesNotRefund(id);
    },
    refundStatus: notOffered,
    readEvent: async () => ({ refused: 'malformed', reason: 'this partner sends no events' }),
  };
  return provider;
};

const METHODS: ProviderConfig['methods'] = [{ currency: 'TRY', method: 'iban', min: '10', max: '50000' }];
const providers = () => [
  { id: 'psp', kind: 'protocol' as const, name: 'PSP', url: 'https://psp.example', priority: 1, methods: METHODS, secret: { kind: 'inline' as const, value: SECRET } },
  { id: 'partner', kind: 'partner-api' as const, name: 'Partner', url: partnerUrl, priority: 2, methods: METHODS, secret: { kind: 'inline' as const, value: SECRET } },
];

const payment: CreatePaymentRequest = {
  reference: '6f1c1c4e-2b9a-4d8e-9f57-0c5b7d7a1f00',
  amount: '125.50',
  currency: 'TRY',
  method: 'iban',
  customer: { id: 'c-1', fullName: null, firstName: null, lastName: null, email: null, phone: null, account: null, country: null },
  returnUrl: 'https://shop.example/return',
  notifyUrl: 'https://gateway.example/api/v2/providers/partner/events',
};

describe('a partner with an API of its own, through a connector of its own kind', () => {
  let registry: ReturnType<typeof providerRegistry>;
  beforeAll(() => {
    const list = providers();
    registry = providerRegistry(() => list, undefined, Date.now, { ...CONNECTORS, 'partner-api': partnerConnector });
  });

  it("is a provider of the stage beside the protocol's, routed alike", () => {
    expect(registry.routes.map(({ id }) => id)).toEqual(['psp', 'partner']);
    expect(registry.get('psp')?.constructor.name).toBe('ProtocolProvider');
    expect(registry.get('partner')?.id).toBe('partner');
  });

  it("opens a payment in the domain's terms, sent in the partner's, and reads its state back", async () => {
    const created = await registry.get('partner')!.createPayment({ webhookId: 'payment:1', body: payment });
    expect(created).toEqual({ providerReference: 'ch_1', redirectUrl: `${partnerUrl}/pay/ch_1` });
    expect(charges.get('ch_1')).toMatchObject({ merchantReference: payment.reference, amountMinor: 12550, currencyCode: 'TRY' });
    expect(await registry.get('partner')!.paymentStatus('ch_1')).toEqual({ status: 'pending', amount: '125.50' });
    charges.get('ch_1')!.state = 'SUCCEEDED';
    expect(await registry.get('partner')!.paymentStatus('ch_1')).toEqual({ status: 'confirmed', amount: '125.50' });
  });

  it('fails as the port says a provider fails: ProviderUnavailable, nothing changed', async () => {
    await expect(registry.get('partner')!.paymentStatus('ch_404')).rejects.toBeInstanceOf(ProviderUnavailable);
    await expect(
      registry
        .get('partner')!
        .requestPayout({ webhookId: 'payout:1', body: { reference: payment.reference, amount: '1.00', currency: 'TRY', recipient: { variant: 'card' }, notifyUrl: payment.notifyUrl } }),
    ).rejects.toBeInstanceOf(ProviderUnavailable);
  });
});
