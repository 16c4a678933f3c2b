/**
 * The one Lambda construct of the project. Every function of the route table is deployed through
 * it, so runtime, architecture, tracing, logging, bundling, environment and permissions are decided
 * here once and cannot drift between functions.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Aws, Duration, type RemovalPolicy } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Policy, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { LogLevel, NodejsFunction, OutputFormat, type BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { IStringParameter } from 'aws-cdk-lib/aws-ssm';
import type { Construct } from 'constructs';
import type { AddressFamily } from '../../shared/domain/chains/index.js';
import { FUNCTION_DEFAULTS, reservedConcurrencyOf } from '../../shared/platform.js';
import { QUEUES, type QueueDefinition, type QueueName } from '../../shared/queue/queues.js';
import { SERVICE_NAME } from '../../shared/observability/catalogue.js';
import { readsChainEndpoints, readsStageConfiguration, type GatewayFunction as FunctionDefinition } from '../../shared/routes.js';
import type { Stage } from '../../shared/stage.js';
import { tableGrantsOf } from '../../shared/store/table-access.js';
import { namedEverywhere, TABLE_KEYS, tableEnvVar, type TableKey } from '../../shared/store/tables.js';
import { acknowledge, acknowledgeWildcardResourcesOf } from './nag.js';
import { chainEndpointsParameterName, stageConfigurationParameterName } from './construct-ids.js';

const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The logger's, tracer's and metrics' service name, so logs, traces and metrics group under one service. */
export { SERVICE_NAME };

/** Bundled CommonJS dependencies still call `require`, which an ES module lacks. */
export const ESM_REQUIRE_BANNER = "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);";

/**
 * How every function is bundled: one minified ES module, tree-shaken from the packages' ES module
 * builds, with the AWS SDK clients it uses inside and nothing external, and a source map without
 * the sources. The cold-import benchmark bundles with the same options.
 */
export const FUNCTION_BUNDLING = {
  target: 'node22',
  format: OutputFormat.ESM,
  banner: ESM_REQUIRE_BANNER,
  // Prefer packages' ES module builds: they tree-shake.
  mainFields: ['module', 'main'],
  minify: true,
  sourceMap: true,
  sourcesContent: false,
  // Ship the SDK version the code was tested with, not whichever one the runtime carries.
  bundleAwsSDK: true,
  // esbuild's summary of each bundle is a screenful per stage; its warnings and errors still show.
  logLevel: LogLevel.WARNING,
} as const satisfies BundlingOptions;

/** What sealing takes of the vault key: a data key per sealed value, and S3's data key for a receipt written under SSE-KMS. */
export const VAULT_SEAL_ACTIONS = ['kms:GenerateDataKey'];
/** What opening a sealed callback secret takes: decrypting its data key. */
export const VAULT_OPEN_ACTIONS = ['kms:Decrypt'];

/**
 * What writing a report's file takes: its parts and their completion (all PutObject), and
 * abandoning an upload that failed, so that its parts are not kept.
 */
export const REPORT_WRITE_ACTIONS = ['s3:PutObject', 's3:AbortMultipartUpload'];
/** What a presigned link to a report's file takes of its signer: reading the object. */
export const REPORT_LINK_ACTIONS = ['s3:GetObject'];

/** Why no function has a dead-letter queue of its own, by how it is invoked. */
const NO_DEAD_LETTER_QUEUE: Record<FunctionDefinition['kind'], string> = {
  http: 'Invoked synchronously by API Gateway, which answers the failure to the caller; a dead-letter queue only ever holds asynchronous events.',
  authorizer: 'Invoked synchronously by API Gateway, which answers a failure with the 500 envelope; a dead-letter queue only ever holds asynchronous events.',
  queue: "Invoked synchronously by its SQS event source: a failed message returns to its queue, whose redrive policy moves it to that queue's dead-letter queue.",
  schedule: "A failed or skipped sweep is not worth keeping: the next run, one period later, does the same work, and a failure raises the function's Errors alarm.",
};

