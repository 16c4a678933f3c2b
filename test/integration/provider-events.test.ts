/**
 * `POST /api/v2/providers/{providerId}/events` (docs/provider-protocol.md#provider-to-gateway-events) through the API Gateway emulation:
 * the signature first, then the reference, then the outcome, counted by docs/merchant-guide.md#how-payments-are-counted. The
 * payments and payouts are made at the run's demo provider; the events are signed here with its
 * secret, as it signs them.
 */
import { randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { config } from '../../shared/config.js';
import { documentClient } from '../../shared/store/dynamo.js';
import { DynamoInvoiceStore } from '../../shared/store/invoices.js';
import { DynamoOutboxStore } from '../../shared/store/outbox.js';
import { DynamoTransactionStore } from '../../shared/store/transactions.js';
import { invoke, request } from '../support/invoke.js';
import { fundBalance } from '../support/balances.js';
import { seedMerchant, type SeededMerchant } from '../support/merchants.js';
import { configuredProvider, sendProviderEvent } from '../support/providers.js';

let merchant: SeededMerchant;

beforeAll(async () => {
  merchant = await seedMerchant();
  await fundBalance(merchant.merchant.id, 'TRY', '100000');
});

const invoices = () => new DynamoInvoiceStore(documentClient, config().tables);
const ledger = () => new DynamoTransactionStore(documentClient, config().tables);
const outbox = () => new DynamoOutboxStore(documentClient, config().tables.outbox);

/** A TRY wallet invoice with its payment at the demo provider, made as the checkout makes it. */
async function paymentAtProvider(amount = 1000) {
  const created = await invoke('create-invoice', {
    apiKey: merchant.apiKey,
    body: { orderId: randomUUID(), customerId: `c-${randomUUID()}`, baseCurrency: 'TRY', amount, paymentMethod: 'wallet', customerFullName: 'Ada Lovelace' },
  });
  expect(created.status).toBe(200);
  const opened = await request('GET', `/checkout/${created.body.data.id}/provider`);
  expect(opened.status).toBe(303);
  expect(opened.headers.location).toMatch(new RegExp(`^${configuredProvider().url}/pay/pay_`));
  const invoice = (await invoices().get(created.body.data.id))!;
  return { invoice, providerReference: invoice.providerPayment!.providerReference };
}

const confirmedEvent = (invoiceId: string, providerReference: string, amount = '1000.00') => ({
  type: 'payment.confirmed',
  reference: invoiceId,
  providerReference,
  amount,
  currency: 'TRY',
  senderDetails: { senderIban: 'TR330006100519786457841326', senderAccountNumber: '', senderSortCode: '' },
});

const view = async (invoiceId: string) => (await invoke('get-invoice', { apiKey: merchant.apiKey, pathParameters: { invoiceId } })).body.data;

describe('a payment confirmed by its provider', () => {
  it('is a confirmed deposit with the sender the provider names, which completes the invoice and owes the callback', async () => {
    const { invoice, providerReference } = await paymentAtProvider();
    const answer = await sendProviderEvent(confirmedEvent(invoice.id, providerReference));
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answer.body).toEqual({ success: true, data: { received: true } });

    const [deposit] = await ledger().listByInvoice(invoice.id);
    expect(deposit).toMatchObject({ type: 'deposit', status: 'confirmed', amount: '1000.00', currency: 'TRY' });
    const transaction = await invoke('get-transaction', { apiKey: merchant.apiKey, pathParameters: { transactionId: deposit!.id } });
    expect(transaction.body.data.senderDetails).toEqual({ senderIban: 'TR330006100519786457841326', senderAccountNumber: '', senderSortCode: '' });
    expect(await view(invoice.id)).toMatchObject({ status: 'completed', paymentStatus: 'paid' });
    expect(await outbox().get(`${deposit!.id}:confirmed`)).toBeDefined();
    // The reconciliation no longer asks about it.
    expect((await invoices().awaitingProvider('demo')).map((waiting) => waiting.id)).not.toContain(invoice.id);
  });

  it('answers the same webhook-id, or the same outcome again, with 200 and changes nothing', async () => {
    const { invoice, providerReference } = await paymentAtProvider();
    const event = confirmedEvent(invoice.id, providerReference);
    const webhookId = `evt_${randomUUID()}`;
    for (const options of [{ webhookId }, { webhookId }, {}]) expect((await sendProviderEvent(event, options)).status).toBe(200);
    expect(await ledger().listByInvoice(invoice.id)).toHaveLength(1);
  });

  it('counts what arrived: less than asked leaves the invoice open and partly paid, more overpays it', async () => {
    const partial = await paymentAtProvider();
    expect((await sendProviderEvent(confirmedEvent(partial.invoice.id, partial.providerReference, '400.00'))).status).toBe(200);
    expect(await view(partial.invoice.id)).toMatchObject({ status: 'active', paymentStatus: 'partial', paidAmount: '400.00' });

    const over = await paymentAtProvider();
    expect((await sendProviderEvent(confirmedEvent(over.invoice.id, over.providerReference, '1200.00'))).status).toBe(200);
    expect(await view(over.invoice.id)).toMatchObject({ status: 'completed', paymentStatus: 'overpaid', paidAmount: '1200.00' });
  });

  it('is credited when it arrives after the invoice expired: the money moved (docs/merchant-guide.md#invoice-lifecycle)', async () => {
    const { invoice, providerReference } = await paymentAtProvider();
    await documentClient.send(
      new UpdateCommand({
        TableName: config().tables.invoices,
        Key: { id: invoice.id },
        UpdateExpression: 'SET #status = :canceled, cancelReason = :expired, merchantStatus = :key',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':canceled': 'canceled', ':expired': 'expired', ':key': JSON.stringify([merchant.merchant.id, 'canceled']) },
      }),
    );
    expect((await sendProviderEvent(confirmedEvent(invoice.id, providerReference))).status).toBe(200);
    expect(await view(invoice.id)).toMatchObject({ status: 'completed', paidLate: true });
  });

  it('contradicted later is a 409 that changes nothing: failed, or confirmed for another amount', async () => {
    const { invoice, providerReference } = await paymentAtProvider();
    await sendProviderEvent(confirmedEvent(invoice.id, providerReference));
    const failed = await sendProviderEvent({ type: 'payment.failed', reference: invoice.id, providerReference, amount: '1000.00', currency: 'TRY', reason: 'declined' });
    expect(failed.status).toBe(409);
    expect(failed.body.errors[0].code).toBe('conflict');
    expect((await sendProviderEvent(confirmedEvent(invoice.id, providerReference, '999.00'))).status).toBe(409);
    expect(await ledger().listByInvoice(invoice.id)).toMatchObject([{ status: 'confirmed', amount: '1000.00' }]);
  });
});

