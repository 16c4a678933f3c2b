/**
 * The chain watcher of one network per invocation (`{ network, watchForSeconds }`, one schedule
 * per configured network), whatever its family: its reader comes from shared/chain/network-readers.ts.
 * The invocation runs the watcher every GATEWAY_CHAIN_POLL_S for `watchForSeconds` (the schedule
 * sets most of its period; without it, one run: the local runtime's ticks, a run by hand). A run
 * that fails (an RPC down, timing out or answering garbage) logs one error, leaves the cursor where
 * it was and ends the invocation; the next does the work again, and nothing is credited twice.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { Context } from 'aws-lambda';
import { config } from '../shared/config.js';
import { networkReaderOf } from '../shared/chain/network-readers.js';
import { CHAIN_BLOCKS_PER_RUN, type InvocationSummary, NetworkWatcher, PayoutSettlement, pollUntilDeadline, sumRuns } from '../shared/domain/payments/index.js';
import { CRYPTO_NETWORKS, type CryptoNetwork } from '../shared/domain/kernel/index.js';
import { NETWORK_ADDRESS_FAMILY, type NetworkChain } from '../shared/domain/chains/index.js';
import { CHAIN_RUN_ALLOWANCE_SECONDS } from '../shared/platform.js';
import { reportChainRpcRun } from '../shared/observability/chain-rpc.js';
import { failureReason } from '../shared/observability/failure-reason.js';
import { logger, logScheduledRun } from '../shared/observability/logger.js';
import { observed } from '../shared/observability/tracer.js';
import { DynamoChainStore } from '../shared/store/chain.js';
import { documentClient } from '../shared/store/dynamo.js';
import { DynamoInvoiceStore } from '../shared/store/invoices.js';
import { CachedAddressOwners } from '../shared/store/address-owners.js';
import { DynamoWalletStore } from '../shared/store/wallets.js';
import { merchantStore, transactionStore } from './commons/stores.js';
import { stageConfiguration } from './commons/stage-configuration.js';
import { transactionService } from './commons/transactions.js';
import { payoutChains, payoutQueue } from './commons/payouts.js';
import { rateSource } from './commons/rates.js';

const { stage, tables, invoiceLifetimeSeconds, chainPollSeconds, payoutStuckSeconds } = config();

/** A processing payout nothing was signed for is handed to its sender again after this: its first message was lost, or given up on. */
const PAYOUT_HAND_OVER_SECONDS = 120;
const queue = payoutQueue();

/** Each network's watcher, with the settings it was built from: made again when the stage's configuration changes them. */
const watchers = new Map<CryptoNetwork, { chain: NetworkChain; watcher: Pick<NetworkWatcher, 'run'> }>();
/** The customers' addresses of every family, held for the container's life (shared/store/address-owners.ts). */
const owners = new CachedAddressOwners(new DynamoWalletStore(documentClient, tables.wallets));

