/**
 * The one Lambda construct of the project. Every function of the route table is deployed through
 * it, so runtime, architecture, tracing, logging, bundling, environment and permissions are decided
 * here once and cannot drift between functions.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Duration, type RemovalPolicy } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import type { Grant, IGrantable } from 'aws-cdk-lib/aws-iam';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { NodejsFunction, OutputFormat, type BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { IStringParameter } from 'aws-cdk-lib/aws-ssm';
import type { Construct } from 'constructs';
import type { AddressFamily } from '../../shared/domain/wallets.js';
import { FUNCTION_DEFAULTS, QUEUES, SERVICE_NAME, type QueueDefinition, type QueueName } from '../../shared/platform.js';
import type { GatewayFunction as FunctionDefinition, TableAccess } from '../../shared/routes.js';
import { TABLE_KEYS, tableEnvVar, type TableKey } from '../../shared/store/tables.js';

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
} as const satisfies BundlingOptions;

/**
 * How long a queue consumer waits to fill a batch: callbacks are latency-sensitive, so short, but
 * long enough to group a burst of transitions into one invocation.
 */
export const QUEUE_BATCHING_WINDOW = Duration.seconds(1);

const GRANT_TABLE_ACCESS: Record<TableAccess, (table: ITable, grantee: IGrantable) => Grant> = {
  read: (table, grantee) => table.grantReadData(grantee),
  readWrite: (table, grantee) => table.grantReadWriteData(grantee),
};

/** A queue, its dead-letter queue, and how long a received message stays invisible. */
export interface QueueWithDeadLetter {
  queue: IQueue;
  deadLetterQueue: IQueue;
  visibilityTimeoutSeconds: number;
}

/** The queues of one stack: those of `QUEUES` whose stages include the stack's. */
export type StageQueues = Partial<Record<QueueName, QueueWithDeadLetter>>;

/** Where sealed secrets' data keys come from and receipts are kept (`usesVault` and `opensCallbackSecrets` functions only). */
export interface Vault {
  key: IKey;
  receipts: IBucket;
}

/** The SSM parameters holding the wallets' extended public keys (`readsWalletKeys` functions only). */
export type WalletKeyParameters = Readonly<Record<AddressFamily, IStringParameter>>;

/** `evm` -> `WALLET_EVM_XPUB_PARAMETER`: the variable naming a family's parameter. */
export const walletKeyParameterVariable = (family: AddressFamily): string => `WALLET_${family.toUpperCase()}_XPUB_PARAMETER`;

export interface GatewayFunctionProps {
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
  logRetention: RetentionDays;
  /** Applies to the function's log group. */
  removalPolicy: RemovalPolicy;
}

export class GatewayFunction extends NodejsFunction {
  readonly definition: FunctionDefinition;

