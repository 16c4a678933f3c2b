/**
 * Local fiat end to end (docs/merchant-guide.md#confirming-a-deposit-by-utr, #withdrawals-deprecated, docs/operations.md#local-configuration): the local runtime as a child process with a
 * real callback receiver. A UTR is confirmed over HTTP and the simulated provider decides it from
 * its own queue within seconds (a UTR starting with 000 is rejected); the receipt is kept sealed
 * under the data directory. A card withdrawal is settled through the simulation API, and then
 * every line the runtime printed, every stored item and every file under the data directory is
 * searched for the card number.
 *
 * One runtime serves the whole file; its tests run in order.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ScanCommand, type AttributeValue } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localDynamoClient } from '../../infra/local/dynamodb.js';
import { localCredentials } from '../../infra/local/environment.js';
import { RECEIPT_MAX_BYTES, RECEIPT_MAX_SIZE_TEXT } from '../../shared/domain/invoicing/deposit-confirmation.js';
import { maxBodyBytesOf, routeByName } from '../../shared/routes.js';
import { startCallbackReceiver, type CallbackReceiver } from '../support/callback-receiver.js';
import { callApi, dynamoDbLocalProcesses, simulateFunds, startGatewayProcess, type GatewayProcess } from '../support/gateway-process.js';
import { openRuntimeStack, type RuntimeStack } from '../support/runtime-stack.js';

const CALLBACK_SECRET = `whsec_${Buffer.alloc(32, 9).toString('base64')}`;
/** The simulated provider decides each UTR after this long. */
const PROVIDER_DELAY_S = 1;

const CARD_NUMBER = '4111111111111111';
const MASKED_CARD_NUMBER = '411111******1111';
/** A card-like number that fails the Luhn check: refused, and not to be echoed anywhere either. */
const BAD_CARD_NUMBER = '4111111111111112';

/** A 1x1 PNG. */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

let dataDir: string;
let gateway: GatewayProcess;
let stack: RuntimeStack;
let receiver: CallbackReceiver;

beforeAll(async () => {
  receiver = await startCallbackReceiver();
  dataDir = await mkdtemp(join(tmpdir(), 'gateway-fiat-'));
  gateway = await startGatewayProcess({
    dataDir,
    // Its store's files are searched for card numbers.
    ownStore: true,
    env: {
      GATEWAY_DEMO_CALLBACK_URL: receiver.url,
      GATEWAY_DEMO_CALLBACK_SECRET: CALLBACK_SECRET,
      GATEWAY_PROVIDER_DELAY_S: String(PROVIDER_DELAY_S),
    },
  });
  stack = await openRuntimeStack(dataDir);
});