/** A queue, its dead-letter queue, and how long a received message stays invisible. */
export interface QueueWithDeadLetter {
  queue: IQueue;
  deadLetterQueue: IQueue;
  visibilityTimeoutSeconds: number;
}

/** The queues of one stage: those of `QUEUES` whose stages include it. */
export type StageQueues = Partial<Record<QueueName, QueueWithDeadLetter>>;

/**
 * Where sealed secrets' data keys come from and receipts are kept (`usesVault`,
 * `opensCallbackSecrets` and `sealsCallbackSecrets` functions only). The key's use is granted in
 * its key policy, which names each function's role with its actions (`vaultActionsOf`).
 */
export interface Vault {
  key: IKey;
  receipts: IBucket;
}

/** The SSM parameters holding the wallets' extended public keys (`readsWalletKeys` functions only). */
export type WalletKeyParameters = Readonly<Record<AddressFamily, IStringParameter>>;

/**
 * The stage's usage plan, for the functions that issue and revoke API keys (`managesApiKeys`). A
 * function cannot depend on the plan (gateway-api.ts says why): it is given the name of the
 * parameter holding the plan's id, written out, and its grants on the plan are a policy the API
 * attaches to its role (`GatewayApi.grantKeyRegistration`), which the function does not wait for.
 */
export interface ApiKeyRegistration {
  parameterName: string;
}

/**
 * The stage's configuration in SSM (docs/operations.md#stage-configuration): its document, which
 * the functions that read it (`readsStageConfiguration`) are given, and its networks' endpoints,
 * which the chain watcher alone is.
 */
export interface StageConfigurationParameters {
  configuration: IStringParameter;
  chainEndpoints?: IStringParameter;
}

/**
 * Each function's role has a name of its own, which the vault key's policy names (the key is in the
 * data stack, made before the functions; its policy cannot refer to their roles): the stage's, the
 * function's and the region's, as IAM names are the account's in every region.
 */
export const functionRoleName = (stage: Stage, functionName: string): string => {
  // IAM takes 64 characters; the longest region name has 14.
  const name = `${SERVICE_NAME}-${stage}-${functionName}-${Aws.REGION}`;
  if (name.length - Aws.REGION.length + 14 > 64) throw new Error(`The role name of ${functionName} in ${stage} could take over IAM's 64 characters: shorten the function's name`);
  return name;
};

/** The ARN of a function's role, from its name. */
export const functionRoleArn = (stage: Stage, functionName: string): string => `arn:${Aws.PARTITION}:iam::${Aws.ACCOUNT_ID}:role/${functionRoleName(stage, functionName)}`;

/**
 * What a function may do with the vault key: seal (card numbers, receipts under SSE-KMS, a rotated
 * callback secret) generates data keys; open (a callback secret, or a sealed card number or a
 * receipt to send again to a provider) decrypts one.
 */
export function vaultActionsOf(definition: FunctionDefinition): string[] {
  const opens = definition.opensCallbackSecrets || definition.resendsProviderRequests;
  return [...(definition.usesVault || definition.sealsCallbackSecrets ? VAULT_SEAL_ACTIONS : []), ...(opens ? VAULT_OPEN_ACTIONS : [])];
}

/** Whether a function needs the vault's key at all: to seal, to open, or to store receipts. */
export const usesVaultKey = (definition: FunctionDefinition): boolean =>
  Boolean(definition.usesVault || definition.opensCallbackSecrets || definition.sealsCallbackSecrets || definition.resendsProviderRequests);

/** Whether a function reaches the receipts bucket: to store receipts, or to send one again to a provider. */
const usesReceipts = (definition: FunctionDefinition): boolean => Boolean(definition.usesVault || definition.resendsProviderRequests);

/** `evm` -> `WALLET_EVM_XPUB_PARAMETER`: the variable naming a family's parameter. */
export const walletKeyParameterVariable = (family: AddressFamily): string => `WALLET_${family.toUpperCase()}_XPUB_PARAMETER`;