  constructor(scope: Construct, id: string, props: GatewayFunctionProps) {
    const { definition, tables, queues } = props;
    const timeoutSeconds = definition.timeoutSeconds ?? FUNCTION_DEFAULTS.timeoutSeconds;
    const consumed = definition.kind === 'queue' ? queues[definition.queue] : undefined;
    if (definition.kind === 'queue') {
      if (!consumed) {
        throw new Error(
          `${definition.name} consumes the ${QUEUES[definition.queue].name} queue, which its stage does not have: ` +
            "add the stage to that queue's stages (shared/platform.ts)",
        );
      }
      assertVisibilityCoversRetries(definition.name, consumed, timeoutSeconds);
    }
    const vault = definition.usesVault || definition.opensCallbackSecrets ? props.vault : undefined;
    if ((definition.usesVault || definition.opensCallbackSecrets) && !vault) throw new Error(`${definition.name} uses the vault, and no vault was given`);
    const walletKeys = definition.readsWalletKeys ? props.walletKeys : undefined;
    if (definition.readsWalletKeys && !walletKeys) throw new Error(`${definition.name} reads the wallet keys, and no wallet key parameters were given`);

    const environment: Record<string, string> = {
      ...props.environment,
      POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
      NODE_OPTIONS: '--enable-source-maps',
      // Every name and URL, not only the granted ones: the shared config validates them all at
      // cold start, and a name grants nothing.
      ...Object.fromEntries(TABLE_KEYS.map((key) => [tableEnvVar(key), tables[key].tableName])),
      ...queueEnvironment(queues),
      // Unlike the queues, only where it is used: the key and the bucket are what is protected.
      ...(vault ? { VAULT_KMS_KEY_ID: vault.key.keyArn } : {}),
      ...(vault && definition.usesVault ? { RECEIPTS_BUCKET: vault.receipts.bucketName } : {}),
      // Names only, and only where addresses are derived: the function reads the values at run time.
      ...(walletKeys
        ? Object.fromEntries((Object.entries(walletKeys) as [AddressFamily, IStringParameter][]).map(([family, parameter]) => [walletKeyParameterVariable(family), parameter.parameterName]))
        : {}),
    };

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
      environment,
      logGroup: new LogGroup(scope, `${id}Logs`, {
        retention: props.logRetention,
        removalPolicy: props.removalPolicy,
      }),
      bundling: { ...FUNCTION_BUNDLING, mainFields: [...FUNCTION_BUNDLING.mainFields] },
    });
    this.definition = definition;

    for (const [key, access] of Object.entries(definition.tables) as [TableKey, TableAccess][]) {
      GRANT_TABLE_ACCESS[access](tables[key], this);
    }
    // A queue of another stage only is skipped: prod's confirm-deposit hands UTRs to the
    // provider's integration, not to the demo's simulated provider.
    for (const name of definition.sendsTo ?? []) queues[name]?.queue.grantSendMessages(this);
    if (vault && definition.usesVault) {
      // Decrypt, Encrypt, ReEncrypt* and GenerateDataKey*: data keys for sealed card numbers, and
      // what S3 asks of the caller to write an object under SSE-KMS.
      vault.key.grantEncryptDecrypt(this);
      vault.receipts.grantPut(this);
    } else if (vault) {
      // Opening a sealed callback secret decrypts its data key; nothing else.
      vault.key.grantDecrypt(this);
    }
    for (const parameter of Object.values(walletKeys ?? {})) parameter.grantRead(this);
    if (definition.kind === 'queue' && consumed) {
      const { queue, deadLetterQueue } = consumed;
      // Also grants consuming, ChangeMessageVisibility included: the consumer schedules a
      // callback's next attempt by hiding its message until then.
      this.addEventSource(
        new SqsEventSource(queue, {
          batchSize: definition.batchSize,
          maxBatchingWindow: QUEUE_BATCHING_WINDOW,
          // Only the failed deliveries of a batch come back, not the whole batch.
          reportBatchItemFailures: true,
        }),
      );
      // Parked by the consumer itself once a message's retry window closes, not by the redrive policy.
      if (definition.parksMessages) deadLetterQueue.grantSendMessages(this);
    }
  }
}

/** `{urlVariable}` and `{deadLetterUrlVariable}` of every queue. */
export function queueEnvironment(queues: StageQueues): Record<string, string> {
  return Object.fromEntries(
    (Object.entries(queues) as [QueueName, QueueWithDeadLetter][]).flatMap(([name, { queue, deadLetterQueue }]) => {
      const definition: QueueDefinition = QUEUES[name];
      return [
        [definition.urlVariable, queue.queueUrl],
        [definition.deadLetterUrlVariable, deadLetterQueue.queueUrl],
      ];
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
function assertVisibilityCoversRetries(name: string, { visibilityTimeoutSeconds }: QueueWithDeadLetter, timeoutSeconds: number): void {
  const batchingSeconds = QUEUE_BATCHING_WINDOW.toSeconds();
  const requiredSeconds = VISIBILITY_TIMEOUTS_PER_INVOCATION * timeoutSeconds + batchingSeconds;
  if (visibilityTimeoutSeconds < requiredSeconds) {
    throw new Error(
      `${name} may hold a message ${requiredSeconds} s (${VISIBILITY_TIMEOUTS_PER_INVOCATION} x its ${timeoutSeconds} s timeout + ` +
        `batching window ${batchingSeconds} s), so its queue's visibility timeout must be at least that, and it is ${visibilityTimeoutSeconds} s: ` +
        'raise the visibility timeout (shared/platform.ts) or lower the function timeout (shared/routes.ts)',
    );
  }
}
