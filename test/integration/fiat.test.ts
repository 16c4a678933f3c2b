import { randomUUID } from 'node:crypto';
import { ScanCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { config } from '../../shared/config.js';
import { RECEIPT_MAX_BYTES } from '../../shared/domain/invoicing/deposit-confirmation.js';
import { documentClient } from '../../shared/store/dynamo.js';
import { DynamoInvoiceStore } from '../../shared/store/invoices.js';
import { DynamoOutboxStore } from '../../shared/store/outbox.js';
import { DynamoTransactionStore } from '../../shared/store/transactions.js';
import { TABLE_KEYS } from '../../shared/store/tables.js';
import { fundBalance } from '../support/balances.js';
import { invoke } from '../support/invoke.js';
import { seedMerchant, type SeededMerchant } from '../support/merchants.js';
import { settleProviderDecisions } from '../support/providers.js';

let merchant: SeededMerchant;
let other: SeededMerchant;

beforeAll(async () => {
  [merchant, other] = await Promise.all([seedMerchant(), seedMerchant()]);
});

const ledger = () => new DynamoTransactionStore(documentClient, config().tables);
const outbox = () => new DynamoOutboxStore(documentClient, config().tables.outbox);
const invoices = () => new DynamoInvoiceStore(documentClient, config().tables);
const utr = () => `U${randomUUID().replace(/-/g, '').slice(0, 15)}`.toUpperCase();
const PDF = Buffer.from('%PDF-1.4\n1 0 obj\n<<>>\nendobj\n');
/** A PDF padded to exactly `bytes` bytes. */
const pdfOfSize = (bytes: number) => Buffer.concat([PDF, Buffer.alloc(bytes - PDF.length, ' ')]);

async function createInvoice(fields: Record<string, unknown> = {}, apiKey = merchant.apiKey) {
  const response = await invoke('create-invoice', {
    apiKey,
    body: { orderId: randomUUID(), customerId: `c-${randomUUID()}`, baseCurrency: 'INR', amount: 1000, ...fields },
  });
  expect(response.status).toBe(200);
  return response.body.data;
}

const confirm = (body: Record<string, unknown>, apiKey = merchant.apiKey) => invoke('confirm-deposit', { apiKey, body });
const invoiceStatus = async (id: string) => (await invoke('get-invoice', { apiKey: merchant.apiKey, pathParameters: { invoiceId: id } })).body.data;

describe('POST /api/v2/gateway9/deposit/confirm', () => {
  it('accepts a UTR: a processing deposit exists, then the provider confirms it and the invoice completes', async () => {
    const invoice = await createInvoice();
    const reference = utr().toLowerCase();
    const response = await confirm({ invoiceId: invoice.id, utr: reference, receipt_file: PDF.toString('base64'), receipt_file_extension: 'pdf', receipt_file_name: 'bank.pdf' });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ success: true, data: 'Deposit confirmation accepted' });
    const [processing] = await ledger().listByInvoice(invoice.id);
    expect(processing).toMatchObject({ type: 'deposit', status: 'processing', amount: '1000.00', currency: 'INR', utr: reference.toUpperCase() });
    expect((processing as unknown as { receipt: { reference: string } }).receipt.reference).toMatch(/\.sealed$/);
    // The invoice got its payment at the demo provider, which took the UTR.
    const payment = (await invoices().get(invoice.id))!.providerPayment!;
    expect(payment).toMatchObject({ providerId: 'demo', providerReference: expect.stringMatching(/^pay_/), instructions: { payee: 'Demo Payments', currency: 'INR', amount: '1000.00' } });
    expect(processing!.provider).toEqual({ id: 'demo', reference: payment.providerReference, requestedAt: expect.any(String) });

    await settleProviderDecisions();
    const [settled] = await ledger().listByInvoice(invoice.id);
    expect(settled!.status).toBe('confirmed');
    expect(await invoiceStatus(invoice.id)).toMatchObject({ status: 'completed' });
    expect(await outbox().get(`${settled!.id}:confirmed`)).toBeDefined();
  });

  it('accepts a receipt of exactly RECEIPT_MAX_BYTES, the largest there is', async () => {
    const invoice = await createInvoice();
    const response = await confirm({ invoiceId: invoice.id, utr: utr(), receipt_file: pdfOfSize(RECEIPT_MAX_BYTES).toString('base64'), receipt_file_extension: 'pdf' });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(await ledger().listByInvoice(invoice.id)).toHaveLength(1);
  });

  it('refuses a receipt one byte larger by its decoded size, and a body over the route limit at the gateway, changing nothing', async () => {
    const invoice = await createInvoice();
    const oneOver = await confirm({ invoiceId: invoice.id, utr: utr(), receipt_file: pdfOfSize(RECEIPT_MAX_BYTES + 1).toString('base64'), receipt_file_extension: 'pdf' });
    expect(oneOver.status).toBe(413);
    expect(oneOver.body.errors).toEqual([{ code: 'payload_too_large', message: `The receipt exceeds ${RECEIPT_MAX_BYTES} bytes` }]);
    const overLimit = await confirm({ invoiceId: invoice.id, utr: utr(), receipt_file: pdfOfSize(3 * 1024 * 1024).toString('base64'), receipt_file_extension: 'pdf' });
    expect(overLimit.status).toBe(413);
    expect(overLimit.body.errors).toEqual([{ code: 'payload_too_large', message: 'Request body too large' }]);
    expect(await ledger().listByInvoice(invoice.id)).toEqual([]);
  });

  it('ends a UTR starting with 000 as failed, cancels the invoice as rejected, and owes the callback', async () => {
    const invoice = await createInvoice();
    expect((await confirm({ invoiceId: invoice.id, utr: `000${utr().slice(3)}` })).status).toBe(200);
    await settleProviderDecisions();
    const [failed] = await ledger().listByInvoice(invoice.id);
    expect(failed!.status).toBe('failed');
    expect(await invoiceStatus(invoice.id)).toMatchObject({ status: 'canceled', cancelReason: 'rejected' });
    const entry = await outbox().get(`${failed!.id}:failed`);
    expect(JSON.parse(entry!.payload)).toMatchObject({ id: failed!.id, type: 'deposit', status: 'failed', callbackType: 'transaction' });
  });

  it('releases a rejected UTR for another invoice, and still answers the rejected invoice and UTR again with 200', async () => {
    const rejected = await createInvoice();
    const reference = `000${utr().slice(3)}`;
    expect((await confirm({ invoiceId: rejected.id, utr: reference })).status).toBe(200);
    const another = await createInvoice();
    expect((await confirm({ invoiceId: another.id, utr: reference })).body.errors[0].code).toBe('db_unique_violation');
    await settleProviderDecisions();
    expect(await invoiceStatus(rejected.id)).toMatchObject({ status: 'canceled', cancelReason: 'rejected' });

    expect((await confirm({ invoiceId: rejected.id, utr: reference })).status).toBe(200);
    expect(await ledger().listByInvoice(rejected.id)).toHaveLength(1);
    const reused = await confirm({ invoiceId: another.id, utr: reference });
    expect(reused.status, JSON.stringify(reused.body)).toBe(200);
    expect(await ledger().listByInvoice(another.id)).toMatchObject([{ status: 'processing', utr: reference }]);
    // Taken again, the UTR is refused to a third invoice, as any UTR under review is.
    expect((await confirm({ invoiceId: (await createInvoice()).id, utr: reference })).body.errors[0].code).toBe('db_unique_violation');
  });

  it('answers the same invoice and UTR again with 200, whatever happened since', async () => {
    const invoice = await createInvoice();
    const reference = utr();
    await confirm({ invoiceId: invoice.id, utr: reference });
    await settleProviderDecisions();
    const again = await confirm({ invoiceId: invoice.id, utr: reference.toLowerCase() });
    expect(again.status).toBe(200);
    expect(await ledger().listByInvoice(invoice.id)).toHaveLength(1);
  });

  describe('refusals change nothing', () => {
    it.each([
      ['an unknown property', () => ({ amount: 5 }), 422, 'unprocessable_content', 'amount'],
      ['a UTR of 11 characters', () => ({ utr: 'ABCDEFGHIJK' }), 422, 'unprocessable_content', 'utr'],
      ['a UTR with a dash', () => ({ utr: 'ABCDEF-123456' }), 422, 'unprocessable_content', 'utr'],
      [
        'a receipt that is not what its extension says',
        () => ({ receipt_file: Buffer.from('GIF89a....').toString('base64'), receipt_file_extension: 'png' }),
        422,
        'unprocessable_content',
        'receipt_file',
      ],
    ])('%s: %i %s', async (_name, change, status, code, field) => {
      const invoice = await createInvoice();
      const response = await confirm({ invoiceId: invoice.id, utr: utr(), ...change() });
      expect(response.status).toBe(status);
      expect(response.body.errors[0]).toMatchObject({ code, ...(field ? { field } : {}) });
      expect(await ledger().listByInvoice(invoice.id)).toEqual([]);
    });

    it('404 for an unknown invoice or another merchant', async () => {
      const theirs = await createInvoice({}, other.apiKey);
      for (const invoiceId of [randomUUID(), 'not-a-uuid', theirs.id]) {
        const response = await confirm({ invoiceId, utr: utr() });
        expect(response.status).toBe(404);
        expect(response.body.errors[0].code).toBe('not_found');
      }
      expect(await ledger().listByInvoice(theirs.id)).toEqual([]);
    });

    it('422 on invoiceId for an invoice that is not INR', async () => {
      const invoice = await createInvoice({ baseCurrency: 'TRY', amount: 1500 });
      const response = await confirm({ invoiceId: invoice.id, utr: utr() });
      expect(response.status).toBe(422);
      expect(response.body.errors[0]).toMatchObject({ field: 'invoiceId' });
      expect(await ledger().listByInvoice(invoice.id)).toEqual([]);
    });

    it('410 for a canceled invoice and 409 for a completed one', async () => {
      const canceled = await createInvoice();
      await documentClient.send(
        new UpdateCommand({
          TableName: config().tables.invoices,
          Key: { id: canceled.id },
          UpdateExpression: 'SET #s = :c, cancelReason = :e',
          ExpressionAttributeNames: { '#s': 'status' },
          ExpressionAttributeValues: { ':c': 'canceled', ':e': 'expired' },
        }),
      );
      const gone = await confirm({ invoiceId: canceled.id, utr: utr() });
      expect(gone.status).toBe(410);
      expect(gone.body.errors[0].code).toBe('gone');

      const paid = await createInvoice();
      expect((await invoke('simulate-deposit', { apiKey: merchant.apiKey, body: { invoiceId: paid.id } })).status).toBe(200);
      const conflict = await confirm({ invoiceId: paid.id, utr: utr() });
      expect(conflict.status).toBe(409);
      expect(conflict.body.errors[0].code).toBe('conflict');
      expect(await ledger().listByInvoice(canceled.id)).toEqual([]);
      expect(await ledger().listByInvoice(paid.id)).toHaveLength(1);
    });

    it('409 db_unique_violation for a UTR another invoice used, of any merchant', async () => {
      const reference = utr();
      const first = await createInvoice({}, other.apiKey);
      expect((await confirm({ invoiceId: first.id, utr: reference }, other.apiKey)).status).toBe(200);
      const second = await createInvoice();
      const response = await confirm({ invoiceId: second.id, utr: reference });
      expect(response.status).toBe(409);
      expect(response.body.errors[0].code).toBe('db_unique_violation');
      expect(await ledger().listByInvoice(second.id)).toEqual([]);
    });

    it('409 for a second, different UTR on an invoice under review', async () => {
      const invoice = await createInvoice();
      await confirm({ invoiceId: invoice.id, utr: utr() });
      const response = await confirm({ invoiceId: invoice.id, utr: utr() });
      expect(response.status).toBe(409);
      expect(await ledger().listByInvoice(invoice.id)).toHaveLength(1);
    });
  });

  it('20 concurrent confirmations of one UTR on 20 invoices: one 200, 19 db_unique_violation', async () => {
    const invoices = await Promise.all(Array.from({ length: 20 }, () => createInvoice()));
    const reference = utr();
    const responses = await Promise.all(invoices.map((invoice) => confirm({ invoiceId: invoice.id, utr: reference })));
    expect(responses.filter((r) => r.status === 200)).toHaveLength(1);
    const refused = responses.filter((r) => r.status !== 200);
    expect(refused.map((r) => [r.status, r.body.errors[0].code])).toEqual(Array(19).fill([409, 'db_unique_violation']));
    const stored = (await Promise.all(invoices.map((invoice) => ledger().listByInvoice(invoice.id)))).flat();
    expect(stored).toHaveLength(1);
  });

  it('the same invoice and UTR 20 times at once: one transaction, every answer 200', async () => {
    const invoice = await createInvoice();
    const reference = utr();
    const responses = await Promise.all(Array.from({ length: 20 }, () => confirm({ invoiceId: invoice.id, utr: reference })));
    expect(responses.map((r) => (r.status === 200 ? 200 : r.body.errors[0]))).toEqual(Array(20).fill(200));
    expect(await ledger().listByInvoice(invoice.id)).toHaveLength(1);
  });
});

