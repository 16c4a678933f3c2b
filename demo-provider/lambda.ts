/**
 * The demo provider in AWS: `handler` serves API Gateway's `/demo-provider/{proxy+}` (REST proxy
 * events), `queueHandler` runs the waiting work its queue hands back when due. The shared secret
 * is read from Secrets Manager once per container, while it starts.
 */
import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import { Logger } from '@aws-lambda-powertools/logger';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SQSClient } from '@aws-sdk/client-sqs';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { httpDeliver } from '../shared/outbound/http-delivery.js';
import { secretsManagerReader } from '../shared/connectors/secret-store.js';
import { requestOfEvent, resultOfResponse } from './adapters/api-gateway-event.js';
import { DynamoDemoStore } from './adapters/dynamo-store.js';
import { SqsScheduler } from './adapters/sqs-scheduler.js';
import { DEMO_PROVIDER_PATH, parseLambdaSettings } from './config.js';
import { demoRequestHandler } from './core/http.js';
import type { DemoLog } from './core/ports.js';
import { EVENT_TIMEOUT_MS } from './core/records.js';
import { DemoProvider } from './core/service.js';

const settings = parseLambdaSettings(process.env);
const logger = new Logger({ serviceName: 'demo-provider' });
const log: DemoLog = {
  info: (message, details = {}) => logger.info(message, details),
  warn: (message, details = {}) => logger.warn(message, details),
  error: (message, details = {}, cause) => logger.error(message, { ...details, ...(cause === undefined ? {} : { error: cause }) }),
};

const clock = () => new Date();
const scheduler = new SqsScheduler(new SQSClient({}), settings.queueUrl, clock);
const provider = new DemoProvider({
  secret: await secretsManagerReader(new SecretsManagerClient({}))(settings.secretArn),
  publicUrl: settings.publicUrl,
  utrDecisionDelaySeconds: settings.utrDecisionDelaySeconds,
  store: new DynamoDemoStore(DynamoDBDocumentClient.from(new DynamoDBClient({}), { marshallOptions: { removeUndefinedValues: true } }), settings.tableName),
  scheduler,
  // Events go to the gateway's public API: nothing private is reached from here.
  deliver: httpDeliver({ guard: { httpsOnly: false, targets: 'public' }, timeoutMs: EVENT_TIMEOUT_MS }),
  clock,
  log,
});
const handle = demoRequestHandler(provider, log);

export const handler = async (event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> => resultOfResponse(await handle(requestOfEvent(event, DEMO_PROVIDER_PATH)));

const processor = new BatchProcessor(EventType.SQS);

async function runJob(record: SQSRecord): Promise<void> {
  try {
    await scheduler.receive(record.body, (job) => provider.run(job));
  } catch (error) {
    // The message returns to the queue, and to its dead-letter queue after its last receive.
    log.error('Job failed; its message returns to the queue', { messageId: record.messageId }, error);
    throw error;
  }
}

export const queueHandler = async (event: SQSEvent): Promise<SQSBatchResponse> => processPartialResponse(event, runJob, processor);