afterAll(async () => {
  stack?.close();
  await gateway?.stop();
  if (dataDir) for (const pid of dynamoDbLocalProcesses(dataDir)) process.kill(pid, 'SIGKILL');
  await receiver?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

const api = (method: 'GET' | 'POST', path: string, body?: unknown, headers: Record<string, string> = {}) => callApi(gateway, method, path, body, headers);

async function inrInvoice(): Promise<any> {
  const response = await api('POST', '/api/v2/invoices', { orderId: `fiat-${randomUUID()}`, customerId: `cust-${randomUUID().slice(0, 8)}`, baseCurrency: 'INR', amount: 1000 });
  expect(response.status, response.text).toBe(200);
  expect(response.body.data.paymentCurrency).toBe('INR');
  return response.body.data;
}

/** 16 letters or digits after `prefix`, uppercase: a UTR as the gateway stores it. */
const utr = (prefix = 'U') => `${prefix}${randomBytes(8).toString('hex')}`.slice(0, 16).toUpperCase();

/** Every file under `directory`, recursively. */
async function filesUnder(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => join(entry.parentPath, entry.name));
}

/** Every item of every table of the runtime, through its own DynamoDB endpoint, as text (binary values decoded). */
async function everyStoredItem(): Promise<string[]> {
  const client = localDynamoClient(stack.info.dynamodbEndpoint, await localCredentials(dataDir));
  const asText = (_: string, value: unknown) => (value instanceof Uint8Array ? Buffer.from(value).toString('latin1') : value);
  try {
    const items: string[] = [];
    for (const table of Object.values(stack.info.tables)) {
      let startKey: Record<string, AttributeValue> | undefined;
      do {
        const page = await client.send(new ScanCommand({ TableName: table, ExclusiveStartKey: startKey }));
        for (const item of page.Items ?? []) items.push(`${table} ${JSON.stringify(item, asText)}`);
        startKey = page.LastEvaluatedKey;
      } while (startKey);
    }
    return items;
  } finally {
    client.destroy();
  }
}

const confirmations: { rejected?: { invoice: any; utr: string }; confirmed?: { invoice: any; utr: string } } = {};

describe('deposit confirmation by UTR', () => {
  it('accepts a UTR the provider will reject and one it will confirm, each with a processing deposit at once', async () => {
    const [rejectedInvoice, confirmedInvoice] = await Promise.all([inrInvoice(), inrInvoice()]);
    confirmations.rejected = { invoice: rejectedInvoice, utr: utr('000') };
    confirmations.confirmed = { invoice: confirmedInvoice, utr: utr() };
    const sentAt = Date.now();
    const responses = await Promise.all([
      api('POST', '/api/v2/gateway9/deposit/confirm', { invoiceId: rejectedInvoice.id, utr: confirmations.rejected.utr }),
      api('POST', '/api/v2/gateway9/deposit/confirm', {
        invoiceId: confirmedInvoice.id,
        utr: confirmations.confirmed.utr.toLowerCase(),
        receipt_file: PNG.toString('base64'),
        receipt_file_extension: 'png',
        receipt_file_name: 'transfer.png',
      }),
    ]);
    for (const response of responses) {
      expect(response.status, response.text).toBe(200);
      expect(response.body).toEqual({ success: true, data: 'Deposit confirmation accepted' });
    }
    // The provider answers after PROVIDER_DELAY_S; until then each deposit is processing.
    for (const { invoice, utr: reference } of [confirmations.rejected, confirmations.confirmed]) {
      const deposits = await stack.transactions.listByInvoice(invoice.id);
      expect(deposits).toHaveLength(1);
      expect(deposits[0]).toMatchObject({ type: 'deposit', utr: reference, amount: '1000.00', currency: 'INR' });
      // Only asserted while the provider cannot have answered yet, so a slow machine does not fail it.
      if (Date.now() - sentAt < PROVIDER_DELAY_S * 1000) expect(deposits[0]!.status).toBe('processing');
    }
  });

  it('fails the deposit of a UTR starting with 000, cancels the invoice as rejected, and calls the merchant back', async () => {
    const { invoice } = confirmations.rejected!;
    const callback = await receiver.waitForDelivery((c) => c.json?.invoiceId === invoice.id, 15_000);
    expect(callback.json).toMatchObject({ type: 'deposit', status: 'failed', currency: 'INR', callbackType: 'transaction' });
    expect(callback.webhookId).toBe(`${callback.json.id}:failed`);

    const transaction = await api('GET', `/api/v2/transaction/${callback.json.id}`);
    expect(transaction.status).toBe(200);
    expect(transaction.body.data).toMatchObject({ id: callback.json.id, invoiceId: invoice.id, type: 'deposit', status: 'failed' });
    const after = await api('GET', `/api/v2/invoices/${invoice.id}`);
    expect(after.body.data).toMatchObject({ status: 'canceled', cancelReason: 'rejected' });
  });

  it('confirms the deposit of any other UTR, completes the invoice, and calls the merchant back', async () => {
    const { invoice } = confirmations.confirmed!;
    const callback = await receiver.waitForDelivery((c) => c.json?.invoiceId === invoice.id, 15_000);
    expect(callback.json).toMatchObject({ type: 'deposit', status: 'confirmed', currency: 'INR', amount: invoice.paymentAmount });
    expect(callback.webhookId).toBe(`${callback.json.id}:confirmed`);

    const transaction = await api('GET', `/api/v2/transaction/${callback.json.id}`);
    expect(transaction.body.data).toMatchObject({ id: callback.json.id, invoiceId: invoice.id, type: 'deposit', status: 'confirmed' });
    const after = await api('GET', `/api/v2/invoices/${invoice.id}`);
    expect(after.body.data.status).toBe('completed');
    // Each UTR was decided once.
    expect(receiver.received.filter((c) => c.json?.invoiceId === invoice.id && c.json?.type === 'deposit')).toHaveLength(1);
  });

  it('refunds part of the confirmed deposit through the demo provider, which confirms it after GATEWAY_PROVIDER_DELAY_S: the refund callback, the invoice refunded', async () => {
    const { invoice } = confirmations.confirmed!;
    const deposit = await receiver.waitForDelivery((c) => c.json?.invoiceId === invoice.id && c.json?.type === 'deposit', 15_000);
    const response = await api('POST', '/api/v2/refunds', { transactionId: deposit.json.id, amount: '250', reason: 'Order canceled' }, { 'idempotency-key': randomUUID() });
    expect(response.status, response.text).toBe(200);
    expect(response.body.data).toMatchObject({ type: 'refund', status: 'processing', refundOf: deposit.json.id, amount: '250.00', currency: 'INR' });
    const callback = await receiver.waitForDelivery((c) => c.json?.id === response.body.data.id, 15_000);
    expect(callback.json).toMatchObject({ type: 'refund', status: 'confirmed', refundOf: deposit.json.id, amount: '250.00' });
    expect((await api('GET', `/api/v2/invoices/${invoice.id}`)).body.data.refundedAmount).toBe('250.00');
  });

  it('keeps the receipt under the data directory sealed: no PNG in the clear', async () => {
    const { invoice, utr: reference } = confirmations.confirmed!;
    const receipts = await filesUnder(join(dataDir, 'receipts'));
    expect(receipts.map((file) => file.slice(dataDir.length))).toEqual([`/receipts/${stack.demoMerchantId}/${invoice.id}/${reference}.png.sealed`]);
    const sealed = await readFile(receipts[0]!);
    expect(sealed.includes(PNG_SIGNATURE)).toBe(false);
    expect(sealed.includes(PNG)).toBe(false);
    expect(sealed.includes(Buffer.from(PNG.toString('base64')))).toBe(false);
    // What is there is ciphertext of the receipt's size under a wrapped data key.
    const envelope = JSON.parse(sealed.toString('utf8'));
    expect(envelope).toMatchObject({ contentType: 'image/png', encryptedKey: expect.any(String), iv: expect.any(String), tag: expect.any(String) });
    expect(Buffer.from(envelope.ciphertext, 'base64')).toHaveLength(PNG.length);
    expect(Buffer.from(envelope.ciphertext, 'base64').equals(PNG)).toBe(false);
  });
});

describe('the size of a receipt, over HTTP', () => {
  /** A PNG padded to exactly `bytes` bytes. */
  const pngOfSize = (bytes: number) => Buffer.concat([PNG, Buffer.alloc(bytes - PNG.length)]);
  const confirmWithReceipt = async (receipt: Buffer) => {
    const invoice = await inrInvoice();
    const response = await api('POST', '/api/v2/gateway9/deposit/confirm', { invoiceId: invoice.id, utr: utr(), receipt_file: receipt.toString('base64'), receipt_file_extension: 'png' });
    return { invoice, response };
  };

  it(`accepts the largest receipt, ${RECEIPT_MAX_SIZE_TEXT}, whose request fits a synchronous Lambda invocation`, async () => {
    const { invoice, response } = await confirmWithReceipt(pngOfSize(RECEIPT_MAX_BYTES));
    expect(response.status, response.text).toBe(200);
    expect(await stack.transactions.listByInvoice(invoice.id)).toHaveLength(1);
    const receipts = await filesUnder(join(dataDir, 'receipts', stack.demoMerchantId, invoice.id));
    expect(receipts).toHaveLength(1);
  });

  it('refuses a receipt one byte larger with 413 from the function, by its decoded size', async () => {
    const { invoice, response } = await confirmWithReceipt(pngOfSize(RECEIPT_MAX_BYTES + 1));
    expect(response.status).toBe(413);
    expect(response.body.errors).toEqual([{ code: 'payload_too_large', message: `The receipt exceeds ${RECEIPT_MAX_BYTES} bytes` }]);
    expect(await stack.transactions.listByInvoice(invoice.id)).toEqual([]);
  });

  it('refuses a body over the route limit with the 413 envelope before anything runs, as the web ACL does in AWS', async () => {
    const limit = maxBodyBytesOf(routeByName('confirm-deposit'));
    const { invoice, response } = await confirmWithReceipt(pngOfSize(Math.ceil((limit * 3) / 4)));
    expect(response.status).toBe(413);
    expect(response.body).toEqual({ success: false, errors: [{ code: 'payload_too_large', message: 'Request body too large' }] });
    expect(response.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(await stack.transactions.listByInvoice(invoice.id)).toEqual([]);
  });
});

describe('a card withdrawal', () => {
  let withdrawalId: string;

  beforeAll(() => simulateFunds(gateway, { baseCurrency: 'INR', amount: 1000 }, '10000'));

  it('is accepted as a processing withdrawal, marked deprecated, without the card number', async () => {
    const response = await api(
      'POST',
      '/api/v2/withdrawal',
      {
        customerId: `cust-${randomUUID().slice(0, 8)}`,
        amount: '2500',
        currency: 'INR',
        orderId: `payout-${randomUUID()}`,
        comment: 'Weekly payout',
        cardHolderName: 'Test Holder',
        cardNumber: CARD_NUMBER,
      },
      // Through the idempotency layer too, which records the request.
      { 'idempotency-key': `payout-${randomUUID()}` },
    );
    expect(response.status, response.text).toBe(200);
    expect(response.headers.get('deprecation')).toBe('true');
    expect(response.body.data).toMatchObject({ type: 'withdraw', status: 'processing', amount: '2500.00', currency: 'INR' });
    expect(response.text).not.toContain(CARD_NUMBER);
    withdrawalId = response.body.data.id;

    // The same card written with spaces is the same card, and a number failing Luhn is refused.
    const spaced = await api('POST', '/api/v2/withdrawal', { customerId: 'cust-spaced', amount: '100', currency: 'INR', cardNumber: '4111 1111 1111 1111' });
    expect(spaced.status, spaced.text).toBe(200);
    expect(spaced.text).not.toMatch(/4111 ?1111 ?1111 ?1111/);
    const refused = await api('POST', '/api/v2/withdrawal', { customerId: 'cust-refused', amount: '100', currency: 'INR', cardNumber: BAD_CARD_NUMBER });
    expect(refused.status).toBe(422);
    expect(refused.text).not.toContain(BAD_CARD_NUMBER);
  });

  it('brings the withdraw callback once settled through the simulation API', async () => {
    const settled = await api('POST', '/api/v2/simulate/withdrawal', { transactionId: withdrawalId, status: 'confirmed' });
    expect(settled.status, settled.text).toBe(200);
    const callback = await receiver.waitForDelivery((c) => c.json?.id === withdrawalId, 15_000);
    expect(callback.json).toMatchObject({ type: 'withdraw', status: 'confirmed', callbackType: 'transaction' });
    expect(callback.body).not.toContain(CARD_NUMBER);
    expect((await api('GET', `/api/v2/transaction/${withdrawalId}`)).body.data.status).toBe('confirmed');
  });

  it('leaves the card number in no log line, stored item or file: only masked, and sealed', async () => {
    // Anywhere, with or without separators.
    const clear = [CARD_NUMBER, BAD_CARD_NUMBER].map((number) => new RegExp(number.match(/\d{4}/g)!.join('[\\s-]?')));

    const items = await everyStoredItem();
    const withdrawal = items.find((item) => item.includes(withdrawalId) && item.includes(MASKED_CARD_NUMBER));
    expect(withdrawal, 'the stored withdrawal with the masked card number').toBeDefined();
    expect(withdrawal).toContain('sealedCardNumber');
    for (const pattern of clear) expect(items.filter((item) => pattern.test(item))).toEqual([]);

    // Stopped first, so that its last lines are printed and DynamoDB Local has written everything.
    expect(await gateway.stop()).toBe(0);
    const output = gateway.output();
    // The runtime's own lines and the functions' structured logs are both there to search.
    expect(output).toContain('POST /api/v2/withdrawal 200');
    expect(output).toContain(withdrawalId);
    for (const pattern of clear) expect(output.split('\n').filter((line) => pattern.test(line))).toEqual([]);

    const files = await filesUnder(dataDir);
    expect(files.some((file) => file.includes(`${join(dataDir, 'dynamodb')}/`))).toBe(true);
    expect(files).toContain(join(dataDir, 'keys', 'master.key'));
    for (const file of files) {
      // Bytes as Latin-1, so that text in any single-byte or UTF-8 file shows as written.
      const content = (await readFile(file)).toString('latin1');
      for (const pattern of clear) expect(pattern.test(content), `${file} holds a card number`).toBe(false);
    }
  });
});
