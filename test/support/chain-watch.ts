/**
 * The watch-chain function as the chain watchers' integration tests drive it, and what its runs
 * leave in the test run's tables. Scheduled runs of one network go through the local runtime's
 * invoker (its DynamoDB calls held to the function's route-table entry); a cold start is the
 * function's module loaded afresh, configuration included, over the same tables. Invoices,
 * transactions and balance entries are read as the merchant reads them; callbacks as the sender
 * would send them.
 */
import { randomUUID } from 'node:crypto';
import { expect, vi } from 'vitest';
import type { WatchResult } from '../../functions/watch-chain.js';
import { invoker, lambdaContext, loadHandler } from '../../infra/local/functions.js';
import { config } from '../../shared/config.js';
import { callbackBody, webhookId } from '../../shared/domain/transactions/transaction-callbacks.js';
import type { RunSummary } from '../../shared/domain/payments/chain-watcher.js';
import type { CryptoNetwork } from '../../shared/domain/kernel/currencies.js';
import type { Transaction } from '../../shared/domain/transactions/transactions.js';
import { FUNCTIONS } from '../../shared/routes.js';
import { documentClient } from '../../shared/store/dynamo.js';
import { DynamoOutboxStore } from '../../shared/store/outbox.js';
import { DynamoTransactionStore } from '../../shared/store/transactions.js';
import { invoke, loadFunction } from './invoke.js';
import type { SeededMerchant } from './merchants.js';

const watchChain = FUNCTIONS.find((fn) => fn.name === 'watch-chain')!;
const runScheduled = invoker(loadFunction);

export type SummaryCount = 'recorded' | 'held' | 'confirmed' | 'failed' | 'credited';

export const total = (runs: readonly RunSummary[], field: SummaryCount): number => runs.reduce((sum, run) => sum + run[field], 0);

/** Sets these variables (undefined: removes them); answers how to put back what was there. */
export function setEnvironment(values: Record<string, string | undefined>): () => void {
  const saved = Object.keys(values).map((name) => [name, process.env[name]] as const);
  const apply = (entries: ReadonlyArray<readonly [string, string | undefined]>) => {
    for (const [name, value] of entries) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  };
  apply(Object.entries(values));
  return () => apply(saved);
}

/** Runs of the watch-chain function for one network. */
export function watcherOf(network: CryptoNetwork) {
  const once = async (): Promise<WatchResult> => (await runScheduled(watchChain, { network })) as WatchResult;

  /** Runs until one has scanned to the head; what each run reported. A failed run fails the test. */
  const catchUp = async (): Promise<RunSummary[]> => {
    const runs: RunSummary[] = [];
    for (let run = 0; run < 20; run++) {
      const result = await once();
      if ('runFailed' in result) throw new Error(`A ${network} watcher run failed against a healthy node`);
      runs.push(result);
      if (result.cursor === result.head) return runs;
    }
    throw new Error(`The ${network} watcher did not reach the head in 20 runs; the last: ${JSON.stringify(runs.at(-1))}`);
  };

  /**
   * A new container: the function's modules loaded again, reading the environment as it is with
   * `env` laid over. The watcher keeps nothing between runs but what is in the tables.
   */
  const coldStart = async (env: Record<string, string | undefined> = {}) => {
    const restore = setEnvironment(env);
    let handler: Awaited<ReturnType<typeof loadHandler>>;
    try {
      vi.resetModules();
      handler = await loadHandler(watchChain.name);
    } finally {
      restore();
    }
    return { run: async (): Promise<WatchResult> => (await handler!({ network } as never, lambdaContext(watchChain))) as WatchResult };
  };

  return { once, catchUp, coldStart };
}

export async function createInvoice(merchant: SeededMerchant, fields: Record<string, unknown>) {
  const response = await invoke('create-invoice', { apiKey: merchant.apiKey, body: { orderId: randomUUID(), customerId: `c-${randomUUID()}`, ...fields } });
  expect(response.status).toBe(200);
  return response.body.data;
}

/** An invoice's deposit address on a network. */
export const addressOn = (invoice: { wallet: { addresses: Array<{ network: string; address: string }> } }, network: CryptoNetwork): string => {
  const entry = invoice.wallet.addresses.find((candidate) => candidate.network === network);
  if (!entry) throw new Error(`The invoice has no ${network} address`);
  return entry.address;
};

export const getInvoice = async (merchant: SeededMerchant, id: string) => (await invoke('get-invoice', { apiKey: merchant.apiKey, pathParameters: { invoiceId: id } })).body.data;

export const getTransaction = async (merchant: SeededMerchant, id: string) => (await invoke('get-transaction', { apiKey: merchant.apiKey, pathParameters: { transactionId: id } })).body.data;

/** An invoice's deposits, oldest first. */
export const depositsOf = async (invoiceId: string): Promise<Transaction[]> =>
  (await new DynamoTransactionStore(documentClient, config().tables).listByInvoice(invoiceId)).sort((a, b) => a.createdAt.localeCompare(b.createdAt));

/** The callback owed for a transaction in a state, as the sender would send it; undefined when none is. */
export async function callbackFor(merchant: SeededMerchant, transactionId: string, status: Transaction['status']) {
  const entry = await new DynamoOutboxStore(documentClient, config().tables.outbox).get(webhookId(transactionId, status));
  return entry && JSON.parse(callbackBody(entry, merchant.callbackSecret));
}

/** What a deposit credited the merchant's balance: its entries as the merchant lists them. */
export const creditsOf = async (merchant: SeededMerchant, transactionId: string) =>
  (await invoke('list-balance-entries', { apiKey: merchant.apiKey, query: { transactionId } })).body.data.items.map(({ type, amount, currency }: Record<string, string>) => ({ type, amount, currency }));