describe('POST /api/v2/withdrawal', () => {
  const CARD = '4111111111111111';
  const withdraw = (body: Record<string, unknown>, apiKey = merchant.apiKey) => invoke('create-withdrawal', { apiKey, body: { customerId: 'cust-9', amount: '2500.00', currency: 'TRY', ...body } });

  beforeAll(() => Promise.all([fundBalance(merchant.merchant.id, 'TRY', '1000000'), fundBalance(other.merchant.id, 'TRY', '1000000')]));

  afterEach(() => vi.restoreAllMocks());

  it.each([
    ['card', { cardNumber: CARD, cardHolderName: 'Ada Lovelace' }],
    ['phone', { phoneNumber: '+905551112233', bankName: 'Ziraat' }],
    ['bank account', { bankAccountName: 'Ada Lovelace', bankAccountNumber: 'TR330006100519786457841326', bankName: 'Ziraat' }],
  ])('accepts the %s variant as a processing withdraw transaction, marked deprecated', async (_name, fields) => {
    const response = await withdraw({ orderId: randomUUID(), comment: 'payout', ...fields });
    expect(response.status).toBe(200);
    expect(response.headers.deprecation).toBe('true');
    expect(response.body.data).toMatchObject({ type: 'withdraw', status: 'processing', amount: '2500.00', currency: 'TRY', invoiceId: null, network: null });
    expect(Object.keys(response.body.data)).not.toContain('recipient');
    // Requested from the provider that pays out TRY, which answered with its reference.
    expect((await ledger().get(response.body.data.id))!.provider).toEqual({ id: 'demo', reference: expect.stringMatching(/^po_/), requestedAt: expect.any(String) });
  });

  it.each([
    ['an amount as a number', { amount: 2500, cardNumber: CARD }, 'amount'],
    ['a customerId as a number', { customerId: 9, cardNumber: CARD }, 'customerId'],
    ['no variant', {}, 'cardNumber'],
    ['two variants', { cardNumber: CARD, phoneNumber: '+905551112233' }, 'phoneNumber'],
    ['a card failing Luhn', { cardNumber: '4111111111111112' }, 'cardNumber'],
    ['a card of 11 digits', { cardNumber: '41111111111' }, 'cardNumber'],
    ['a comment of 256 characters', { cardNumber: CARD, comment: 'x'.repeat(256) }, 'comment'],
    ['an unknown property', { cardNumber: CARD, iban: 'x' }, 'iban'],
  ])('refuses %s with 422 on the field, storing nothing', async (_name, fields, field) => {
    const orderId = randomUUID();
    const response = await withdraw({ orderId, ...fields });
    expect(response.status).toBe(422);
    expect(response.body.errors[0]).toMatchObject({ code: 'unprocessable_content', field });
    // A refusal tells of the deprecation too.
    expect(response.headers.deprecation).toBe('true');
    expect(await scanFor(orderId)).toEqual([]);
  });

  it('refuses a repeated orderId with 409 db_unique_violation, per merchant', async () => {
    const orderId = randomUUID();
    expect((await withdraw({ orderId, cardNumber: CARD })).status).toBe(200);
    const again = await withdraw({ orderId, cardNumber: CARD });
    expect(again.status).toBe(409);
    expect(again.body.errors[0].code).toBe('db_unique_violation');
    expect(again.headers.deprecation).toBe('true');
    expect(again.headers['x-request-id']).toBeTruthy();
    expect((await withdraw({ orderId, cardNumber: CARD }, other.apiKey)).status).toBe(200);
  });

  it('never stores, logs, returns or calls back the full card number', async () => {
    const written: string[] = [];
    for (const stream of [process.stdout, process.stderr]) {
      const original = stream.write.bind(stream);
      vi.spyOn(stream, 'write').mockImplementation(((chunk: string | Uint8Array, ...rest: unknown[]) => {
        written.push(String(chunk));
        return (original as (...args: unknown[]) => boolean)(chunk, ...rest);
      }) as typeof stream.write);
    }
    const orderId = randomUUID();
    const response = await withdraw({ orderId, cardNumber: '5555 5555 5555 4444', cardHolderName: 'Ada' });
    expect(response.status).toBe(200);
    const settled = await invoke('simulate-withdrawal', { apiKey: merchant.apiKey, body: { transactionId: response.body.data.id, status: 'confirmed' } });
    expect(settled.body.data.status).toBe('confirmed');
    const entry = await outbox().get(`${response.body.data.id}:confirmed`);
    expect(JSON.parse(entry!.payload)).toMatchObject({ type: 'withdraw', status: 'confirmed', callbackType: 'transaction' });

    const everything = [JSON.stringify(response.body), JSON.stringify(settled.body), entry!.payload, ...written, JSON.stringify(await scanAll())].join('\n');
    expect(everything).not.toContain('5555555555554444');
    expect(everything).not.toContain('5555 5555 5555 4444');
    const stored = await ledger().get(response.body.data.id);
    expect((stored as unknown as { recipient: { maskedCardNumber: string } }).recipient.maskedCardNumber).toBe('555555******4444');
  });
});

async function scanAll(): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  for (const key of TABLE_KEYS) {
    let ExclusiveStartKey: Record<string, unknown> | undefined;
    do {
      const page = await documentClient.send(new ScanCommand({ TableName: config().tables[key], ExclusiveStartKey }));
      items.push(...(page.Items ?? []));
      ExclusiveStartKey = page.LastEvaluatedKey;
    } while (ExclusiveStartKey);
  }
  return items;
}

/** Every stored item that mentions `text`. */
async function scanFor(text: string): Promise<Record<string, unknown>[]> {
  return (await scanAll()).filter((item) => JSON.stringify(item).includes(text));
}