export interface GatewayFunctionProps {
  stage: Stage;
  definition: FunctionDefinition;
  /** Variables every function reads whatever its tables: stage, public URL, retry scale. */
  environment: Record<string, string>;
  tables: Record<TableKey, ITable>;
  /** Every queue of the stage; each function gets all their URLs, and grants only as its entry says. */
  queues: StageQueues;
  /** Required when some function of the stage has `usesVault`. */
  vault?: Vault;
  /** Required when some function of the stage has `readsWalletKeys`. */
  walletKeys?: WalletKeyParameters;
  /** Where report files are kept; required when some function of the stage has `reportFiles`. */
  reportFiles?: IBucket;
  /** The usage plan keys are added to; required when some function of the stage has `managesApiKeys`. */
  apiKeyRegistration?: ApiKeyRegistration;
  /** The payment providers' secrets, which `usesProviders` functions read (docs/operations.md#payment-providers). */
  providerSecrets?: readonly ISecret[];
  /**
   * Where the stage's configuration is (docs/operations.md#stage-configuration): required when
   * the function reads it (`readsStageConfiguration`), and its networks' endpoints when it watches chains.
   */
  stageConfiguration?: StageConfigurationParameters;
  logRetention: RetentionDays;
  /** Applies to the function's log group. */
  removalPolicy: RemovalPolicy;
  /** How many EVM networks the stage watches: how many runs of a per-network function may go at once. */
  watchedNetworks: number;
}

export class GatewayFunction extends NodejsFunction {
  readonly definition: FunctionDefinition;

