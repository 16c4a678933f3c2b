/**
 * Many transactions written straight into the transactions table, as the store writes them
 * (`transactionItem`), in batches: a year of a busy merchant for the reports' tests and bench.
 */
import { randomUUID } from 'node:crypto';
import { BatchWriteCommand, type BatchWriteCommandOutput, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { Decimal } from '../../shared/domain/kernel/money.js';
import type { Transaction } from '../../shared/domain/transactions/transactions.js';
import { transactionItem } from '../../shared/store/transactions.js';

const BATCH = 25;
const IN_FLIGHT = 8;

export interface SeededTransactions {
  ids: Set<string>;
  /** The sum of their amounts. */
  total: Decimal;
  first: string;
  last: string;
}

/**
 * The `n`th confirmed TRY deposit of a seeded merchant, at `at`: an amount with every pair of
 * decimals, a customer among 500, the processing fee given.
 */
export function seededDeposit(merchantId: string, n: number, at: string, processingFee = '0.00'): Transaction {
  const amount = `${(n % 9973) + 1}.${String(n % 100).padStart(2, '0')}`;
  return {
    id: randomUUID(),
    merchantId,
    invoiceId: randomUUID(),
    type: 'deposit',
    status: 'confirmed',
    amount,
    currency: 'TRY',
    network: null,
    transactionHash: null,
    customerId: `customer-${n % 500}`,
    orderId: `order-${n}`,
    applicationId: null,
    createdAt: at,
    updatedAt: at,
    info: { exchangeRate: '1', referenceAmount: amount, referenceCurrency: 'TRY', referenceExchangeRate: '1', transactionAmount: amount, transactionCurrency: 'TRY' },
    fees: { processing: processingFee, technical: null },
    eur: '0.00',
    usd: '0.00',
    senderDetails: { senderIban: '', senderAccountNumber: '', senderSortCode: '' },
    booked: true,
  };
}

/** `count` confirmed TRY deposits of the merchant, one every `spacingSeconds` from `from`. */
export async function seedTransactions(client: DynamoDBDocumentClient, tableName: string, merchantId: string, count: number, from: Date, spacingSeconds = 1): Promise<SeededTransactions> {
  const ids = new Set<string>();
  let total = new Decimal(0);
  const transactions: Transaction[] = [];
  for (let n = 0; n < count; n++) {
    const transaction = seededDeposit(merchantId, n, new Date(from.getTime() + n * spacingSeconds * 1000).toISOString());
    ids.add(transaction.id);
    total = total.plus(transaction.amount);
    transactions.push(transaction);
  }
  const batches: Transaction[][] = [];
  for (let start = 0; start < transactions.length; start += BATCH) batches.push(transactions.slice(start, start + BATCH));
  const writeBatch = async (batch: Transaction[]) => {
    let requests: NonNullable<ConstructorParameters<typeof BatchWriteCommand>[0]['RequestItems']>[string] | undefined = batch.map((transaction) => ({
      PutRequest: { Item: transactionItem(transaction) },
    }));
    while (requests && requests.length > 0) {
      const written: BatchWriteCommandOutput = await client.send(new BatchWriteCommand({ RequestItems: { [tableName]: requests } }));
      requests = written.UnprocessedItems?.[tableName];
    }
  };
  const workers = Array.from({ length: IN_FLIGHT }, async () => {
    for (let batch = batches.shift(); batch; batch = batches.shift()) await writeBatch(batch);
  });
  await Promise.all(workers);
  return { ids, total, first: transactions[0]!.createdAt, last: transactions.at(-1)!.createdAt };
}
