/**
 * One deployment of the gateway (a stage). Every function comes from the route table
 * (shared/routes.ts) and every table from the table definitions (shared/store/tables.ts): adding a
 * route or a table there is all it takes to deploy it.
 */
import { Aws, CfnOutput, CfnParameter, Duration, RemovalPolicy, Stack, Tags, type StackProps } from 'aws-cdk-lib';
import {
  AccessLogField,
  AccessLogFormat,
  ApiKeySourceType,
  AuthorizationType,
  CfnRestApi,
  EndpointType,
  IdentitySource,
  LambdaIntegration,
  LogGroupLogDestination,
  MethodLoggingLevel,
  MockIntegration,
  RequestAuthorizer,
  ResponseType,
  RestApi,
  SecurityPolicy,
  type IResource,
} from 'aws-cdk-lib/aws-apigateway';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import {
  Alarm,
  AlarmStatusWidget,
  type AlarmProps,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  Metric,
  Stats,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import { AttributeType, BillingMode, ProjectionType, Table, type ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, RuleTargetInput, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { AccountRootPrincipal, PolicyDocument, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Key } from 'aws-cdk-lib/aws-kms';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership, type BucketProps } from 'aws-cdk-lib/aws-s3';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { StringParameter } from 'aws-cdk-lib/aws-ssm';
import type { CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import type { Construct } from 'constructs';
import type { EvmNetwork } from '../../shared/domain/networks.js';
import type { AddressFamily } from '../../shared/domain/wallets.js';
import { TEST_WALLET_XPUBS } from '../../shared/domain/test-wallet-keys.js';
import { ERROR_STATUS, UNAUTHORIZED_MESSAGE, type ErrorCode } from '../../shared/errors.js';
import { GATEWAY_MESSAGES, PER_KEY_THROTTLE, PUBLIC_ROUTE_THROTTLE, STAGE_METHOD_THROTTLE, THROTTLED_RETRY_AFTER_SECONDS } from '../../shared/platform.js';
import { QUEUES, type QueueDefinition, type QueueName } from '../../shared/queue/queues.js';
import { functionsForStage, type HttpRoute } from '../../shared/routes.js';
import type { Stage } from '../../shared/stage.js';
import { TABLES, TABLE_KEYS, type IndexDefinition, type KeyAttribute, type TableDefinition, type TableKey } from '../../shared/store/tables.js';
import { GatewayFunction, SERVICE_NAME, usesVaultKey, type QueueWithDeadLetter, type StageQueues, type Vault, type WalletKeyParameters } from './gateway-function.js';
import { DEFAULT_LIVE_RATES, liveRatesEnvironment, type LiveRates } from './live-rates.js';
import { demoProviderRoute } from '../../shared/domain/providers.js';
import { acknowledge } from './nag.js';
import { businessMetricRows, notifyOnEveryAlarm, providersOverdueAlarm, ratesStaleAlarm, subscribeAlarmEmail } from './operations.js';
import { PaymentProviders, type ProviderDeployment } from './payment-providers.js';
import { DemoProvider } from './demo-provider.js';
import { createStageWebAcl, ruleMetricNames } from './web-acl.js';

export const gatewayStackName = (stage: Stage): string => `PaymentGateway-${stage}`;

interface StageSettings {
  /**
   * Tables, queues, the vault key, the buckets and the logs outlive the stack, tables refuse
   * deletion, and so does the stack.
   */
  protectData: boolean;
  logRetention: RetentionDays;
  /** Derive deposit addresses from the public test mnemonic instead of keys the operator supplies. */
  testWalletKeys: boolean;
  /** Prices from a ticker; without, the fixed demo table. */
  liveRates?: LiveRates;
}

const STAGE_SETTINGS: Record<Stage, StageSettings> = {
  prod: { protectData: true, logRetention: RetentionDays.ONE_YEAR, testWalletKeys: false, liveRates: DEFAULT_LIVE_RATES },
  demo: { protectData: false, logRetention: RetentionDays.TWO_WEEKS, testWalletKeys: true },
};

/** Invoice lifetime: 15 minutes (merchant-api.md). */
const INVOICE_LIFETIME_SECONDS = 900;

/** The callback retry schedule of decisions 10 as written; only tests compress it. */
const CALLBACK_RETRY_SCALE = 1;

/** How long a rotated callback secret keeps signing beside the new one (decisions 16). */
const CALLBACK_SECRET_OVERLAP_SECONDS = 24 * 3600;

/** How long the demo provider takes to decide a UTR (GATEWAY_PROVIDER_DELAY_S locally). */
const DEMO_PROVIDER_DELAY_SECONDS = 2;

/** How long an authorizer decision is reused for the same `x-api-key`; also how long a revoked key lingers. */
const AUTHORIZER_CACHE_TTL = Duration.seconds(30);

/** The callback retry schedule runs 72 hours; messages must outlive it. */
const QUEUE_RETENTION = Duration.days(4);
const DEAD_LETTER_RETENTION = Duration.days(14);

/** Receipts' multipart uploads left unfinished (a function that timed out) are removed after this. */
const INCOMPLETE_UPLOAD_LIFETIME = Duration.days(1);

/**
 * What the key policy lets the account's administrators do with the vault key: manage it, never
 * use it to decrypt. Without this the key could not be managed at all, nor its policy changed by
 * the next deployment. These are AWS's key-administrator actions less `kms:CreateGrant` (of
 * `kms:Create*`): no grant can give anyone the key's use beside its policy, so reading what is
 * sealed takes a change of that policy, which CloudTrail records.
 */
const KEY_ADMINISTRATION_ACTIONS = [
  'kms:CreateAlias',
  'kms:Describe*',
  'kms:Enable*',
  'kms:List*',
  'kms:Put*',
  'kms:Update*',
  'kms:Revoke*',
  'kms:Disable*',
  'kms:Get*',
  'kms:Delete*',
  'kms:TagResource',
  'kms:UntagResource',
  'kms:ScheduleKeyDeletion',
  'kms:CancelKeyDeletion',
  'kms:RotateKeyOnDemand',
];

/**
 * A callback nobody has received for this long means deliveries are not progressing. Messages
 * waiting out a retry do not trip it: SQS leaves a message received three times out of the age
 * metric, and a failing callback gets its third attempt within minutes.
 */
const CALLBACK_BACKLOG_AGE = Duration.hours(4);

const ALARM_PERIOD = Duration.minutes(5);

/**
 * The authorizer is one DynamoDB read: a p99 above this means its table or its network is
 * struggling, and every authenticated request waits on it. (Lambda's Duration leaves out cold
 * starts' initialisation.)
 */
const AUTHORIZER_P99_DURATION = Duration.seconds(1);

/** Account-level extended public keys only: a private key (`xprv`) must never reach a parameter. */
const XPUB_PATTERN = '^[xz]pub[1-9A-HJ-NP-Za-km-z]{107}$';

const REQUEST_ID_HEADER = 'x-request-id';
/** Parameter-mapping expression of the request id, the value `x-request-id` carries everywhere. */
const REQUEST_ID_MAPPING = 'context.requestId';
/** The request id inside a response template. */
const REQUEST_ID_TEMPLATE = '$context.requestId';

const INTERNAL_ERROR = `Internal server error (request id ${REQUEST_ID_TEMPLATE})`;

/** A throttled client may try again once its key's bucket has refilled a little. */
const THROTTLED_HEADERS = { 'Retry-After': `'${THROTTLED_RETRY_AFTER_SECONDS}'` };

/** Failures API Gateway answers itself, rendered as the error envelope (decisions 1 and 2). */
const GATEWAY_ERRORS: ReadonlyArray<{ type: ResponseType; code: ErrorCode; message: string; headers?: Record<string, string> }> = [
  { type: ResponseType.UNAUTHORIZED, code: 'unauthorized', message: UNAUTHORIZED_MESSAGE },
  { type: ResponseType.ACCESS_DENIED, code: 'unauthorized', message: UNAUTHORIZED_MESSAGE },
  // The key's digest is not in the usage plan: a key API Gateway does not know.
  { type: ResponseType.INVALID_API_KEY, code: 'unauthorized', message: UNAUTHORIZED_MESSAGE },
  // API Gateway's answer to a path that has no method.
  { type: ResponseType.MISSING_AUTHENTICATION_TOKEN, code: 'not_found', message: GATEWAY_MESSAGES.routeNotFound },
  { type: ResponseType.RESOURCE_NOT_FOUND, code: 'not_found', message: GATEWAY_MESSAGES.routeNotFound },
  { type: ResponseType.THROTTLED, code: 'too_many_requests', message: GATEWAY_MESSAGES.tooManyRequests, headers: THROTTLED_HEADERS },
  { type: ResponseType.QUOTA_EXCEEDED, code: 'too_many_requests', message: GATEWAY_MESSAGES.tooManyRequests, headers: THROTTLED_HEADERS },
  { type: ResponseType.REQUEST_TOO_LARGE, code: 'payload_too_large', message: GATEWAY_MESSAGES.payloadTooLarge },
  { type: ResponseType.BAD_REQUEST_BODY, code: 'bad_request', message: 'Malformed request body' },
  { type: ResponseType.BAD_REQUEST_PARAMETERS, code: 'bad_request', message: 'Malformed request parameters' },
  { type: ResponseType.UNSUPPORTED_MEDIA_TYPE, code: 'unsupported_media_type', message: 'Unsupported media type' },
  // A request the web ACL's managed rules took for an attack.
  { type: ResponseType.WAF_FILTERED, code: 'forbidden', message: 'Request refused' },
  { type: ResponseType.AUTHORIZER_FAILURE, code: 'internal_server_error', message: INTERNAL_ERROR },
  { type: ResponseType.AUTHORIZER_CONFIGURATION_ERROR, code: 'internal_server_error', message: INTERNAL_ERROR },
  { type: ResponseType.INTEGRATION_TIMEOUT, code: 'gateway_timeout', message: `Gateway timeout (request id ${REQUEST_ID_TEMPLATE})` },
  { type: ResponseType.DEFAULT_4XX, code: 'bad_request', message: 'Bad request' },
  { type: ResponseType.DEFAULT_5XX, code: 'internal_server_error', message: INTERNAL_ERROR },
];

const PROJECTION_TYPE = { all: ProjectionType.ALL, keys: ProjectionType.KEYS_ONLY } as const;

/** `create-invoice` -> `CreateInvoice`, `apiKeys` -> `ApiKeys`: construct and output ids. */
const pascalCase = (name: string): string => name.replace(/(?:^|-)(\w)/g, (_, first: string) => first.toUpperCase());

/** `CALLBACK_DLQ_URL` -> `CallbackDlqUrl`: a queue's stack output is named after its variable. */
const outputName = (variable: string): string =>
  variable
    .toLowerCase()
    .split('_')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');

/** `CALLBACK_DLQ_URL` -> `CallbackDlqArn`: the ARN next to the URL, which SQS's redrive takes. */
const arnOutputName = (urlVariable: string): string => outputName(urlVariable).replace(/Url$/, 'Arn');

/** The queues of `QUEUES` a stage has. */
const queuesOfStage = (stage: Stage): Array<[QueueName, QueueDefinition]> =>
  (Object.entries(QUEUES) as Array<[QueueName, QueueDefinition]>).filter(([, definition]) => definition.stages.includes(stage));

const errorEnvelope = (code: ErrorCode, message: string): string =>
  JSON.stringify({ success: false, errors: [{ code, message }] });

/** Why methods have no Cognito authorizer, or none at all. */
const MERCHANT_AUTHORIZATION = 'Merchants authenticate with API keys (the contract), which the request authorizer resolves; merchants have no Cognito identities.';
const PROVIDER_ROUTE =
  "Called by payment providers, which hold no API key: each request carries the provider's Standard Webhooks signature, which the function checks before it reads anything else; the web ACL rates it per address.";
const PUBLIC_ROUTE =
  'Public by design: the hosted checkout (the invoice id in its link is the capability), the docs and the OpenAPI document; they are throttled per method and, in the web ACL, per address.';
const ERROR_METHOD = 'Answers a 404 or 405 envelope from a mock integration: nothing is invoked and nothing is disclosed.';

/** A custom domain for the API: a regional API Gateway domain name with TLS 1.2 at least. */
export interface CustomDomain {
  /** e.g. `pay.example.com`; the DNS record (a CNAME or alias to the `CustomDomainTarget` output) is the operator's. */
  domainName: string;
  /** ARN of an ACM certificate for the domain, in the stack's region. */
  certificateArn: string;
}

export interface GatewayStackProps extends StackProps {
  stage: Stage;
  /** Origin of the hosted checkout; by default the custom domain's, else the API's execute-api URL. */
  publicBaseUrl?: string;
  /**
   * Serves the stage at its root; the execute-api endpoint is then disabled, so that every client
   * goes through the domain.
   */
  customDomain?: CustomDomain;
  /**
   * EVM networks the chain watcher reads (decisions 15), each with token contracts replacing the
   * stage's built-in ones when given. Each gets a schedule and a `ChainRpc{Network}` parameter for
   * its JSON-RPC URL (NoEcho: it often carries a provider's key).
   */
  watchedNetworks?: Partial<Record<EvmNetwork, { tokens?: Partial<Record<'USDT' | 'USDC', string>> }>>;
  /** Live exchange rates in place of the stage's (prod: Binance's public ticker; demo: the fixed table). */
  liveRates?: LiveRates;
  /**
   * The stage's payment providers (decisions 18), each with a secret this stack makes in Secrets
   * Manager; the demo stage has the demo provider beside them, first.
   */
  providers?: readonly ProviderDeployment[];
}

export class GatewayStack extends Stack {
  private readonly stage: Stage;
  private readonly settings: StageSettings;

  constructor(
    scope: Construct,
    id: string,
    { stage, publicBaseUrl, customDomain, watchedNetworks = {}, liveRates = STAGE_SETTINGS[stage].liveRates, providers = [], ...stackProps }: GatewayStackProps,
  ) {
    const settings = STAGE_SETTINGS[stage];
    super(scope, id, {
      description: `Payment gateway merchant API (${stage})`,
      terminationProtection: settings.protectData,
      ...stackProps,
    });
    this.stage = stage;
    this.settings = settings;
    Tags.of(this).add('service', SERVICE_NAME);
    Tags.of(this).add('stage', this.stage);

    const tables = this.createTables();
    const queues = this.createQueues();
    const definitions = functionsForStage(this.stage);
    // One key and one bucket per stack, made only when some function of the stage needs them.
    const vault = definitions.some(usesVaultKey) ? this.createVault() : undefined;
    const walletKeys = definitions.some((definition) => definition.readsWalletKeys) ? this.createWalletKeyParameters() : undefined;
    const httpRoutes = definitions.filter((definition): definition is HttpRoute => definition.kind === 'http');
    const api = this.createRestApi(customDomain, httpRoutes);
    const customDomainUrl = customDomain && `https://${customDomain.domainName}`;

    // From the API id rather than `api.url`: the stage depends on the functions, which would close a cycle.
    const stagePublicBaseUrl = publicBaseUrl ?? customDomainUrl ?? `https://${api.restApiId}.execute-api.${Aws.REGION}.${Aws.URL_SUFFIX}/${this.stage}`;
    const paymentProviders = this.createPaymentProviders(api, stagePublicBaseUrl, providers);
    const environment: Record<string, string> = {
      STAGE: this.stage,
      PUBLIC_BASE_URL: stagePublicBaseUrl,
      GATEWAY_INVOICE_LIFETIME_S: String(INVOICE_LIFETIME_SECONDS),
      GATEWAY_RETRY_SCALE: String(CALLBACK_RETRY_SCALE),
      GATEWAY_SECRET_OVERLAP_S: String(CALLBACK_SECRET_OVERLAP_SECONDS),
      ...liveRatesEnvironment(liveRates),
      // Token contracts reach every function: the checkout's payment links name them too.
      ...Object.fromEntries(
        Object.entries(watchedNetworks).flatMap(([network, { tokens }]) => (tokens ? [[`GATEWAY_TOKENS_${network.toUpperCase()}`, JSON.stringify(tokens)]] : [])),
      ),
    };
    const rpcEnvironment = this.chainRpcEnvironment(Object.keys(watchedNetworks) as EvmNetwork[]);
    const functions = definitions.map(
      (definition) =>
        new GatewayFunction(this, pascalCase(definition.name), {
          definition,
          // The RPC URLs only where the chain is read.
          environment: definition.kind === 'schedule' && definition.perEvmNetwork ? { ...environment, ...rpcEnvironment } : environment,
          tables,
          queues,
          vault,
          walletKeys,
          providerSecrets: paymentProviders.secrets,
          providerEnvironment: paymentProviders.environment,
          logRetention: settings.logRetention,
          removalPolicy: this.removalPolicy,
          watchedNetworks: Object.keys(watchedNetworks).length,
        }),
    );

    this.addRoutes(api, functions);
    this.addErrorResponses(api);
    const webAcl = createStageWebAcl(this, 'WebAcl', {
      stage: api.deploymentStage,
      stageName: this.stage,
      name: `${SERVICE_NAME}-${this.stage}`,
      routes: httpRoutes,
      payloadTooLargeBody: errorEnvelope('payload_too_large', GATEWAY_MESSAGES.payloadTooLarge),
      tooManyRequestsBody: errorEnvelope('too_many_requests', GATEWAY_MESSAGES.tooManyRequests),
    });
    this.addSchedules(functions, Object.keys(watchedNetworks) as EvmNetwork[], liveRates !== undefined);
    this.addMonitoring(api, functions, queues, webAcl, liveRates);

    const usagePlan = api.addUsagePlan('UsagePlan', {
      name: `${SERVICE_NAME}-${this.stage}`,
      description: 'Per-key throttling; the merchant admin CLI adds each key (by digest).',
      throttle: { rateLimit: PER_KEY_THROTTLE.ratePerSecond, burstLimit: PER_KEY_THROTTLE.burst },
      apiStages: [{ api, stage: api.deploymentStage }],
    });

    this.output('ApiUrl', customDomainUrl ? `${customDomainUrl}/` : api.url, 'Base URL of the merchant API');
    this.output('RestApiId', api.restApiId);
    if (api.domainName) {
      this.output('CustomDomainTarget', api.domainName.domainNameAliasDomainName, `Point ${customDomain?.domainName} here (CNAME, or alias record with CustomDomainHostedZoneId)`);
      this.output('CustomDomainHostedZoneId', api.domainName.domainNameAliasHostedZoneId);
    }
    this.output('UsagePlanId', usagePlan.usagePlanId, 'Usage plan the admin CLI adds API keys to');
    for (const [name, definition] of queuesOfStage(this.stage)) {
      const { queue, deadLetterQueue } = queues[name]!;
      const queueOutput = outputName(definition.urlVariable);
      this.output(queueOutput, queue.queueUrl, `The ${definition.name} queue`);
      this.output(arnOutputName(definition.urlVariable), queue.queueArn, `The ${definition.name} queue (redrive destination)`);
      const description = `Messages of the ${definition.name} queue given up on, to redrive to ${queueOutput}`;
      this.output(outputName(definition.deadLetterUrlVariable), deadLetterQueue.queueUrl, description);
      this.output(arnOutputName(definition.deadLetterUrlVariable), deadLetterQueue.queueArn, `${description} (redrive source)`);
    }
    if (vault) {
      this.output('ReceiptsBucketName', vault.receipts.bucketName, 'Payment receipts (private, KMS-encrypted)');
      this.output('VaultKeyArn', vault.key.keyArn, 'KMS key of sealed card numbers and callback secrets, and of the receipts bucket; the admin CLI seals with it');
    }
    this.output('Stage', this.stage);
    for (const key of TABLE_KEYS) this.output(`Table${pascalCase(key)}`, tables[key].tableName);
  }

  private get removalPolicy(): RemovalPolicy {
    return this.settings.protectData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;
  }

  /** The partners of the stage's context, and in demo the demo provider beside them (decisions 18). */
  private createPaymentProviders(api: RestApi, publicBaseUrl: string, partners: readonly ProviderDeployment[]): PaymentProviders {
    const demo =
      this.stage === 'demo'
        ? new DemoProvider(this, 'DemoProvider', {
            api,
            publicBaseUrl,
            utrDecisionDelaySeconds: DEMO_PROVIDER_DELAY_SECONDS,
            logRetention: this.settings.logRetention,
            removalPolicy: this.removalPolicy,
          })
        : undefined;
    if (demo) {
      this.output('DemoProviderUrl', demo.url, "The demo provider's base URL");
      this.output('DemoProviderQueueArn', demo.queue.queueArn, "The demo provider's waiting work (redrive destination)");
      this.output('DemoProviderDlqArn', demo.deadLetterQueue.queueArn, "The demo provider's jobs given up on (redrive source)");
    }
    return new PaymentProviders(this, 'PaymentProviders', {
      stage: this.stage,
      partners,
      demo: demo && { provider: { ...demoProviderRoute(), url: demo.url }, secret: demo.secret },
      removalPolicy: this.removalPolicy,
    });
  }

  private output(id: string, value: string, description?: string): void {
    new CfnOutput(this, id, { value, description });
  }

  private createTables(): Record<TableKey, ITable> {
    const attribute = ({ name, type }: KeyAttribute) => ({
      name,
      type: type === 'S' ? AttributeType.STRING : AttributeType.NUMBER,
    });
    const projection = (index: IndexDefinition) =>
      typeof index.projection === 'string'
        ? { projectionType: PROJECTION_TYPE[index.projection] }
        : { projectionType: ProjectionType.INCLUDE, nonKeyAttributes: [...index.projection] };

    const tables = {} as Record<TableKey, ITable>;
    for (const key of TABLE_KEYS) {
      const definition: TableDefinition = TABLES[key];
      const table = new Table(this, `${pascalCase(key)}Table`, {
        partitionKey: attribute(definition.partitionKey),
        sortKey: definition.sortKey && attribute(definition.sortKey),
        timeToLiveAttribute: definition.ttlAttribute,
        billingMode: BillingMode.PAY_PER_REQUEST,
        pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
        deletionProtection: this.settings.protectData,
        removalPolicy: this.removalPolicy,
      });
      for (const index of definition.indexes ?? []) {
        table.addGlobalSecondaryIndex({
          indexName: index.name,
          partitionKey: attribute(index.partitionKey),
          sortKey: index.sortKey && attribute(index.sortKey),
          ...projection(index),
        });
      }
      tables[key] = table;
    }
    return tables;
  }

  /** Every queue of the stage with its dead-letter queue, from `QUEUES`. */
  private createQueues(): StageQueues {
    const queues: StageQueues = {};
    for (const [name, definition] of queuesOfStage(this.stage)) {
      const id = pascalCase(definition.name);
      const deadLetterQueue = new Queue(this, `${id}DeadLetterQueue`, {
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        retentionPeriod: DEAD_LETTER_RETENTION,
        // Prod's parked messages wait for an operator, even past the stack.
        removalPolicy: this.removalPolicy,
      });
      acknowledge(deadLetterQueue, ['Serverless-SQSRedrivePolicy'], 'It is a dead-letter queue: an operator moves its messages back to their queue, never onward.');
      const queue = new Queue(this, `${id}Queue`, {
        encryption: QueueEncryption.SQS_MANAGED,
        enforceSSL: true,
        visibilityTimeout: Duration.seconds(definition.visibilityTimeoutSeconds),
        retentionPeriod: QUEUE_RETENTION,
        deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: definition.maxReceiveCount },
        removalPolicy: this.removalPolicy,
      });
      queues[name] = { queue, deadLetterQueue, visibilityTimeoutSeconds: definition.visibilityTimeoutSeconds };
    }
    return queues;
  }

  /**
   * The customer-managed key that wraps the data keys of sealed card numbers and encrypts the
   * receipts bucket, and that bucket: private, TLS only, versioned, its access logged.
   *
   * The key policy is written out: the account may administer the key but not decrypt with it,
   * and may generate data keys, which is what the admin CLI seals new merchants' callback secrets
   * with (under the operator's IAM permissions). Each function that uses the key is named in the
   * policy with its own actions (GatewayFunction adds them).
   */
  private createVault(): Vault {
    const account = new AccountRootPrincipal();
    const key = new Key(this, 'VaultKey', {
      description: `Payment gateway ${this.stage}: data keys of sealed card numbers and callback secrets, and the receipts bucket`,
      alias: `alias/${SERVICE_NAME}-${this.stage}`,
      enableKeyRotation: true,
      policy: new PolicyDocument({
        statements: [
          new PolicyStatement({ sid: 'AccountAdministersKey', principals: [account], actions: KEY_ADMINISTRATION_ACTIONS, resources: ['*'] }),
          new PolicyStatement({ sid: 'AccountSealsWithAdminCli', principals: [account], actions: ['kms:GenerateDataKey'], resources: ['*'] }),
        ],
      }),
      // Prod keeps it: deleting the key would make every sealed card number and receipt unreadable.
      removalPolicy: this.removalPolicy,
    });
    const accessLogs = this.privateBucket('ReceiptsAccessLogs', {
      // S3 delivers access logs only to a bucket encrypted with S3-managed keys.
      encryption: BucketEncryption.S3_MANAGED,
      lifecycleRules: [{ expiration: Duration.days(this.settings.logRetention) }],
    });
    acknowledge(accessLogs, ['AwsSolutions-S1'], "It is the receipts bucket's access-log destination: logging its own access would only log the log deliveries.");
    const receipts = this.privateBucket('ReceiptsBucket', {
      encryption: BucketEncryption.KMS,
      encryptionKey: key,
      // One data key per bucket and period instead of one KMS call per object.
      bucketKeyEnabled: true,
      versioned: true,
      lifecycleRules: [{ abortIncompleteMultipartUploadAfter: INCOMPLETE_UPLOAD_LIFETIME }],
      serverAccessLogsBucket: accessLogs,
      serverAccessLogsPrefix: 'receipts/',
    });
    return { key, receipts };
  }

  /** A bucket that blocks public access, takes TLS only, and is retained in prod (emptied and deleted with a demo stack). */
  private privateBucket(id: string, props: BucketProps): Bucket {
    return new Bucket(this, id, {
      blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
      objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
      enforceSSL: true,
      removalPolicy: this.removalPolicy,
      // A bucket with objects in it could not go with its stack.
      autoDeleteObjects: !this.settings.protectData,
      ...props,
    });
  }

  private createRestApi(customDomain: CustomDomain | undefined, routes: readonly HttpRoute[]): RestApi {
    const accessLogs = new LogGroup(this, 'ApiAccessLogs', {
      retention: this.settings.logRetention,
      removalPolicy: this.removalPolicy,
    });
    // Every method: metrics, errors in the execution log (never bodies), and the stage's throttle.
    const methodDefaults = {
      metricsEnabled: true,
      loggingLevel: MethodLoggingLevel.ERROR,
      // Bodies are never logged: withdrawal requests carry card numbers.
      dataTraceEnabled: false,
      throttlingRateLimit: STAGE_METHOD_THROTTLE.ratePerSecond,
      throttlingBurstLimit: STAGE_METHOD_THROTTLE.burst,
    };
    // Routes without a key have no usage plan behind them: their own, lower throttle.
    const publicMethods = Object.fromEntries(
      routes
        .filter((route) => route.auth === 'none')
        .map((route) => [
          `${route.path}/${route.method}`,
          { ...methodDefaults, throttlingRateLimit: PUBLIC_ROUTE_THROTTLE.ratePerSecond, throttlingBurstLimit: PUBLIC_ROUTE_THROTTLE.burst },
        ]),
    );
    const api = new RestApi(this, 'Api', {
      restApiName: `${SERVICE_NAME}-${this.stage}`,
      description: `Payment gateway merchant API (${this.stage})`,
      // Merchants call server to server; a regional endpoint takes a custom domain or WAF directly.
      endpointTypes: [EndpointType.REGIONAL],
      domainName: customDomain && {
        domainName: customDomain.domainName,
        certificate: Certificate.fromCertificateArn(this, 'CustomDomainCertificate', customDomain.certificateArn),
        endpointType: EndpointType.REGIONAL,
        securityPolicy: SecurityPolicy.TLS_1_2,
      },
      // One public origin: with a domain, the execute-api URL no longer answers.
      disableExecuteApiEndpoint: customDomain !== undefined,
      // The authorizer hands API Gateway the key's digest, so usage-plan throttling is per key.
      apiKeySourceType: ApiKeySourceType.AUTHORIZER,
      // Access logging needs the account-level API Gateway role; it is kept when a stack goes.
      cloudWatchRole: true,
      deployOptions: {
        stageName: this.stage,
        tracingEnabled: true,
        ...methodDefaults,
        methodOptions: publicMethods,
        accessLogDestination: new LogGroupLogDestination(accessLogs),
        // The merchant (authorizer principal) and the error type are what support asks about first.
        accessLogFormat: AccessLogFormat.custom(
          JSON.stringify({
            requestId: AccessLogField.contextRequestId(),
            requestTime: AccessLogField.contextRequestTime(),
            ip: AccessLogField.contextIdentitySourceIp(),
            httpMethod: AccessLogField.contextHttpMethod(),
            resourcePath: AccessLogField.contextResourcePath(),
            status: AccessLogField.contextStatus(),
            errorType: AccessLogField.contextErrorResponseType(),
            merchantId: AccessLogField.contextAuthorizerPrincipalId(),
            responseLatency: AccessLogField.contextResponseLatency(),
            integrationLatency: AccessLogField.contextIntegrationLatency(),
            responseLength: AccessLogField.contextResponseLength(),
          }),
        ),
      },
    });
    // TLS 1.2 at least on the execute-api endpoint too (the construct does not expose it yet).
    (api.node.defaultChild as CfnRestApi).securityPolicy = SecurityPolicy.TLS_1_2;
    // The log group API Gateway writes execution logs to, made first so that it has a retention
    // (API Gateway would create it keeping logs forever).
    const executionLogs = new LogGroup(this, 'ApiExecutionLogs', {
      logGroupName: `API-Gateway-Execution-Logs_${api.restApiId}/${this.stage}`,
      retention: this.settings.logRetention,
      removalPolicy: this.removalPolicy,
    });
    api.deploymentStage.node.addDependency(executionLogs);
    acknowledge(
      api,
      ['AwsSolutions-APIG2'],
      'Each function validates its request against the contract and answers the 400/415/422 envelopes it prescribes, field by field; API Gateway\'s model validation cannot.',
    );
    acknowledge(
      api.node.findChild('CloudWatchRole'),
      ['AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]'],
      "The account's API Gateway logging role, with the policy AWS maintains for exactly that use.",
    );
    return api;
  }

  /**
   * The wallets' extended public keys as SSM String parameters, read at run time by the functions
   * that derive addresses and by nothing else. (CloudFormation cannot create SecureStrings; an xpub
   * spends nothing, but it discloses every address, so it stays out of the functions' environment
   * and the template, and reading it takes a grant.)
   */
  private createWalletKeyParameters(): WalletKeyParameters {
    const families = Object.keys(TEST_WALLET_XPUBS) as AddressFamily[];
    return Object.fromEntries(
      families.map((family) => {
        const value = this.settings.testWalletKeys
          ? TEST_WALLET_XPUBS[family]
          : // No default: deploying requires the operator's keys (`--parameters`), synthesis needs none.
            new CfnParameter(this, `Wallet${pascalCase(family)}Xpub`, {
              type: 'String',
              description: `Account-level extended public key for ${family} deposit addresses`,
              noEcho: true,
              allowedPattern: XPUB_PATTERN,
              constraintDescription: 'must be an extended public key (xpub..., or zpub... for BTC), never a private key',
            }).valueAsString;
        const parameter = new StringParameter(this, `Wallet${pascalCase(family)}XpubParameter`, {
          parameterName: `/${SERVICE_NAME}/${this.stage}/wallet-xpub/${family}`,
          description: `Account-level extended public key for ${family} deposit addresses`,
          stringValue: value,
        });
        return [family, parameter];
      }),
    ) as Record<AddressFamily, StringParameter>;
  }

  private addRoutes(api: RestApi, functions: readonly GatewayFunction[]): void {
    const routes = functions.filter((fn): fn is GatewayFunction & { definition: HttpRoute } => fn.definition.kind === 'http');
    const authorizer = routes.some((fn) => fn.definition.auth === 'apiKey') ? this.createAuthorizer(functions) : undefined;

    const methodsByResource = new Map<IResource, string[]>();
    for (const fn of routes) {
      const { method, path, auth } = fn.definition;
      const resource = api.root.resourceForPath(path);
      const added = resource.addMethod(
        method,
        new LambdaIntegration(fn, { allowTestInvoke: false }),
        auth === 'apiKey'
          ? { authorizer, authorizationType: AuthorizationType.CUSTOM, apiKeyRequired: true }
          : { authorizationType: AuthorizationType.NONE },
      );
      if (auth === 'apiKey') acknowledge(added, ['AwsSolutions-COG4'], MERCHANT_AUTHORIZATION);
      else acknowledge(added, ['AwsSolutions-APIG4', 'AwsSolutions-COG4'], fn.definition.calledByProviders ? PROVIDER_ROUTE : PUBLIC_ROUTE);
      methodsByResource.set(resource, [...(methodsByResource.get(resource) ?? []), method]);
    }

    // A known path with another method; specific resources win over the catch-all below.
    for (const [resource, methods] of methodsByResource) {
      addErrorMethod(resource, 'method_not_allowed', GATEWAY_MESSAGES.methodNotAllowed, { Allow: `'${methods.join(', ')}'` });
    }
    if (!methodsByResource.has(api.root)) addErrorMethod(api.root, 'not_found', GATEWAY_MESSAGES.routeNotFound);
    addErrorMethod(api.root.addResource('{proxy+}'), 'not_found', GATEWAY_MESSAGES.routeNotFound);
  }

  private createAuthorizer(functions: readonly GatewayFunction[]): RequestAuthorizer {
    const authorizers = functions.filter((fn) => fn.definition.kind === 'authorizer');
    if (authorizers.length !== 1) {
      throw new Error(`Stage ${this.stage} has apiKey routes, so it needs exactly one authorizer function; found ${authorizers.length}`);
    }
    return new RequestAuthorizer(this, 'MerchantAuthorizer', {
      handler: authorizers[0]!,
      identitySources: [IdentitySource.header('x-api-key')],
      resultsCacheTtl: AUTHORIZER_CACHE_TTL,
    });
  }

  private addErrorResponses(api: RestApi): void {
    for (const { type, code, message, headers } of GATEWAY_ERRORS) {
      api.addGatewayResponse(type.responseType, {
        type,
        statusCode: String(ERROR_STATUS[code]),
        responseHeaders: { [REQUEST_ID_HEADER]: REQUEST_ID_MAPPING, ...headers },
        templates: { 'application/json': errorEnvelope(code, message) },
      });
    }
  }

  /** `GATEWAY_RPC_{NETWORK}` from a NoEcho parameter per watched network. */
  private chainRpcEnvironment(networks: readonly EvmNetwork[]): Record<string, string> {
    return Object.fromEntries(
      networks.map((network) => [
        `GATEWAY_RPC_${network.toUpperCase()}`,
        new CfnParameter(this, `ChainRpc${pascalCase(network)}`, {
          type: 'String',
          noEcho: true,
          description: `JSON-RPC URL of the ${network} node the chain watcher reads (for the demo stage, a Sepolia-type test network)`,
          allowedPattern: '^https?://\\S+$',
          constraintDescription: 'must be an http(s) URL',
        }).valueAsString,
      ]),
    );
  }

  /**
   * Each scheduled function's rule; a chain watcher gets one rule per watched network, its event
   * `{ network }`; the rates schedule has one only where rates are live.
   */
  private addSchedules(functions: readonly GatewayFunction[], watchedNetworks: readonly EvmNetwork[], liveRates: boolean): void {
    for (const fn of functions) {
      const { definition } = fn;
      if (definition.kind !== 'schedule' || (definition.onlyWithLiveRates && !liveRates)) continue;
      const runs = definition.perEvmNetwork ? watchedNetworks.map((network) => ({ id: pascalCase(network), input: { network } })) : [{ id: '', input: undefined }];
      for (const { id, input } of runs) {
        const rule = new Rule(this, `${pascalCase(definition.name)}${id}Schedule`, {
          description: `Runs ${definition.name}${input ? ` for ${input.network}` : ''} every ${definition.everySeconds} s`,
          schedule: Schedule.rate(Duration.seconds(definition.everySeconds)),
          targets: [new LambdaFunction(fn, input ? { event: RuleTargetInput.fromObject(input) } : {})],
        });
        acknowledge(
          rule,
          ['Serverless-EventBusDLQ'],
          'A run EventBridge could not hand to Lambda is not worth keeping: the next one, a period later, does the same work. Lambda queues a throttled run itself.',
        );
      }
    }
  }

  private addMonitoring(api: RestApi, functions: readonly GatewayFunction[], queues: StageQueues, webAcl: CfnWebACL, liveRates: LiveRates | undefined): void {
    const topic = new Topic(this, 'AlarmTopic', { displayName: `Payment gateway ${this.stage} alarms`, enforceSSL: true });
    subscribeAlarmEmail(this, topic);
    notifyOnEveryAlarm(this, topic);
    const alarm = (id: string, props: Pick<AlarmProps, 'metric' | 'threshold' | 'comparisonOperator' | 'alarmDescription'>) =>
      new Alarm(this, id, { evaluationPeriods: 1, treatMissingData: TreatMissingData.NOT_BREACHING, ...props });

    const errorsOf = (fn: GatewayFunction) => fn.metricErrors({ period: ALARM_PERIOD, statistic: Stats.SUM });
    const queueMetric = { period: ALARM_PERIOD, statistic: Stats.MAXIMUM };
    const stageQueues = queuesOfStage(this.stage).map(([name, definition]) => ({ definition, ...(queues[name] as QueueWithDeadLetter) }));
    const deadLettersOf = ({ deadLetterQueue }: QueueWithDeadLetter) => deadLetterQueue.metricApproximateNumberOfMessagesVisible(queueMetric);
    const oldestOf = ({ queue }: QueueWithDeadLetter) => queue.metricApproximateAgeOfOldestMessage(queueMetric);
    const callbacks = queues.callbacks;
    if (!callbacks) throw new Error(`Stage ${this.stage} has no callbacks queue`);
    const serverErrors = api.metricServerError({ period: ALARM_PERIOD, statistic: Stats.SUM });
    // WAF reports per rule (`Rule` is the rule's metric name) and for the whole web ACL (`ALL`).
    const wafMetric = (metricName: 'AllowedRequests' | 'BlockedRequests', rule: string, label: string) =>
      new Metric({
        namespace: 'AWS/WAFV2',
        metricName,
        dimensionsMap: { WebACL: webAcl.name!, Region: Aws.REGION, Rule: rule },
        statistic: Stats.SUM,
        label,
      });

    const atLeastOne = { threshold: 1, comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD };
    // A refused key is a Deny policy, not an error: the authorizer's errors are real failures.
    const authorizerAlarms = functions
      .filter((fn) => fn.definition.kind === 'authorizer')
      .flatMap((fn) => {
        const id = pascalCase(fn.definition.name);
        return [
          alarm(`${id}ThrottlesAlarm`, {
            metric: fn.metricThrottles({ period: ALARM_PERIOD, statistic: Stats.SUM }),
            ...atLeastOne,
            alarmDescription: `${fn.definition.name} was throttled: requests with a key could not be authorized`,
          }),
          alarm(`${id}LatencyAlarm`, {
            metric: fn.metricDuration({ period: ALARM_PERIOD, statistic: Stats.percentile(99) }),
            threshold: AUTHORIZER_P99_DURATION.toMilliseconds(),
            comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
            alarmDescription: `${fn.definition.name} took over ${AUTHORIZER_P99_DURATION.toMilliseconds()} ms at p99: every authenticated request waits on it`,
          }),
        ];
      });
    const alarms = [
      ...functions.map((fn) =>
        alarm(`${pascalCase(fn.definition.name)}ErrorsAlarm`, { metric: errorsOf(fn), ...atLeastOne, alarmDescription: `${fn.definition.name} failed` }),
      ),
      ...authorizerAlarms,
      alarm('Api5xxAlarm', { metric: serverErrors, ...atLeastOne, alarmDescription: 'The API answered 5XX' }),
      // One per queue: a message in any dead-letter queue was given up on.
      ...stageQueues.map((queue) =>
        alarm(`${pascalCase(queue.definition.name)}DeadLetterAlarm`, {
          metric: deadLettersOf(queue),
          threshold: 0,
          comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
          alarmDescription: `Messages of the ${queue.definition.name} queue were given up on and wait in its dead-letter queue for redrive`,
        }),
      ),
      alarm('CallbacksBacklogAlarm', {
        metric: oldestOf(callbacks),
        threshold: CALLBACK_BACKLOG_AGE.toSeconds(),
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        alarmDescription: `A merchant callback has waited over ${CALLBACK_BACKLOG_AGE.toHours()} hours without being received: deliveries are not progressing`,
      }),
      ...(liveRates ? [ratesStaleAlarm(this, this.stage, liveRates)] : []),
      providersOverdueAlarm(this, this.stage),
    ];

    // Dashboard rows are 24 units wide.
    const [third, half, full] = [8, 12, 24];
    const dashboard = new Dashboard(this, 'Dashboard', {
      widgets: [
        [
          new GraphWidget({ title: 'API requests', width: third, left: [api.metricCount({ statistic: Stats.SUM, label: 'Requests' })] }),
          new GraphWidget({
            title: 'API latency (ms)',
            width: third,
            left: [
              api.metricLatency({ statistic: Stats.percentile(50), label: 'p50' }),
              api.metricLatency({ statistic: Stats.percentile(99), label: 'p99' }),
              api.metricIntegrationLatency({ statistic: Stats.percentile(99), label: 'integration p99' }),
            ],
          }),
          new GraphWidget({
            title: 'API errors',
            width: third,
            left: [api.metricClientError({ statistic: Stats.SUM, label: '4XX' }), serverErrors.with({ label: '5XX' })],
          }),
        ],
        [
          new GraphWidget({ title: 'Function errors', width: half, left: functions.map((fn) => errorsOf(fn).with({ label: fn.definition.name })) }),
          new GraphWidget({
            title: 'Function duration p99 (ms)',
            width: half,
            left: functions.map((fn) => fn.metricDuration({ statistic: Stats.percentile(99), label: fn.definition.name })),
          }),
        ],
        [
          new GraphWidget({
            title: 'Web ACL: allowed and blocked requests',
            width: half,
            left: [wafMetric('AllowedRequests', 'ALL', 'Allowed'), wafMetric('BlockedRequests', 'ALL', 'Blocked')],
          }),
          new GraphWidget({
            title: 'Web ACL: blocked by rule',
            width: half,
            left: ruleMetricNames(webAcl).map((rule) => wafMetric('BlockedRequests', rule, rule)),
          }),
        ],
        // A row per queue.
        ...stageQueues.map((queue) => [
          new GraphWidget({
            title: `${queue.definition.name} queue depth`,
            width: third,
            left: [
              queue.queue.metricApproximateNumberOfMessagesVisible({ ...queueMetric, label: 'Due' }),
              // Callback retries wait here too: the sender hides a message until its next attempt.
              queue.queue.metricApproximateNumberOfMessagesNotVisible({ ...queueMetric, label: 'Being handled or awaiting retry' }),
            ],
          }),
          new GraphWidget({ title: `Oldest ${queue.definition.name} message (s)`, width: third, left: [oldestOf(queue).with({ label: `${queue.definition.name} queue` })] }),
          new GraphWidget({ title: `${queue.definition.name} awaiting redrive`, width: third, left: [deadLettersOf(queue).with({ label: 'Dead-letter queue' })] }),
        ]),
        ...businessMetricRows(this.stage, liveRates),
        [new AlarmStatusWidget({ title: 'Alarms', width: full, alarms })],
      ],
    });

    this.output('AlarmTopicArn', topic.topicArn, 'Subscribe on-call here');
    this.output(
      'DashboardUrl',
      `https://console.aws.amazon.com/cloudwatch/home?region=${Aws.REGION}#dashboards:name=${dashboard.dashboardName}`,
      'The CloudWatch dashboard of the stage',
    );
  }
}

/** An `ANY` method that API Gateway answers itself with the error envelope and the request id. */
function addErrorMethod(resource: IResource, code: ErrorCode, message: string, staticHeaders: Record<string, string> = {}): void {
  const statusCode = String(ERROR_STATUS[code]);
  const headers = { [REQUEST_ID_HEADER]: REQUEST_ID_MAPPING, ...staticHeaders };
  const headerKey = (name: string) => `method.response.header.${name}`;
  const method = resource.addMethod(
    'ANY',
    new MockIntegration({
      requestTemplates: { 'application/json': JSON.stringify({ statusCode: ERROR_STATUS[code] }) },
      // The only integration response, so it applies whatever the mock returns.
      integrationResponses: [
        {
          statusCode,
          responseTemplates: { 'application/json': errorEnvelope(code, message) },
          responseParameters: Object.fromEntries(Object.entries(headers).map(([name, value]) => [headerKey(name), value])),
        },
      ],
    }),
    {
      authorizationType: AuthorizationType.NONE,
      methodResponses: [{ statusCode, responseParameters: Object.fromEntries(Object.keys(headers).map((name) => [headerKey(name), true])) }],
    },
  );
  acknowledge(method, ['AwsSolutions-APIG4', 'AwsSolutions-COG4'], ERROR_METHOD);
}
