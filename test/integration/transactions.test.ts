import { randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { config } from '../../shared/config.js';
import { callbackBody } from '../../shared/domain/transactions/transaction-callbacks.js';
import { transactionHash } from '../../shared/domain/transactions/transactions.js';
import { documentClient } from '../../shared/store/dynamo.js';
import { DynamoOutboxStore } from '../../shared/store/outbox.js';
import { DynamoTransactionStore } from '../../shared/store/transactions.js';
import { expireInvoice, invoke, loadFunction } from '../support/invoke.js';
import { seedMerchant, type SeededMerchant } from '../support/merchants.js';

let merchant: SeededMerchant;
let other: SeededMerchant;

beforeAll(async () => {
  [merchant, other] = await Promise.all([seedMerchant({ processingFeePercent: '2' }), seedMerchant()]);
});

const ledger = () => new DynamoTransactionStore(documentClient, config().tables);
const outbox = () => new DynamoOutboxStore(documentClient, config().tables.outbox);

async function createInvoice(fields: Record<string, unknown>, apiKey = merchant.apiKey) {
  const response = await invoke('create-invoice', { apiKey, body: { orderId: randomUUID(), customerId: `c-${randomUUID()}`, ...fields } });
  expect(response.status).toBe(200);
  return response.body.data;
}

const simulate = (body: Record<string, unknown>, apiKey = merchant.apiKey) => invoke('simulate-deposit', { apiKey, body });
const getTransaction = (id: string, apiKey = merchant.apiKey) => invoke('get-transaction', { apiKey, pathParameters: { transactionId: id } });
const getInvoice = async (id: string) => (await invoke('get-invoice', { apiKey: merchant.apiKey, pathParameters: { invoiceId: id } })).body.data;

describe('simulated deposits', () => {
  it('credits a crypto invoice: confirmed transaction, completed invoice, a published callback', async () => {
    const invoice = await createInvoice({ baseCurrency: 'USD', paymentCurrency: 'USDT', amount: 50, applicationId: 'app-7' });
    const response = await simulate({ invoiceId: invoice.id });
    expect(response.status).toBe(200);
    const tx = response.body.data;
    expect(tx).toMatchObject({
      invoiceId: invoice.id,
      type: 'deposit',
      status: 'confirmed',
      amount: '50.000000',
      currency: 'USDT',
      network: 'ethereum',
      transactionHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      customerId: invoice.customerId,
      orderId: invoice.orderId,
      applicationId: 'app-7',
      fees: { processing: '1.000000', technical: null },
      usd: '50.00',
      eur: '46.30',
      info: { exchangeRate: '1', referenceAmount: '50.00', referenceCurrency: 'USD', transactionAmount: '50.000000', transactionCurrency: 'USDT' },
    });
    expect(tx.hash).toBe(transactionHash(tx, merchant.callbackSecret));
    expect((await getTransaction(tx.id)).body).toEqual({ success: true, data: tx });
    expect(await getInvoice(invoice.id)).toMatchObject({ status: 'completed' });

    const entry = await outbox().get(`${tx.id}:confirmed`);
    expect(entry?.publishedAt).toBeTruthy();
    expect(entry).not.toHaveProperty('pendingShard');
    const { createdAt: _c, updatedAt: _u, senderDetails: _s, hash: _h, ...payload } = tx;
    expect(JSON.parse(entry!.payload)).toEqual({ ...payload, callbackType: 'transaction' });
    expect(JSON.parse(callbackBody(entry!, merchant.callbackSecret))).toEqual({ ...payload, hash: tx.hash, callbackType: 'transaction' });
  });

  it('credits a fiat invoice with no network or chain hash, on the network given', async () => {
    const invoice = await createInvoice({ baseCurrency: 'TRY', amount: 1500 });
    const response = await simulate({ invoiceId: invoice.id });
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ amount: '1500.00', currency: 'TRY', network: null, transactionHash: null, status: 'confirmed' });

    const usdc = await createInvoice({ baseCurrency: 'USDC', amount: 10 });
    const onTron = await simulate({ invoiceId: usdc.id, network: 'tron' });
    expect(onTron.body.data).toMatchObject({ network: 'tron', transactionHash: expect.stringMatching(/^[0-9a-f]{64}$/) });
  });

  it('records a failed fiat payment and cancels the invoice as rejected', async () => {
    const invoice = await createInvoice({ baseCurrency: 'TRY', amount: 1500 });
    const response = await simulate({ invoiceId: invoice.id, status: 'failed' });
    expect(response.body.data.status).toBe('failed');
    expect(await getInvoice(invoice.id)).toMatchObject({ status: 'canceled', cancelReason: 'rejected' });
    expect(await outbox().get(`${response.body.data.id}:failed`)).toBeDefined();
  });

  it.each([
    ['a currency of the other family', { currency: 'TRY' }, 'currency'],
    ['an unknown currency', { currency: 'XYZ' }, 'currency'],
    ['a network the invoice does not offer', { network: 'bitcoin' }, 'network'],
    ['a negative amount', { amount: -1 }, 'amount'],
    ['too many decimals', { amount: '1.0000001' }, 'amount'],
    ['an unknown status', { status: 'pending' }, 'status'],
  ])('refuses %s with 422, storing nothing', async (_name, change, field) => {
    const invoice = await createInvoice({ baseCurrency: 'USDT', amount: 10 });
    const response = await simulate({ invoiceId: invoice.id, ...change });
    expect(response.status).toBe(422);
    expect(response.body.errors[0]).toMatchObject({ code: 'unprocessable_content', field });
    expect(await ledger().listByInvoice(invoice.id)).toEqual([]);
    expect(await getInvoice(invoice.id)).toMatchObject({ status: 'created' });
  });

  it("answers 404 for another merchant's invoice, changing nothing", async () => {
    const invoice = await createInvoice({ baseCurrency: 'USDT', amount: 10 }, other.apiKey);
    const response = await simulate({ invoiceId: invoice.id });
    expect(response.status).toBe(404);
    expect(await ledger().listByInvoice(invoice.id)).toEqual([]);
  });

  it('takes one payment per fiat invoice: a second is a 409', async () => {
    const invoice = await createInvoice({ baseCurrency: 'INR', amount: 1000 });
    expect((await simulate({ invoiceId: invoice.id })).status).toBe(200);
    const again = await simulate({ invoiceId: invoice.id });
    expect(again.status).toBe(409);
    expect(await ledger().listByInvoice(invoice.id)).toHaveLength(1);
  });
});

