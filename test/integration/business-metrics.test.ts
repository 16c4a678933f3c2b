/**
 * The business metrics as CloudWatch reads them: the embedded-metric-format lines Powertools
 * writes to stdout, captured while the functions run against the test stores. The local runtime
 * and the other tests keep them off (POWERTOOLS_METRICS_DISABLED=true); this file turns them on.
 */
import { randomUUID } from 'node:crypto';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSEvent } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { invoker } from '../../infra/local/functions.js';
import { config } from '../../shared/config.js';
import { FUNCTIONS } from '../../shared/routes.js';
import { documentClient } from '../../shared/store/dynamo.js';
import { outboxPut } from '../../shared/store/outbox.js';
import { startCallbackReceiver, type CallbackReceiver } from '../support/callback-receiver.js';
import { emfLinesOf, metricOf } from '../support/emf.js';
import { invoke, loadFunction } from '../support/invoke.js';
import { seedMerchant, type SeededMerchant } from '../support/merchants.js';

vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');

let merchant: SeededMerchant;
let receiver: CallbackReceiver;

beforeAll(async () => {
  receiver = await startCallbackReceiver();
  merchant = await seedMerchant({ callbackUrl: receiver.url });
});

afterAll(async () => {
  await receiver.close();
});

const invoiceBody = (fields: Record<string, unknown> = {}) => ({ orderId: randomUUID(), customerId: `c-${randomUUID()}`, baseCurrency: 'USDT', amount: 25, ...fields });
const createInvoice = (body: Record<string, unknown>) => invoke('create-invoice', { apiKey: merchant.apiKey, body });

describe('business metrics', () => {
  it('count a created invoice by payment method, in the PaymentGateway namespace, by service and stage', async () => {
    const crypto = await emfLinesOf(() => createInvoice(invoiceBody()));
    expect(crypto.map(metricOf)).toEqual([{ namespace: 'PaymentGateway', name: 'InvoicesCreated', unit: 'Count', dimensions: { service: 'payment-gateway', stage: 'demo', method: 'crypto' }, value: 1 }]);
    expect(crypto[0]!._aws.Timestamp).toBeGreaterThan(Date.now() - 60_000);
    const fiat = await emfLinesOf(() => createInvoice(invoiceBody({ baseCurrency: 'TRY', amount: 1000, paymentMethod: 'bankpay' })));
    expect(fiat.map(metricOf)).toMatchObject([{ name: 'InvoicesCreated', dimensions: { method: 'bankpay' } }]);
  });

  it('count nothing for an invoice that already exists, or one refused', async () => {
    const body = invoiceBody();
    expect(await emfLinesOf(() => createInvoice(body))).toHaveLength(1);
    expect(await emfLinesOf(() => createInvoice(body))).toEqual([]);
    expect(await emfLinesOf(() => createInvoice(invoiceBody({ amount: -1 })))).toEqual([]);
  });

  it('count deposits confirmed and failed by source', async () => {
    const confirmedInvoice = (await createInvoice(invoiceBody())).body.data.id;
    const confirmed = await emfLinesOf(() => invoke('simulate-deposit', { apiKey: merchant.apiKey, body: { invoiceId: confirmedInvoice } }));
    expect(confirmed.map(metricOf)).toEqual([
      { namespace: 'PaymentGateway', name: 'DepositsConfirmed', unit: 'Count', dimensions: { service: 'payment-gateway', stage: 'demo', source: 'simulated' }, value: 1 },
    ]);
    const failedInvoice = (await createInvoice(invoiceBody())).body.data.id;
    const failed = await emfLinesOf(() => invoke('simulate-deposit', { apiKey: merchant.apiKey, body: { invoiceId: failedInvoice, status: 'failed' } }));
    expect(failed.map(metricOf)).toMatchObject([{ name: 'DepositsFailed', dimensions: { source: 'simulated' }, value: 1 }]);
  });

  it('count a delivered callback and measure how long after its state change it arrived', async () => {
    const transactionId = randomUUID();
    const callbackId = `${transactionId}:confirmed`;
    const owedFor = 1_500;
    const payload = JSON.stringify({ id: transactionId, status: 'confirmed', amount: '25.000000', currency: 'USDT', customerId: 'c-1', callbackType: 'transaction' });
    await documentClient.send(
      new TransactWriteCommand({
        TransactItems: [outboxPut(config().tables.outbox, { id: callbackId, merchantId: merchant.merchant.id, transactionId, payload, createdAt: new Date(Date.now() - owedFor).toISOString() })],
      }),
    );
    const sendCallback = FUNCTIONS.find((fn) => fn.name === 'send-callback')!;
    const event = { Records: [{ messageId: randomUUID(), receiptHandle: 'unused-on-delivery', body: JSON.stringify({ callbackId }), attributes: {}, messageAttributes: {} }] } as unknown as SQSEvent;
    const lines = await emfLinesOf(() => invoker(loadFunction)(sendCallback, event));
    expect(receiver.byWebhookId(callbackId)).toHaveLength(1);
    const [delivered, latency] = lines.map(metricOf);
    expect(delivered).toEqual({ namespace: 'PaymentGateway', name: 'CallbacksDelivered', unit: 'Count', dimensions: { service: 'payment-gateway', stage: 'demo' }, value: 1 });
    expect(latency).toMatchObject({ name: 'CallbackDeliveryLatency', unit: 'Milliseconds', dimensions: { service: 'payment-gateway', stage: 'demo' } });
    expect(latency!.value).toBeGreaterThanOrEqual(owedFor);
    expect(latency!.value).toBeLessThan(owedFor + 30_000);
  });

  it('write nothing while POWERTOOLS_METRICS_DISABLED is true, as locally', async () => {
    vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'true');
    try {
      const lines = await emfLinesOf(async () => expect((await createInvoice(invoiceBody())).status).toBe(200));
      expect(lines).toEqual([]);
    } finally {
      vi.stubEnv('POWERTOOLS_METRICS_DISABLED', 'false');
    }
  });
});
