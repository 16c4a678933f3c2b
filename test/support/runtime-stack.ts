/**
 * The stores of a running local runtime (a child process), reached the way the admin CLI reaches
 * them: through `{dataDir}/runtime.json`. For tests that look behind the API or write what a
 * crashed writer would have left.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { demoMerchantFile } from '../../infra/local/demo-merchant.js';
import { localDynamoClient } from '../../infra/local/dynamodb.js';
import { localCredentials } from '../../infra/local/environment.js';
import { readRunningStack, type RuntimeInfo } from '../../infra/local/runtime-info.js';
import { localCallbackQueueUrls, localSqsClient } from '../../infra/local/sqs.js';
import { writeWithEntries } from '../../shared/domain/ledger/balances.js';
import type { CallbackEntry } from '../../shared/domain/callbacks/callbacks.js';
import { callbackEntry } from '../../shared/domain/transactions/transaction-callbacks.js';
import { Decimal } from '../../shared/domain/kernel/money.js';
import { invoiceAfterDeposit } from '../../shared/domain/invoicing/payments.js';
import { depositTransaction, type Transaction } from '../../shared/domain/transactions/transactions.js';
import { DynamoBalanceStore } from '../../shared/store/balances.js';
import { DynamoInvoiceStore } from '../../shared/store/invoices.js';
import { DynamoMerchantStore } from '../../shared/store/merchants.js';
import { DynamoOutboxStore } from '../../shared/store/outbox.js';
import { DynamoTransactionStore } from '../../shared/store/transactions.js';
import { CallbackSecretVault } from '../../shared/vault/callback-secrets.js';
import { KeyFileDataKeySource } from '../../shared/vault/key-sources.js';

export interface RuntimeStack {
  info: RuntimeInfo;
  documentClient: DynamoDBDocumentClient;
  /** A client of the runtime's SQS server. */
  sqs: SQSClient;
  callbackQueueUrl: string;
  callbackDlqUrl: string;
  invoices: DynamoInvoiceStore;
  balances: DynamoBalanceStore;
  merchants: DynamoMerchantStore;
  transactions: DynamoTransactionStore;
  outbox: DynamoOutboxStore;
  /** The runtime's vault of callback secrets (its key file). */
  secrets: CallbackSecretVault;
  /** The demo merchant's id, from `{dataDir}/demo-merchant.json`. */
  demoMerchantId: string;
  close(): void;
}

/** Opens the stores of the runtime serving from `dataDir`; throws when none is running there. */
export async function openRuntimeStack(dataDir: string): Promise<RuntimeStack> {
  const info = await readRunningStack(dataDir);
  if (!info) throw new Error(`No local runtime is running from ${dataDir}`);
  const { merchantId } = JSON.parse(await readFile(demoMerchantFile(dataDir), 'utf8')) as { merchantId: string };
  const dynamo = localDynamoClient(info.dynamodbEndpoint, await localCredentials(dataDir));
  const documentClient = DynamoDBDocumentClient.from(dynamo, { marshallOptions: { removeUndefinedValues: true } });
  const sqs = localSqsClient(info.sqsEndpoint);
  return {
    info,
    documentClient,
    sqs,
    ...localCallbackQueueUrls(info.sqsEndpoint),
    invoices: new DynamoInvoiceStore(documentClient, info.tables),
    balances: new DynamoBalanceStore(documentClient, info.tables),
    merchants: new DynamoMerchantStore(documentClient, info.tables),
    transactions: new DynamoTransactionStore(documentClient, info.tables),
    outbox: new DynamoOutboxStore(documentClient, info.tables.outbox),
    secrets: new CallbackSecretVault(new KeyFileDataKeySource(info.vaultKeyFile)),
    demoMerchantId: merchantId,
    close: () => {
      dynamo.destroy();
      sqs.destroy();
    },
  };
}

/**
 * What a writer that died between its database write and its enqueue leaves behind: a confirmed
 * deposit for the whole payment amount of the invoice, the invoice completed, the balance
 * credited, and the callback in the outbox, never handed to the queue.
 */
export async function recordDepositWithoutPublishing(stack: RuntimeStack, invoiceId: string): Promise<{ transaction: Transaction; callback: CallbackEntry }> {
  const invoice = await stack.invoices.get(invoiceId);
  if (!invoice) throw new Error(`No invoice ${invoiceId}`);
  const merchant = await stack.merchants.getMerchant(invoice.merchantId);
  if (!merchant) throw new Error(`No merchant ${invoice.merchantId}`);
  const now = new Date();
  const crypto = invoice.family === 'crypto';
  const transaction = depositTransaction(
    invoice,
    {
      id: randomUUID(),
      amount: new Decimal(invoice.paymentAmount),
      currency: invoice.paymentCurrency,
      status: 'confirmed',
      network: crypto ? (invoice.wallet?.networks[0] ?? null) : null,
      transactionHash: crypto ? `0x${randomBytes(32).toString('hex')}` : null,
      now,
    },
    merchant.processingFeePercent,
  );
  const callback = callbackEntry(transaction, now);
  const outcome = invoiceAfterDeposit(invoice, transaction, true, now);
  if ('refused' in outcome) throw new Error(`The invoice ${invoiceId} refuses a deposit (${outcome.refused})`);
  const result = await writeWithEntries(stack.balances, undefined, transaction, (posting) => stack.transactions.insert(transaction, { invoice: outcome.update, posting, callbacks: [callback] }));
  if (result !== 'committed') throw new Error(`The deposit on ${invoiceId} was not written (${result})`);
  return { transaction, callback };
}