describe('payment accounting (docs/merchant-guide.md#how-payments-are-counted)', () => {
  const view = (invoice: Record<string, unknown>) => ({
    status: invoice.status,
    paidAmount: invoice.paidAmount,
    paymentStatus: invoice.paymentStatus,
    transactionIds: invoice.transactionIds,
    completedAt: invoice.completedAt,
  });

  it('starts unpaid with nothing recorded', async () => {
    const invoice = await createInvoice({ baseCurrency: 'USDT', amount: 25 });
    expect(view(invoice)).toEqual({ status: 'created', paidAmount: '0.000000', paymentStatus: 'unpaid', transactionIds: [], completedAt: null });
  });

  it('keeps a partly paid invoice open, completes it with the deposit that pays it in full, and calls back each deposit', async () => {
    const invoice = await createInvoice({ baseCurrency: 'USDT', amount: 25 });
    const first = (await simulate({ invoiceId: invoice.id, amount: 10 })).body.data;
    expect(first).toMatchObject({ status: 'confirmed', amount: '10.000000' });
    expect(view(await getInvoice(invoice.id))).toEqual({ status: 'created', paidAmount: '10.000000', paymentStatus: 'partial', transactionIds: [first.id], completedAt: null });

    const second = (await simulate({ invoiceId: invoice.id, amount: '15' })).body.data;
    const completed = await getInvoice(invoice.id);
    expect(view(completed)).toEqual({ status: 'completed', paidAmount: '25.000000', paymentStatus: 'paid', transactionIds: [first.id, second.id], completedAt: expect.any(String) });
    for (const deposit of [first, second]) expect(await outbox().get(`${deposit.id}:confirmed`)).toBeDefined();

    const extra = (await simulate({ invoiceId: invoice.id, amount: 1 })).body.data;
    expect(view(await getInvoice(invoice.id))).toMatchObject({
      status: 'completed',
      paidAmount: '26.000000',
      paymentStatus: 'overpaid',
      transactionIds: [first.id, second.id, extra.id],
      completedAt: completed.completedAt,
    });
  });

  it('completes an overpaid invoice at once', async () => {
    const invoice = await createInvoice({ baseCurrency: 'USDT', amount: 25 });
    await simulate({ invoiceId: invoice.id, amount: 30 });
    expect(await getInvoice(invoice.id)).toMatchObject({ status: 'completed', paidAmount: '30.000000', paymentStatus: 'overpaid' });
  });

  it('records a deposit in another currency on the invoice, valued at its own rates, without paying it', async () => {
    const invoice = await createInvoice({ baseCurrency: 'USDT', amount: 25 });
    const response = await simulate({ invoiceId: invoice.id, amount: 25, currency: 'USDC' });
    expect(response.status).toBe(200);
    expect(response.body.data).toMatchObject({ currency: 'USDC', amount: '25.000000', network: 'ethereum', usd: '25.00' });
    expect(view(await getInvoice(invoice.id))).toEqual({ status: 'created', paidAmount: '0.000000', paymentStatus: 'unpaid', transactionIds: [response.body.data.id], completedAt: null });
    expect(await outbox().get(`${response.body.data.id}:confirmed`)).toBeDefined();
  });

  it('takes several partial payments on a fiat invoice until it is paid, then refuses more', async () => {
    const invoice = await createInvoice({ baseCurrency: 'INR', amount: 1000 });
    expect((await simulate({ invoiceId: invoice.id, amount: 400 })).status).toBe(200);
    expect(await getInvoice(invoice.id)).toMatchObject({ status: 'created', paymentStatus: 'partial', paidAmount: '400.00' });
    expect((await simulate({ invoiceId: invoice.id, amount: 600 })).status).toBe(200);
    expect(await getInvoice(invoice.id)).toMatchObject({ status: 'completed', paymentStatus: 'paid', paidAmount: '1000.00' });
    expect((await simulate({ invoiceId: invoice.id, amount: 1 })).status).toBe(409);
  });

  it('counts every one of 20 concurrent partial deposits exactly once', async () => {
    const invoice = await createInvoice({ baseCurrency: 'USDT', amount: 25 });
    const responses = await Promise.all(Array.from({ length: 20 }, () => simulate({ invoiceId: invoice.id, amount: '1.25' })));
    const accepted = responses.filter((r) => r.status === 200).map((r) => r.body.data.id);
    // A deposit that lost every race is refused whole (409): no money is half-recorded.
    for (const refused of responses.filter((r) => r.status !== 200)) expect(refused.status).toBe(409);
    const stored = await getInvoice(invoice.id);
    expect(new Set(stored.transactionIds)).toEqual(new Set(accepted));
    expect(stored.paidAmount).toBe((accepted.length * 1.25).toFixed(6));
    expect(stored.status).toBe(accepted.length === 20 ? 'completed' : 'created');
    expect(await ledger().listByInvoice(invoice.id)).toHaveLength(accepted.length);
  });
});

