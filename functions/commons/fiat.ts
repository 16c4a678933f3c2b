/** The fiat service of this container: receipts, the card vault and the provider, wired once at load. */
import { randomUUID } from 'node:crypto';
import { S3Client } from '@aws-sdk/client-s3';
import { config } from '../../shared/config.js';
import { FiatService, type FiatProvider } from '../../shared/domain/fiat-service.js';
import { logger } from '../../shared/http/logger.js';
import { traced } from '../../shared/observability/tracer.js';
import { SimulatedFiatProvider } from '../../shared/queue/fiat-provider.js';
import { sqsClient } from '../../shared/queue/sqs.js';
import { documentClient } from '../../shared/store/dynamo.js';
import { FileReceiptStore, S3ReceiptStore } from '../../shared/store/receipts.js';
import { DynamoTransactionStore } from '../../shared/store/transactions.js';
import { seal } from '../../shared/vault/envelope.js';
import { rateSource } from './rates.js';
import { merchantStore, transactionService } from './transactions.js';
import { requireVault } from './vault.js';

const { stage, tables, receipts, providerDelaySeconds, fiatDecisionQueueUrl } = config();
if (!receipts) throw new Error('Invalid environment: RECEIPTS_BUCKET (AWS) or GATEWAY_RECEIPTS_DIR is required');
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

export const fiatService = new FiatService({
  transactions: transactionService,
  ledger: new DynamoTransactionStore(documentClient, tables),
  merchants: merchantStore,
  receipts: receipts.kind === 'aws' ? new S3ReceiptStore(traced(new S3Client({})), receipts.bucket) : new FileReceiptStore(receipts.directory, dataKeys),
  vault: { seal: (cardNumber, context) => seal(dataKeys, cardNumber, context) },
  provider,
  rates: rateSource,
  clock: () => new Date(),
  newId: randomUUID,
});