describe('a payment failed by its provider', () => {
  it('is a failed deposit that cancels the open invoice as rejected, and owes the callback', async () => {
    const { invoice, providerReference } = await paymentAtProvider();
    const answer = await sendProviderEvent({ type: 'payment.failed', reference: invoice.id, providerReference, amount: '1000.00', currency: 'TRY', reason: 'declined' });
    expect(answer.status).toBe(200);
    const [deposit] = await ledger().listByInvoice(invoice.id);
    expect(deposit).toMatchObject({ status: 'failed' });
    expect(await view(invoice.id)).toMatchObject({ status: 'canceled', cancelReason: 'rejected' });
    expect(await outbox().get(`${deposit!.id}:failed`)).toBeDefined();
  });
});

describe('events refused, changing nothing', () => {
  it('401 when the signature is missing, forged or more than 5 minutes old; before anything is read', async () => {
    const { invoice, providerReference } = await paymentAtProvider();
    const event = confirmedEvent(invoice.id, providerReference);
    const forged = await sendProviderEvent(event, { secret: `whsec_${Buffer.alloc(32, 9).toString('base64')}` });
    expect(forged.status).toBe(401);
    expect(forged.body.errors[0].code).toBe('unauthorized');
    expect((await sendProviderEvent(event, { at: new Date(Date.now() - 6 * 60_000) })).status).toBe(401);
    const unsigned = await invoke('receive-provider-event', { pathParameters: { providerId: 'demo' }, body: event });
    expect(unsigned.status).toBe(401);
    // A body that is not even JSON, unsigned: refused for its signature, not its shape.
    expect((await invoke('receive-provider-event', { pathParameters: { providerId: 'demo' }, body: '{nope', headers: { 'content-type': 'application/json' } })).status).toBe(401);
    expect(await ledger().listByInvoice(invoice.id)).toEqual([]);
  });

  it("404 for an unknown provider, an unknown reference, or a provider reference that is not the payment's", async () => {
    const { invoice, providerReference } = await paymentAtProvider();
    expect((await sendProviderEvent(confirmedEvent(invoice.id, providerReference), { providerId: 'nobody', secret: configuredProvider().secret })).status).toBe(404);
    expect((await sendProviderEvent(confirmedEvent(randomUUID(), providerReference))).status).toBe(404);
    expect((await sendProviderEvent(confirmedEvent('not-a-uuid', providerReference))).status).toBe(404);
    expect((await sendProviderEvent(confirmedEvent(invoice.id, 'pay_someone_else'))).status).toBe(404);
    expect(await ledger().listByInvoice(invoice.id)).toEqual([]);
  });

  it('422 for a signed body that is not an event, or an event in another currency than the payment', async () => {
    const { invoice, providerReference } = await paymentAtProvider();
    const malformed = await sendProviderEvent({ type: 'payment.maybe', reference: invoice.id });
    expect(malformed.status).toBe(422);
    expect((await sendProviderEvent({ ...confirmedEvent(invoice.id, providerReference), currency: 'PKR' })).status).toBe(422);
    expect(await ledger().listByInvoice(invoice.id)).toEqual([]);
  });
});

describe('a payout decided by its provider', () => {
  async function payout() {
    const response = await invoke('create-withdrawal', {
      apiKey: merchant.apiKey,
      body: { customerId: 'cust-9', amount: '2500.00', currency: 'TRY', cardNumber: '4111111111111111', cardHolderName: 'Ada Lovelace' },
    });
    expect(response.status).toBe(200);
    return (await ledger().get(response.body.data.id))!;
  }

  it('settles the withdrawal, owes its callback, and refuses a contradiction with 409', async () => {
    const withdrawal = await payout();
    const event = { type: 'payout.confirmed', reference: withdrawal.id, providerReference: withdrawal.provider!.reference!, amount: '2500.00', currency: 'TRY' };
    expect((await sendProviderEvent(event)).status).toBe(200);
    expect(await ledger().get(withdrawal.id)).toMatchObject({ status: 'confirmed' });
    expect(await outbox().get(`${withdrawal.id}:confirmed`)).toBeDefined();
    expect((await sendProviderEvent(event)).status).toBe(200);
    expect((await sendProviderEvent({ ...event, type: 'payout.failed', reason: 'returned' })).status).toBe(409);
  });

  it("404 for another payout's reference", async () => {
    const withdrawal = await payout();
    expect((await sendProviderEvent({ type: 'payout.failed', reference: withdrawal.id, providerReference: 'po_other', amount: '2500.00', currency: 'TRY' })).status).toBe(404);
    expect(await ledger().get(withdrawal.id)).toMatchObject({ status: 'processing' });
  });
});