  constructor(scope: Construct, id: string, props: GatewayFunctionProps) {
    const { definition, tables, queues } = props;
    const timeoutSeconds = definition.timeoutSeconds ?? FUNCTION_DEFAULTS.timeoutSeconds;
    const reservedConcurrency = reservedConcurrencyOf(definition, props.watchedNetworks);
    const consumed = definition.kind === 'queue' ? queues[definition.queue] : undefined;
    if (definition.kind === 'queue') {
      if (!consumed) {
        throw new Error(`${definition.name} consumes the ${QUEUES[definition.queue].name} queue, which its stage does not have: add the stage to that queue's stages (shared/platform.ts)`);
      }
      assertVisibilityCoversRetries(definition.name, consumed, QUEUES[definition.queue].batchingWindowSeconds, timeoutSeconds);
    }
    const vault = usesVaultKey(definition) ? props.vault : undefined;
    if (usesVaultKey(definition) && !vault) throw new Error(`${definition.name} uses the vault, and no vault was given`);
    const walletKeys = definition.readsWalletKeys ? props.walletKeys : undefined;
    if (definition.readsWalletKeys && !walletKeys) throw new Error(`${definition.name} reads the wallet keys, and no wallet key parameters were given`);
    const reportFiles = definition.reportFiles ? props.reportFiles : undefined;
    if (definition.reportFiles && !reportFiles)
      throw new Error(`${definition.name} ${definition.reportFiles === 'writes' ? 'writes report files' : 'links to report files'}, and no reports bucket was given`);
    const apiKeys = definition.managesApiKeys ? props.apiKeyRegistration : undefined;
    if (definition.managesApiKeys && !apiKeys) throw new Error(`${definition.name} manages API keys, and no usage plan was given`);
    const stageConfiguration = readsStageConfiguration(definition) ? props.stageConfiguration : undefined;
    if (readsStageConfiguration(definition) && !stageConfiguration) throw new Error(`${definition.name} reads the stage configuration, and no parameter of it was given`);
    const chainEndpoints = readsChainEndpoints(definition) ? stageConfiguration?.chainEndpoints : undefined;
    if (readsChainEndpoints(definition) && !chainEndpoints) throw new Error(`${definition.name} talks to the networks' nodes, and no parameter of their endpoints was given`);

    const environment: Record<string, string> = {
      ...props.environment,
      // Names written out, and only where they are read: what grows with the stage is read at run time (Lambda's environment holds 4 KB).
      ...(stageConfiguration ? { GATEWAY_STAGE_CONFIGURATION_PARAMETER: stageConfigurationParameterName(props.stage) } : {}),
      ...(chainEndpoints ? { GATEWAY_CHAIN_ENDPOINTS_PARAMETER: chainEndpointsParameterName(props.stage) } : {}),
      POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
      NODE_OPTIONS: '--enable-source-maps',
      // Every table's name but those named only where granted (`namedWhereGranted`): the shared
      // config validates the others at cold start, and a name grants nothing.
      ...Object.fromEntries(TABLE_KEYS.filter((key) => namedEverywhere(key) || tableGrantsOf(definition).some(({ table }) => table === key)).map((key) => [tableEnvVar(key), tables[key].tableName])),
      ...queueEnvironment(queues, definition),
      // Unlike the queues, only where it is used: the key and the bucket are what is protected.
      ...(vault ? { VAULT_KMS_KEY_ID: vault.key.keyArn } : {}),
      ...(vault && usesReceipts(definition) ? { RECEIPTS_BUCKET: vault.receipts.bucketName } : {}),
      ...(reportFiles ? { REPORTS_BUCKET: reportFiles.bucketName } : {}),
      // A name, not a reference to the parameter (ApiKeyRegistration says why).
      ...(apiKeys ? { API_KEY_USAGE_PLAN_PARAMETER: apiKeys.parameterName } : {}),
      // Names only, and only where addresses are derived: the function reads the values at run time.
      ...(walletKeys
        ? Object.fromEntries((Object.entries(walletKeys) as [AddressFamily, IStringParameter][]).map(([family, parameter]) => [walletKeyParameterVariable(family), parameter.parameterName]))
        : {}),
    };

    // Its own role with no managed policy: writing to its own log group, and the grants below.
    const role = new Role(scope, `${id}Role`, {
      roleName: functionRoleName(props.stage, definition.name),
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `${definition.name}: what its route-table entry allows`,
    });
    const logGroup = new LogGroup(scope, `${id}Logs`, {
      retention: props.logRetention,
      removalPolicy: props.removalPolicy,
    });

    super(scope, id, {
      // The route-table name, by which operators and tests recognise a generated function name.
      description: definition.name,
      entry: join(PROJECT_ROOT, 'functions', `${definition.name}.ts`),
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: join(PROJECT_ROOT, 'package-lock.json'),
      handler: 'handler',
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      tracing: Tracing.ACTIVE,
      timeout: Duration.seconds(timeoutSeconds),
      memorySize: definition.memoryMb ?? FUNCTION_DEFAULTS.memoryMb,
      reservedConcurrentExecutions: reservedConcurrency,
      environment,
      role,
      logGroup,
      bundling: { ...FUNCTION_BUNDLING, mainFields: [...FUNCTION_BUNDLING.mainFields] },
    });
    this.definition = definition;
    logGroup.grantWrite(role);

    // Actions on the table (item actions, and Query of its own key where named), Query on the named indexes: exactly what the entry says.
    for (const { table, actions, queriedIndexes } of tableGrantsOf(definition)) {
      const { tableArn } = tables[table];
      if (actions.length > 0) role.addToPolicy(new PolicyStatement({ actions: actions.map((action) => `dynamodb:${action}`), resources: [tableArn] }));
      if (queriedIndexes.length > 0) {
        role.addToPolicy(new PolicyStatement({ actions: ['dynamodb:Query'], resources: queriedIndexes.map((index) => `${tableArn}/index/${index}`) }));
      }
    }
    // SendMessage alone: the functions have each queue's URL, and ask SQS nothing else about it.
    // A queue of another stage only is skipped: prod's confirm-deposit hands UTRs to the
    // provider's integration, not to the demo's simulated provider.
    const sendsTo = (definition.sendsTo ?? []).flatMap((name) => queues[name]?.queue ?? []);
    if (sendsTo.length > 0) role.addToPolicy(new PolicyStatement({ actions: ['sqs:SendMessage'], resources: sendsTo.map((queue) => queue.queueArn) }));
    // Receipts are written, never read, listed or deleted; sent again to a provider as they were
    // given: read, never written, listed or deleted.
    if (vault && definition.usesVault) {
      this.grantOnObjects(id, 'Receipts', ['s3:PutObject'], vault.receipts, "PutObject only, on the receipts bucket: each receipt's key (merchant, invoice, UTR) is known only when it is written.");
    }
    if (vault && definition.resendsProviderRequests) {
      this.grantOnObjects(id, 'ResentReceipts', ['s3:GetObject'], vault.receipts, 'GetObject only, on the receipts bucket: the receipt of a UTR its provider never took, named by its deposit.');
    }
    // Report files are written by their builder (a multipart upload, aborted when it fails) and
    // read through the links the others hand out, which are signed with the reader's own grant;
    // never listed or deleted (the bucket's lifecycle expires them).
    if (reportFiles && definition.reportFiles === 'writes') {
      this.grantOnObjects(
        id,
        'ReportFiles',
        REPORT_WRITE_ACTIONS,
        reportFiles,
        "PutObject and AbortMultipartUpload only, on the reports bucket: each file's key (merchant, report) is known only when it is written.",
      );
    }
    if (reportFiles && definition.reportFiles === 'links') {
      this.grantOnObjects(
        id,
        'ReportLinks',
        REPORT_LINK_ACTIONS,
        reportFiles,
        "GetObject only, on the reports bucket: a presigned link to a report's file, named by its report, is good only while its signer may read it.",
      );
    }
    // The secrets' values, nothing else of them; each provider's secret is encrypted with Secrets Manager's own key.
    const providerSecrets = definition.usesProviders ? (props.providerSecrets ?? []) : [];
    if (providerSecrets.length > 0) {
      role.addToPolicy(new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: providerSecrets.map((secret) => secret.secretArn) }));
    }
    // The stage's configuration, and the watcher's endpoints beside it, in one GetParameters call.
    if (stageConfiguration) {
      const parameters = [stageConfiguration.configuration, ...(chainEndpoints ? [chainEndpoints] : [])];
      role.addToPolicy(new PolicyStatement({ actions: ['ssm:GetParameters'], resources: parameters.map((parameter) => parameter.parameterArn) }));
    }
    // The keys are read in one GetParameters call.
    if (walletKeys) {
      role.addToPolicy(new PolicyStatement({ actions: ['ssm:GetParameters'], resources: Object.values(walletKeys).map((parameter) => parameter.parameterArn) }));
    }
    if (definition.kind === 'queue' && consumed) {
      const { queue, deadLetterQueue } = consumed;
      const consumedQueue: QueueDefinition = QUEUES[definition.queue];
      this.addEventSourceMapping('QueueEventSource', {
        eventSourceArn: queue.queueArn,
        batchSize: definition.batchSize,
        // Its queue's own window (the local runtime's poller waits alike); a FIFO queue takes none.
        ...(consumedQueue.fifo ? {} : { maxBatchingWindow: Duration.seconds(consumedQueue.batchingWindowSeconds) }),
        // Only the failed deliveries of a batch come back, not the whole batch.
        reportBatchItemFailures: true,
        // No more pollers than instances: a throttled invocation would count against the messages' receives.
        maxConcurrency: reservedConcurrency,
      });
      // What the event source polls with, under the function's role; and hiding a message until
      // its next attempt, for a consumer that schedules its own retries.
      const consumeActions = ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes', ...(definition.delaysRetries ? ['sqs:ChangeMessageVisibility'] : [])];
      role.addToPolicy(new PolicyStatement({ actions: consumeActions, resources: [queue.queueArn] }));
      // Parked by the consumer itself once a message's retry window closes, not by the redrive policy.
      if (definition.parksMessages) role.addToPolicy(new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [deadLetterQueue.queueArn] }));
      acknowledge(
        this,
        ['Serverless-LambdaEventSourceMappingDestination'],
        'An SQS event source takes no failure destination: a failed message returns to its queue, whose redrive policy moves it to the dead-letter queue.',
      );
    }
    if (definition.kind === 'schedule') {
      // A run that finds every reserved instance busy (the previous run still going) is throttled:
      // it is retried for one period at most, then dropped, and never retried after an error.
      this.configureAsyncInvoke({ maxEventAge: Duration.seconds(definition.everySeconds), retryAttempts: 0 });
      acknowledge(this, ['Serverless-LambdaAsyncFailureDestination'], NO_DEAD_LETTER_QUEUE.schedule);
    }

    acknowledge(role, ['AwsSolutions-IAM5[Resource::*]'], "X-Ray's PutTraceSegments and PutTelemetryRecords, which active tracing adds, take no resource-level permissions.");
    acknowledge(this, ['Serverless-LambdaDLQ'], NO_DEAD_LETTER_QUEUE[definition.kind]);
    acknowledge(
      this,
      ['AwsSolutions-L1', 'Serverless-LambdaLatestVersion'],
      'nodejs22.x is the runtime the functions are built (esbuild target node22) and tested for; moving to a newer one is a change of its own, with its tests.',
    );
  }

  /**
   * `actions` on every object of a bucket of the data stack, in a policy of their own that the
   * function waits for, so that the wildcard acknowledged is this one alone (nag.ts says why).
   */
  private grantOnObjects(id: string, grant: string, actions: readonly string[], bucket: IBucket, reason: string): void {
    const policy = new Policy(this, `${id}${grant}`, { roles: [this.role!], statements: [new PolicyStatement({ actions: [...actions], resources: [bucket.arnForObjects('*')] })] });
    acknowledgeWildcardResourcesOf(policy, reason);
    this.node.addDependency(policy);
  }
}

