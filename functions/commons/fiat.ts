/**
 * The fiat service of this container, wired once at load: the card vault and the provider, and
 * the receipt store for the functions that confirm deposits (`fiatServiceWith(receiptStore())`).
 */
import { randomUUID } from 'node:crypto';
import { config } from '../../shared/config.js';
import { FiatService, type FiatProvider, type ReceiptStore } from '../../shared/domain/fiat-service.js';
import { logger } from '../../shared/http/logger.js';
import { SimulatedFiatProvider } from '../../shared/queue/fiat-provider.js';
import { sqsClient } from '../../shared/queue/sqs.js';
import { seal } from '../../shared/vault/envelope.js';
import { rateSource } from './rates.js';
import { merchantStore, transactionStore } from './stores.js';
import { transactionService } from './transactions.js';
import { requireVault } from './vault.js';

const { stage, providerDelaySeconds, fiatDecisionQueueUrl } = config();
if (stage === 'demo' && !fiatDecisionQueueUrl) throw new Error('Invalid environment: FIAT_DECISION_QUEUE_URL is required in demo');
const { dataKeys } = requireVault();

/**
 * The demo answers UTRs itself. Production hands them to the local payment provider, whose
 * integration delivers its decisions; until it does, claims stay `processing`.
 */
const provider: FiatProvider =
  stage === 'demo'
    ? new SimulatedFiatProvider(sqsClient, fiatDecisionQueueUrl!, providerDelaySeconds)
    : {
        submitUtr: async ({ transactionId }) => logger.info('UTR awaits the provider decision', { transactionId }),
        requestPayout: async ({ transactionId }) => logger.info('Payout awaits the provider', { transactionId }),
      };

export const fiatServiceWith = (receipts?: ReceiptStore): FiatService =>
  new FiatService({
    transactions: transactionService,
    ledger: transactionStore,
    merchants: merchantStore,
    receipts,
    vault: { seal: (cardNumber, context) => seal(dataKeys, cardNumber, context) },
    provider,
    rates: rateSource,
    clock: () => new Date(),
    newId: randomUUID,
  });