function watcherOf(network: CryptoNetwork): Pick<NetworkWatcher, 'run'> {
  const chain = stageConfiguration.current().chains[network];
  const { rpcUrl } = chain;
  if (!rpcUrl) throw new Error(`${network} has no node configured (GATEWAY_RPC_${network.toUpperCase()}, or the stage's chain endpoints in AWS), so it is not watched`);
  let watcher = watchers.get(network)?.chain === chain ? watchers.get(network)!.watcher : undefined;
  if (!watcher) {
    const reader = networkReaderOf(network, { ...chain, rpcUrl }, reportChainRpcRun);
    const networkWatcher = new NetworkWatcher({
      network,
      family: NETWORK_ADDRESS_FAMILY[network],
      confirmations: chain.confirmations,
      tokens: chain.tokens,
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
    const payouts = new PayoutSettlement({
      network,
      confirmations: chain.confirmations,
      records: transactionStore,
      chain: payoutChains(network)!,
      queue,
      transactions: transactionService,
      rates: rateSource,
      stuckSeconds: payoutStuckSeconds,
      handOverSeconds: PAYOUT_HAND_OVER_SECONDS,
      clock: () => new Date(),
    });
    // Each run reports once, at its end, what each of the network's RPC endpoints answered; the
    // treasury's payouts are followed after the deposits, by the same node.
    watcher = {
      run: async () => {
        // Beside the deposits' scan, not after it: a scan that fails (a node behind the cursor) holds no payout back, nor the other way.
        const [scan] = await Promise.allSettled([reader.observeRun(() => networkWatcher.run()), followPayouts(network, payouts)]);
        if (scan.status === 'rejected') throw scan.reason;
        return scan.value;
      },
    };
    watchers.set(network, { chain, watcher });
  }
  return watcher;
}

/** One run of the network's payouts' settlement; a failure is logged, and the next run does it again. */
async function followPayouts(network: CryptoNetwork, payouts: PayoutSettlement): Promise<void> {
  try {
    const followed = await payouts.run();
    if (Object.values(followed).some((count) => count > 0)) logger.info('Payouts followed', { network, ...followed });
  } catch (error) {
    logger.error('Following the payouts failed; the next run follows them again', { network, reason: failureReason(error) });
  }
}

/**
 * A failed run says so apart from `failed`, the count of deposits that left the chain; what the
 * invocation's runs before it did, if any completed, is beside it.
 */
export type WatchResult = InvocationSummary | { network: CryptoNetwork; runFailed: true; completed?: InvocationSummary };

/**
 * When the invocation starts its last run: `watchForSeconds` from now, and never so late that the
 * run could outlast the function's timeout.
 */
function deadlineOf(watchForSeconds: number, context: Context | undefined, now: number): number {
  const remainingMs = typeof context?.getRemainingTimeInMillis === 'function' ? context.getRemainingTimeInMillis() : Infinity;
  return now + Math.max(0, Math.min(watchForSeconds * 1000, remainingMs - CHAIN_RUN_ALLOWANCE_SECONDS * 1000));
}

export const handler = observed(async (event: { network?: unknown; watchForSeconds?: unknown }, context: Context): Promise<WatchResult> => {
  const { network, watchForSeconds = 0 } = event;
  if (typeof network !== 'string' || !(CRYPTO_NETWORKS as readonly string[]).includes(network)) {
    throw new Error(`watch-chain needs { network } with one of ${CRYPTO_NETWORKS.join(', ')}; got ${JSON.stringify(network)}`);
  }
  if (typeof watchForSeconds !== 'number' || !Number.isFinite(watchForSeconds) || watchForSeconds < 0) {
    throw new Error(`watch-chain's watchForSeconds must be a number of seconds, 0 or more; got ${JSON.stringify(watchForSeconds)}`);
  }
  const watcher = watcherOf(network as CryptoNetwork);
  const outcome = await pollUntilDeadline({
    run: () => watcher.run(),
    pollMs: chainPollSeconds * 1000,
    deadline: deadlineOf(watchForSeconds, context, Date.now()),
    now: Date.now,
    sleep: (ms) => sleep(ms),
  });
  // One line per invocation, whatever the number of runs in it.
  const summary = outcome.runs.length > 0 ? sumRuns(outcome.runs) : undefined;
  if (summary) {
    // Scanning blocks that hold nothing for the gateway, and moving the cursor past them, is every run's routine.
    const found = summary.recorded + summary.held + summary.confirmed + summary.failed + summary.credited > 0 || summary.reorg !== undefined;
    logScheduledRun('Chain watcher run', { ...summary }, found);
  }
  if (!('error' in outcome)) return summary!;
  logger.error('Chain watcher run failed; its cursor stays where it was and the next run tries again', { network, reason: failureReason(outcome.error) });
  return { network: network as CryptoNetwork, runFailed: true, ...(summary ? { completed: summary } : {}) };
});
