/**
 * Crypto payouts through the functions as the runtime runs them, for the tests that follow one
 * from `POST /api/v2/payouts` to the watcher's settlement: tables and a payouts FIFO queue of the
 * file's own (another file's watcher would follow its payouts on its own node, and its cursor stop
 * this file's), the queue handed to `send-payout` as its one message group would be, and what the
 * merchant and the ledger then show.
 */
import { randomUUID } from 'node:crypto';
import { ChangeMessageVisibilityCommand, CreateQueueCommand, DeleteMessageCommand, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { invoker } from '../../infra/local/functions.js';
import { LOCAL_REGION } from '../../infra/local/environment.js';
import { ensureTables } from '../../infra/local/dynamodb.js';
import { sqsRecord } from '../../infra/local/queue-consumer.js';
import { localQueueArn, localQueueUrl } from '../../infra/local/sqs.js';
import { config } from '../../shared/config.js';
import { Decimal } from '../../shared/domain/kernel/index.js';
import { BalanceService } from '../../shared/domain/ledger/index.js';
import type { CryptoPayoutTransaction } from '../../shared/domain/transactions/index.js';
import { sqsClient } from '../../shared/queue/sqs.js';
import { DynamoBalanceStore } from '../../shared/store/balances.js';
import { documentClient, dynamoClient } from '../../shared/store/dynamo.js';
import { TABLE_KEYS, tableEnvVar } from '../../shared/store/tables.js';
import { DynamoTransactionStore } from '../../shared/store/transactions.js';
import { FUNCTIONS } from '../../shared/routes.js';
import { invoke, loadFunction } from './invoke.js';
import { type SeededMerchant, testMerchantStore } from './merchants.js';

const sendPayout = FUNCTIONS.find((fn) => fn.name === 'send-payout')!;
const run = invoker(loadFunction);

/**
 * Names this file's tables and payouts queue in the environment. Call it at the top of the test
 * file, before anything reads the configuration; `createPayoutStores` makes them.
 */
export function ownPayoutStores(): { queueName: string } {
  const own = `payouts-${randomUUID().slice(0, 8)}`;
  for (const key of TABLE_KEYS) process.env[tableEnvVar(key)] = `${own}-${key}`;
  const queueName = `${own}.fifo`;
  process.env.PAYOUT_QUEUE_URL = localQueueUrl(process.env.AWS_ENDPOINT_URL_SQS!, queueName);
  return { queueName };
}

export async function createPayoutStores({ queueName }: { queueName: string }): Promise<void> {
  await Promise.all([ensureTables(dynamoClient, config().tables), sqsClient.send(new CreateQueueCommand({ QueueName: queueName, Attributes: { FifoQueue: 'true' } }))]);
}

/** Credits the merchant's balance, as the operator's adjustment does. */
export async function fund(owner: SeededMerchant, currency: string, amount: string): Promise<void> {
  const service = new BalanceService({ balances: new DynamoBalanceStore(documentClient, config().tables), merchants: testMerchantStore(), clock: () => new Date(), newId: randomUUID });
  await service.adjust(owner.merchant.id, { currency, amount: new Decimal(amount), reason: 'Funds for the payout tests' });
}

/** `POST /api/v2/payouts` with a new Idempotency-Key unless told otherwise (`key: null`: none). */
export const requestPayout = (merchant: SeededMerchant, body: Record<string, unknown>, options: { apiKey?: string; key?: string | null } = {}) =>
  invoke('create-payout', { apiKey: options.apiKey ?? merchant.apiKey, headers: options.key === null ? {} : { 'idempotency-key': options.key ?? randomUUID() }, body });

/** A message of the payouts queue handed to send-payout: its payout, whether send-payout failed it, and when the invocation began and returned (`performance.now()`). */
export interface HandedMessage {
  transactionId: string;
  failed: boolean;
  started: number;
  returned: number;
}

/**
 * The payouts queue's next message handed to send-payout, as the FIFO queue's one message group
 * hands it to one sender; undefined when the queue has none. A failed message is delivered again
 * at once on the next call rather than after the queue's visibility timeout: the caller decides when.
 */
export async function handNextQueued(): Promise<HandedMessage | undefined> {
  const queueUrl = config().payoutQueueUrl!;
  const { Messages = [] } = await sqsClient.send(
    new ReceiveMessageCommand({ QueueUrl: queueUrl, MaxNumberOfMessages: 1, WaitTimeSeconds: 1, AttributeNames: ['All'], MessageSystemAttributeNames: ['All'] }),
  );
  const [message] = Messages;
  if (!message) return undefined;
  const { transactionId } = JSON.parse(message.Body ?? '{}') as { transactionId: string };
  const queue = { url: queueUrl, arn: localQueueArn(queueUrl.slice(queueUrl.lastIndexOf('/') + 1)) };
  const started = performance.now();
  const outcome = (await run(sendPayout, { Records: [sqsRecord(message, queue, LOCAL_REGION)] })) as { batchItemFailures: unknown[] };
  const returned = performance.now();
  const failed = outcome.batchItemFailures.length > 0;
  if (failed) await sqsClient.send(new ChangeMessageVisibilityCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle!, VisibilityTimeout: 0 }));
  else await sqsClient.send(new DeleteMessageCommand({ QueueUrl: queueUrl, ReceiptHandle: message.ReceiptHandle! }));
  return { transactionId, failed, started, returned };
}

/** What the payouts queue holds, handed to send-payout one message at a time until one fails; how many were handed. */
export async function sendQueued(): Promise<number> {
  for (let handled = 1; ; handled++) {
    const handed = await handNextQueued();
    if (!handed) return handled - 1;
    if (handed.failed) return handled;
  }
}

export const payoutLedger = () => new DynamoTransactionStore(documentClient, config().tables);

export const storedPayout = async (id: string) => (await payoutLedger().get(id)) as CryptoPayoutTransaction;

/** The merchant's balance of a currency as `GET /api/v2/balances` shows it. */
export const balanceOf = async (merchant: SeededMerchant, currency: string) =>
  ((await invoke('list-balances', { apiKey: merchant.apiKey })).body.data.items as { currency: string; available: string; reserved: string }[]).find((item) => item.currency === currency)!;

/** The payout's balance entries' types, sorted. */
export const entryTypesOf = async (merchant: SeededMerchant, transactionId: string): Promise<string[]> =>
  ((await invoke('list-balance-entries', { apiKey: merchant.apiKey, query: { transactionId } })).body.data.items as { type: string }[]).map((entry) => entry.type).sort();

/** The callbacks' webhook ids of a transaction, as the merchant lists them. */
export const callbacksOf = async (merchant: SeededMerchant, transactionId: string): Promise<string[]> =>
  ((await invoke('list-transaction-callbacks', { apiKey: merchant.apiKey, pathParameters: { transactionId } })).body.data as { webhookId: string }[]).map((delivery) => delivery.webhookId);