/**
 * `{urlVariable}` of every queue, but of one `namedWhereUsed` where the function neither sends to
 * it nor consumes it; `{deadLetterUrlVariable}` only where the queue's consumer parks messages
 * itself (Lambda's environment holds 4 KB: each URL is some 140 bytes).
 */
export function queueEnvironment(queues: StageQueues, fn: FunctionDefinition): Record<string, string> {
  const consumes = (name: QueueName) => fn.kind === 'queue' && fn.queue === name;
  const uses = (name: QueueName) => (fn.sendsTo ?? []).includes(name) || consumes(name);
  return Object.fromEntries(
    (Object.entries(queues) as [QueueName, QueueWithDeadLetter][]).flatMap(([name, { queue, deadLetterQueue }]) => {
      const definition: QueueDefinition = QUEUES[name];
      if (definition.namedWhereUsed && !uses(name)) return [];
      const parks = consumes(name) && fn.kind === 'queue' && Boolean(fn.parksMessages);
      return [[definition.urlVariable, queue.queueUrl], ...(parks ? [[definition.deadLetterUrlVariable, deadLetterQueue.queueUrl]] : [])];
    }),
  );
}

/** AWS's guidance for SQS event sources: the visibility timeout is at least this many function timeouts. */
export const VISIBILITY_TIMEOUTS_PER_INVOCATION = 6;

/**
 * A message must stay invisible for as long as the poller may hold it, retries of a throttled
 * invocation included (six function timeouts, plus the batching window), or another consumer
 * receives it mid-delivery; AWS refuses the event source below one function timeout.
 */
function assertVisibilityCoversRetries(name: string, { visibilityTimeoutSeconds }: QueueWithDeadLetter, batchingSeconds: number, timeoutSeconds: number): void {
  const requiredSeconds = VISIBILITY_TIMEOUTS_PER_INVOCATION * timeoutSeconds + batchingSeconds;
  if (visibilityTimeoutSeconds < requiredSeconds) {
    throw new Error(
      `${name} may hold a message ${requiredSeconds} s (${VISIBILITY_TIMEOUTS_PER_INVOCATION} x its ${timeoutSeconds} s timeout + ` +
        `batching window ${batchingSeconds} s), so its queue's visibility timeout must be at least that, and it is ${visibilityTimeoutSeconds} s: ` +
        'raise the visibility timeout (shared/platform.ts) or lower the function timeout (shared/routes.ts)',
    );
  }
}
