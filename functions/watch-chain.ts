/**
 * The chain watcher of one network per invocation (`{ network }`, one schedule per configured
 * network), whatever its family: its reader comes from shared/chain/network-readers.ts. A run that fails (an RPC down, timing out or answering garbage) logs one error and
 * leaves the cursor where it was; the next run does the work again, and nothing is credited twice.
 */
import { config } from '../shared/config.js';
import { networkReaderOf } from '../shared/chain/network-readers.js';
import { CHAIN_BLOCKS_PER_RUN, NetworkWatcher, type RunSummary } from '../shared/domain/chain-watcher.js';
import { CRYPTO_NETWORKS, type CryptoNetwork } from '../shared/domain/currencies.js';
import { NETWORK_ADDRESS_FAMILY } from '../shared/domain/wallets.js';
import { reportChainRpcRun } from '../shared/observability/chain-rpc.js';
import { logger, logScheduledRun } from '../shared/observability/logger.js';
import { observed } from '../shared/observability/tracer.js';
import { DynamoChainStore } from '../shared/store/chain.js';
import { documentClient } from '../shared/store/dynamo.js';
import { DynamoInvoiceStore } from '../shared/store/invoices.js';
import { CachedAddressOwners } from '../shared/store/address-owners.js';
import { DynamoWalletStore } from '../shared/store/wallets.js';
import { merchantStore, transactionStore } from './commons/stores.js';
import { transactionService } from './commons/transactions.js';

const { stage, tables, chains, invoiceLifetimeSeconds } = config();

const watchers = new Map<CryptoNetwork, Pick<NetworkWatcher, 'run'>>();
/** The customers' addresses of every family, held for the container's life (shared/store/address-owners.ts). */
const owners = new CachedAddressOwners(new DynamoWalletStore(documentClient, tables.wallets));

function watcherOf(network: CryptoNetwork): Pick<NetworkWatcher, 'run'> {
  const chain = chains[network];
  const { rpcUrl } = chain;
  if (!rpcUrl) throw new Error(`${network} has no node configured (GATEWAY_RPC_${network.toUpperCase()}), so it is not watched`);
  let watcher = watchers.get(network);
  if (!watcher) {
    const reader = networkReaderOf(network, { ...chain, rpcUrl }, reportChainRpcRun);
    const networkWatcher = new NetworkWatcher({
      network,
      family: NETWORK_ADDRESS_FAMILY[network],
      confirmations: chain.confirmations,
      reader,
      state: new DynamoChainStore(documentClient, tables.chain),
      owners,
      invoices: new DynamoInvoiceStore(documentClient, tables),
      merchants: merchantStore,
      transactions: transactionService,
      pending: transactionStore,
      stage,
      invoiceLifetimeSeconds,
      maxBlocksPerRun: CHAIN_BLOCKS_PER_RUN,
      clock: () => new Date(),
      log: { info: (message, details = {}) => logger.info(message, details), warn: (message, details = {}) => logger.warn(message, details) },
    });
    // Each run reports once, at its end, what each of the network's RPC endpoints answered.
    watcher = { run: () => reader.observeRun(() => networkWatcher.run()) };
    watchers.set(network, watcher);
  }
  return watcher;
}

/**
 * Why a run failed, on one line: each error with what lies beneath it (a refused connection under
 * fetch's `fetch failed`), and for an answer of the wrong shape the fields that are wrong rather
 * than the first line of the validator's multi-line message.
 */
function failureReason(error: unknown): string {
  const reasons: string[] = [];
  for (let cause = error, depth = 0; cause !== undefined && depth < 3; cause = cause instanceof Error ? cause.cause : undefined, depth++) {
    if (!(cause instanceof Error)) {
      reasons.push(String(cause));
      continue;
    }
    const issues = (cause as { issues?: unknown }).issues;
    const message = Array.isArray(issues)
      ? issues
          .slice(0, 3)
          .map((issue: { path?: PropertyKey[]; message?: string }) => `${(issue.path ?? []).map(String).join('.') || 'the answer'}: ${issue.message}`)
          .join('; ')
      : cause.message.split('\n')[0];
    reasons.push(`${cause.name}: ${message}`);
  }
  return reasons.join(', caused by ');
}

/** A run that failed says so apart from `failed`, the count of deposits that left the chain. */
export type WatchResult = RunSummary | { network: CryptoNetwork; runFailed: true };

export const handler = observed(async (event: { network?: unknown }): Promise<WatchResult> => {
  const network = event.network;
  if (typeof network !== 'string' || !(CRYPTO_NETWORKS as readonly string[]).includes(network)) {
    throw new Error(`watch-chain needs { network } with one of ${CRYPTO_NETWORKS.join(', ')}; got ${JSON.stringify(network)}`);
  }
  const watcher = watcherOf(network as CryptoNetwork);
  try {
    const summary = await watcher.run();
    // Scanning blocks that hold nothing for the gateway, and moving the cursor past them, is every run's routine.
    const found = summary.recorded + summary.held + summary.confirmed + summary.failed + summary.credited > 0 || summary.reorg !== undefined;
    logScheduledRun('Chain watcher run', { ...summary }, found);
    return summary;
  } catch (error) {
    logger.error('Chain watcher run failed; its cursor stays where it was and the next run tries again', { network, reason: failureReason(error) });
    return { network: network as CryptoNetwork, runFailed: true };
  }
});
