/**
 * Crypto payouts in this container, wired once at load: the treasury's signer (the stage's KMS
 * keys in AWS, key files on one machine), each network's payout adapter over its node as the
 * stage's configuration names it, the payouts queue, and the services over them.
 */
import { randomUUID } from 'node:crypto';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { KMSClient } from '@aws-sdk/client-kms';
import { payoutChainOf } from '../../shared/chain/payout-chains.js';
import { config } from '../../shared/config.js';
import type { CryptoNetwork } from '../../shared/domain/kernel/index.js';
import { CryptoPayoutService, type PayoutChains, type PayoutQueue, PayoutSender } from '../../shared/domain/payments/index.js';
import type { PayoutChain, TreasurySigner } from '../../shared/domain/payouts/index.js';
import { businessMetrics } from '../../shared/observability/metrics.js';
import { logger } from '../../shared/observability/logger.js';
import { traced } from '../../shared/observability/tracer.js';
import { sqsClient } from '../../shared/queue/sqs.js';
import { KeyFileTreasurySigner } from '../../shared/signers/key-file-signer.js';
import { KmsTreasurySigner } from '../../shared/signers/kms-signer.js';
import { DynamoPayoutAddressStore } from '../../shared/store/payout-addresses.js';
import { documentClient } from '../../shared/store/dynamo.js';
import { callbackPublisher } from './callbacks.js';
import { rateSource } from './rates.js';
import { stageConfiguration } from './stage-configuration.js';
import { balanceStore, merchantStore, transactionStore } from './stores.js';

const { stage, tables, treasurySigner, payoutQueueUrl } = config();

/** The treasury's signer; a function without the right to sign is refused by KMS (or has no key files), whatever it holds. */
export const treasury: TreasurySigner = treasurySigner.kind === 'aws' ? new KmsTreasurySigner(traced(new KMSClient({})), treasurySigner.keyIds) : new KeyFileTreasurySigner(treasurySigner.directory);

/** Each network's adapter, made again when the stage's configuration changes its node. */
const adapters = new Map<CryptoNetwork, { rpcUrl: string; chain: PayoutChain }>();

export const payoutChains: PayoutChains = (network) => {
  const chain = stageConfiguration.current().chains[network];
  if (!chain.rpcUrl) return undefined;
  const known = adapters.get(network);
  if (known?.rpcUrl === chain.rpcUrl) return known.chain;
  const made = payoutChainOf(network, { ...chain, rpcUrl: chain.rpcUrl }, treasury);
  adapters.set(network, { rpcUrl: chain.rpcUrl, chain: made });
  return made;
};

/** The payouts FIFO queue: the network is the message group, so each network has one sender at a time, in order. */
export function payoutQueue(): PayoutQueue {
  if (!payoutQueueUrl) throw new Error('Invalid environment: PAYOUT_QUEUE_URL is required');
  return {
    async enqueue(request) {
      const deduplicationId = request.kind === 'send' ? `${request.transactionId}:send` : `${request.transactionId}:replace:${request.attempts}`;
      await sqsClient.send(new SendMessageCommand({ QueueUrl: payoutQueueUrl, MessageBody: JSON.stringify(request), MessageGroupId: request.network, MessageDeduplicationId: deduplicationId }));
    },
  };
}

/** What paying out and refunding share: the stores, the networks' fee quotes, the rates and the payouts queue. */
export const payoutDeps = () => ({
  ledger: transactionStore,
  balances: balanceStore,
  merchants: merchantStore,
  feesOn: payoutChains,
  configuration: () => stageConfiguration.current(),
  rates: rateSource,
  queue: payoutQueue(),
  log: logger,
  stage,
  clock: () => new Date(),
  newId: randomUUID,
});

export const cryptoPayoutService = (): CryptoPayoutService => new CryptoPayoutService({ ...payoutDeps(), addresses: new DynamoPayoutAddressStore(documentClient, tables), callbacks: callbackPublisher });

export const payoutSender = (): PayoutSender => new PayoutSender({ records: transactionStore, chains: payoutChains, metrics: businessMetrics, clock: () => new Date() });