describe('expiry', () => {
  it('cancels a lapsed invoice; a fiat deposit is then refused with 410 and nothing changes', async () => {
    const invoice = await createInvoice({ baseCurrency: 'TRY', amount: 1500 });
    await expireInvoice(invoice.id);
    expect(await getInvoice(invoice.id)).toMatchObject({ status: 'canceled', cancelReason: 'expired' });
    // The sweep moved it between the merchant's status listings too, knowing its owner from the expiry index alone.
    const listed = async (status: string) =>
      (await invoke('list-invoices', { apiKey: merchant.apiKey, query: { status, customerId: invoice.customerId } })).body.data.items.map((i: { id: string }) => i.id);
    expect(await listed('canceled')).toEqual([invoice.id]);
    expect(await listed('created')).toEqual([]);
    const response = await simulate({ invoiceId: invoice.id });
    expect(response.status).toBe(410);
    expect(response.body.errors[0].code).toBe('gone');
    expect(await ledger().listByInvoice(invoice.id)).toEqual([]);
  });

  it('credits a crypto deposit that arrives after cancellation, marking the invoice paid late', async () => {
    const invoice = await createInvoice({ baseCurrency: 'ETH', amount: 0.01 });
    await expireInvoice(invoice.id);
    const response = await simulate({ invoiceId: invoice.id });
    expect(response.status).toBe(200);
    expect(response.body.data.status).toBe('confirmed');
    expect(await getInvoice(invoice.id)).toMatchObject({ status: 'completed', paidLate: true });
  });

  it('never loses a payment that races the sweep', async () => {
    const invoices = await Promise.all(Array.from({ length: 8 }, (_, i) => createInvoice(i % 2 ? { baseCurrency: 'TRY', amount: 1500 } : { baseCurrency: 'USDT', amount: 10 })));
    await Promise.all(
      invoices.map((invoice) =>
        documentClient.send(
          new UpdateCommand({
            TableName: config().tables.invoices,
            Key: { id: invoice.id },
            UpdateExpression: 'SET expiresAt = :past',
            ExpressionAttributeValues: { ':past': new Date(Date.now() - 1000).toISOString() },
          }),
        ),
      ),
    );
    const expireInvoices = (await loadFunction('expire-invoices'))!;
    const [, ...deposits] = await Promise.all([expireInvoices({} as never, {} as never), ...invoices.map((invoice) => simulate({ invoiceId: invoice.id }))]);
    for (const [i, invoice] of invoices.entries()) {
      const final = await getInvoice(invoice.id);
      const transactions = await ledger().listByInvoice(invoice.id);
      if (invoice.paymentMethod === 'crypto') {
        expect(deposits[i]!.status).toBe(200);
        expect(final.status).toBe('completed');
      } else if (deposits[i]!.status === 200) {
        expect(final).toMatchObject({ status: 'completed' });
      } else {
        expect(deposits[i]!.status).toBe(410);
        expect(final).toMatchObject({ status: 'canceled', cancelReason: 'expired' });
      }
      expect(transactions).toHaveLength(deposits[i]!.status === 200 ? 1 : 0);
    }
  });
});

