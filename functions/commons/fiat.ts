/** The fiat service of this container: receipts, the card vault and the provider, wired once at load. */
import { randomUUID } from 'node:crypto';
import { KMSClient } from '@aws-sdk/client-kms';
import { S3Client } from '@aws-sdk/client-s3';
import { config } from '../../shared/config.js';
import { FiatService, type FiatProvider } from '../../shared/domain/fiat-service.js';
import { DEMO_USD_PRICES, StaticRateSource } from '../../shared/domain/rates.js';
import { logger } from '../../shared/http/logger.js';
import { SimulatedFiatProvider } from '../../shared/queue/fiat-provider.js';
import { sqsClient } from '../../shared/queue/sqs.js';
import { documentClient } from '../../shared/store/dynamo.js';
import { FileReceiptStore, S3ReceiptStore } from '../../shared/store/receipts.js';
import { DynamoTransactionStore } from '../../shared/store/transactions.js';
import { seal } from '../../shared/vault/envelope.js';
import { KeyFileDataKeySource, KmsDataKeySource } from '../../shared/vault/key-sources.js';
import { merchantStore, transactionService } from './transactions.js';

const { stage, tables, vault, providerDelaySeconds, fiatDecisionQueueUrl } = config();
if (!vault) throw new Error('Invalid environment: CARD_KMS_KEY_ID and RECEIPTS_BUCKET (AWS), or GATEWAY_KEY_FILE and GATEWAY_RECEIPTS_DIR, are required');
if (stage === 'demo' && !fiatDecisionQueueUrl) throw new Error('Invalid environment: FIAT_DECISION_QUEUE_URL is required in demo');

const dataKeys = vault.kind === 'aws' ? new KmsDataKeySource(new KMSClient({}), vault.kmsKeyId) : new KeyFileDataKeySource(vault.keyFile);

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
  receipts: vault.kind === 'aws' ? new S3ReceiptStore(new S3Client({}), vault.receiptsBucket) : new FileReceiptStore(vault.receiptsDirectory, dataKeys),
  vault: { seal: (cardNumber, context) => seal(dataKeys, cardNumber, context) },
  provider,
  rates: new StaticRateSource(DEMO_USD_PRICES),
  clock: () => new Date(),
  newId: randomUUID,
});