describe('GET /api/v2/transaction/{id}', () => {
  it.each([
    ['another merchant', async (id: string) => getTransaction(id, other.apiKey)],
    ['an unknown id', async () => getTransaction(randomUUID())],
    ['an id that is not a UUID', async () => getTransaction('42')],
  ])('answers 404 for %s', async (_name, fetch) => {
    const invoice = await createInvoice({ baseCurrency: 'USDT', amount: 10 });
    const tx = (await simulate({ invoiceId: invoice.id })).body.data;
    const response = await fetch(tx.id);
    expect(response.status).toBe(404);
    expect(response.body).toEqual({ success: false, errors: [{ code: 'not_found', message: 'Transaction not found' }] });
  });
});

describe('simulated withdrawals', () => {
  it('refuses a deposit transaction (422) and an unknown one (404)', async () => {
    const invoice = await createInvoice({ baseCurrency: 'USDT', amount: 10 });
    const tx = (await simulate({ invoiceId: invoice.id })).body.data;
    const wrongType = await invoke('simulate-withdrawal', { apiKey: merchant.apiKey, body: { transactionId: tx.id, status: 'confirmed' } });
    expect(wrongType.status).toBe(422);
    expect(wrongType.body.errors[0].field).toBe('transactionId');
    const unknown = await invoke('simulate-withdrawal', { apiKey: merchant.apiKey, body: { transactionId: randomUUID(), status: 'failed' } });
    expect(unknown.status).toBe(404);
  });
});
