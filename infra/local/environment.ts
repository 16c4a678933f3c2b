/**
 * The environment the functions see when they run on one machine: the same variables their
 * Lambda configuration carries in AWS, pointed at the local stores. The runtime and the test
 * setup both build it here, so the two cannot drift apart.
 */
import { treasuryKeyDirectory } from '../../shared/signers/key-file-signer.js';
import { receiptKeyDirectory } from '../../shared/signers/key-file-receipt-signer.js';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import * as z from 'zod';
import { FIAT_METHODS, LOCAL_FIAT_CURRENCIES } from '../../shared/domain/kernel/index.js';
import { isCallbackSecret, isWellFormedApiKey } from '../../shared/domain/merchants/index.js';
import type { demoProviderRoute } from '../../shared/domain/providers/index.js';
import { TEST_WALLET_XPUBS } from '../../shared/domain/chains/index.js';
import type { Stage } from '../../shared/stage.js';
import { TABLE_KEYS, tableEnvVar, type TableKey } from '../../shared/store/tables.js';
import { DEFAULTS } from '../../shared/defaults.js';
import { AUTHORIZER_CACHE_SECONDS } from '../../shared/platform.js';
import { readOrCreateSecretFile } from '../../shared/vault/secret-files.js';

/** The local stack runs the demo function set (docs/operations.md#local-configuration). */
export const LOCAL_STAGE: Stage = 'demo';
export const LOCAL_REGION = 'us-east-1';
export const LOCAL_ACCOUNT_ID = '000000000000';

/**
 * The credentials the local store is reached with. DynamoDB Local cannot be bound to one address:
 * it listens on every interface. Run without -sharedDb it keeps a database per access key id,
 * though, so the gateway's tables are filed under a random access key id that only the data
 * directory holds, and whoever else reaches the port finds an empty store. It checks no secret
 * access key; the SDK still wants one.
 */
export interface LocalCredentials {
  readonly accessKeyId: string;
  readonly secretAccessKey: string;
}

/** DynamoDB Local takes letters and digits only. */
const ACCESS_KEY_ID = /^[0-9A-Za-z]{32,128}$/;
const randomAccessKeyId = (): string => randomBytes(32).toString('hex');
const credentialsFor = (accessKeyId: string): LocalCredentials => ({ accessKeyId, secretAccessKey: 'unchecked' });

/** Credentials for a store of the moment (one in memory, say): a new random access key id. */
export const randomLocalCredentials = (): LocalCredentials => credentialsFor(randomAccessKeyId());

export const localStoreKeyFile = (dataDir: string): string => join(dataDir, 'keys', 'dynamodb-access-key-id');

/**
 * The credentials of the local store of `dataDir`: the access key id in `localStoreKeyFile`, which
 * the first call writes (mode 0600), with `newAccessKeyId` (a store that has its own already) or
 * a random one.
 */
export async function localCredentials(dataDir: string, newAccessKeyId = randomAccessKeyId()): Promise<LocalCredentials> {
  const file = localStoreKeyFile(dataDir);
  const accessKeyId = (await readOrCreateSecretFile(file, () => `${newAccessKeyId}\n`)).toString('utf8').trim();
  if (!ACCESS_KEY_ID.test(accessKeyId)) throw new Error(`${file} does not hold an access key id (32 to 128 letters or digits)`);
  return credentialsFor(accessKeyId);
}

/** `invoices` -> `gateway-invoices`, `apiKeys` -> `gateway-api-keys`. */
export function localTableNames(): Record<TableKey, string> {
  return Object.fromEntries(TABLE_KEYS.map((key) => [key, `gateway-${key.replace(/([a-z])([A-Z])/g, '$1-$2').toLowerCase()}`])) as Record<TableKey, string>;
}

/** The local settings that reach the functions. */
export interface FunctionSettings {
  invoiceLifetimeSeconds: number;
  retryScale: number;
  secretOverlapSeconds: number;
}

/** What a deployed stage runs with, for the benchmarks that measure the functions as shipped. */
export const DEFAULT_FUNCTION_SETTINGS: FunctionSettings = {
  invoiceLifetimeSeconds: DEFAULTS.invoiceLifetimeSeconds,
  retryScale: DEFAULTS.callbackRetryScale,
  secretOverlapSeconds: DEFAULTS.callbackSecretOverlapSeconds,
};

/** On one machine the vault is a master key file and a directory of sealed receipts; report files have a directory of their own. */
export function localVaultPaths(dataDir: string): { keyFile: string; receiptsDirectory: string; reportsDirectory: string } {
  return { keyFile: join(dataDir, 'keys', 'master.key'), receiptsDirectory: join(dataDir, 'receipts'), reportsDirectory: join(dataDir, 'reports') };
}

export interface LocalServices {
  publicBaseUrl: string;
  dynamodbEndpoint: string;
  /** What the store files the gateway's tables under (see `localCredentials`). */
  dynamodbCredentials: LocalCredentials;
  sqsEndpoint: string;
  /** Every queue URL variable of the stage (`CALLBACK_QUEUE_URL`, `FIAT_DECISION_QUEUE_URL`, ...). */
  queueEnvironment: Record<string, string>;
  /** Where the vault's key file and the receipts live (see `localVaultPaths`). */
  dataDir: string;
  tables: Record<TableKey, string>;
  /** `GATEWAY_PROVIDERS` (docs/operations.md#payment-providers): the demo provider's, or the operator's own. */
  providers?: string;
}

export function handlerEnvironment(services: LocalServices, settings: FunctionSettings): Record<string, string> {
  const vault = localVaultPaths(services.dataDir);
  return {
    STAGE: LOCAL_STAGE,
    PUBLIC_BASE_URL: services.publicBaseUrl,
    GATEWAY_INVOICE_LIFETIME_S: String(settings.invoiceLifetimeSeconds),
    GATEWAY_RETRY_SCALE: String(settings.retryScale),
    GATEWAY_SECRET_OVERLAP_S: String(settings.secretOverlapSeconds),
    // One machine: a merchant's receiver on it (loopback, a container's address) is reached.
    GATEWAY_CALLBACK_TARGETS: 'any',
    WALLET_EVM_XPUB: TEST_WALLET_XPUBS.evm,
    WALLET_BTC_XPUB: TEST_WALLET_XPUBS.btc,
    WALLET_TRON_XPUB: TEST_WALLET_XPUBS.tron,
    ...Object.fromEntries(TABLE_KEYS.map((key) => [tableEnvVar(key), services.tables[key]])),
    AWS_REGION: LOCAL_REGION,
    // The local SQS takes any credentials: these serve both.
    AWS_ACCESS_KEY_ID: services.dynamodbCredentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: services.dynamodbCredentials.secretAccessKey,
    AWS_ENDPOINT_URL_DYNAMODB: services.dynamodbEndpoint,
    AWS_ENDPOINT_URL_SQS: services.sqsEndpoint,
    ...services.queueEnvironment,
    ...(services.providers === undefined ? {} : { GATEWAY_PROVIDERS: services.providers }),
    GATEWAY_KEY_FILE: vault.keyFile,
    GATEWAY_TREASURY_DIR: treasuryKeyDirectory(services.dataDir),
    GATEWAY_RECEIPT_KEY_DIR: receiptKeyDirectory(services.dataDir),
    GATEWAY_RECEIPTS_DIR: vault.receiptsDirectory,
    GATEWAY_REPORTS_DIR: vault.reportsDirectory,
    // The local gateway throttles by the digest the authorizer returns: new keys are registered nowhere.
    GATEWAY_API_KEY_REGISTRY: 'local',
    // The SDK warns once per process that Node 20 support ends; the Lambda runtime is Node 22.
    AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    // No X-Ray daemon and no CloudWatch here: traces are not recorded, and metric lines would
    // only crowd the console (a test that reads them turns them on).
    POWERTOOLS_TRACE_ENABLED: 'false',
    POWERTOOLS_METRICS_DISABLED: 'true',
    // With nothing traced, the X-Ray SDK's automatic mode would still follow every promise from
    // creation to destruction (cls-hooked), a tenth of the runtime's time under load.
    AWS_XRAY_MANUAL_MODE: 'true',
  };
}

/** Where the local stores persist unless GATEWAY_DATA_DIR says otherwise (relative to the working directory). */
export const DEFAULT_DATA_DIR = '.data';

/** Per-deployment overrides of the demo provider's limits, e.g. `{"AZN":{"p2p":{"min":"10","max":"5000"}}}`. */
export type DemoProviderLimits = Parameters<typeof demoProviderRoute>[0];

export interface LocalSettings extends FunctionSettings {
  /** 0 picks a free port. */
  port: number;
  dataDir: string;
  demoApiKey?: string;
  demoCallbackUrl?: string;
  demoCallbackSecret?: string;
  /** How often the expiry sweep runs (GATEWAY_EXPIRY_SWEEP_S); the route table's rate unless given. */
  expirySweepSeconds?: number;
  /** How often each chain watcher runs (GATEWAY_CHAIN_POLL_S). */
  chainPollSeconds: number;
  /** How often the provider reconciliation runs (GATEWAY_RECONCILE_S); the route table's rate unless given. */
  reconcileSeconds?: number;
  /** How often the books check runs (GATEWAY_BOOKS_CHECK_S); the route table's rate unless given. */
  booksCheckSeconds?: number;
  /** `GATEWAY_PROVIDERS` as given: the operator's providers, instead of the demo provider `npm start` runs. */
  providers?: string;
  /** How long the demo provider takes to decide a UTR (GATEWAY_PROVIDER_DELAY_S). */
  providerDelaySeconds: number;
  /** How long the gateway reuses the authorizer's decision about a key (GATEWAY_AUTHORIZER_CACHE_S): API Gateway's cache unless given. */
  authorizerCacheSeconds: number;
  /** GATEWAY_FIAT_LIMITS: the demo provider's limits, where they differ from docs/merchant-guide.md#payment-limits. */
  demoProviderLimits: DemoProviderLimits;
  /**
   * A DynamoDB-compatible store and an SQS-compatible server already running (the AWS SDK's own
   * `AWS_ENDPOINT_URL_DYNAMODB` and `AWS_ENDPOINT_URL_SQS`), used instead of starting them. The
   * store is reached with the data directory's credentials all the same.
   */
  dynamodbEndpoint?: string;
  sqsEndpoint?: string;
}

/** An unset or empty variable is absent. */
const unsetToUndefined = (value: unknown) => (value === '' ? undefined : value);
const optional = <S extends z.ZodType>(schema: S) => z.preprocess(unsetToUndefined, schema.optional());
const withDefault = <S extends z.ZodType>(schema: S, fallback: z.input<S>) => z.preprocess((value) => unsetToUndefined(value) ?? fallback, schema);

const httpUrl = z.url({ protocol: /^https?$/, error: 'must be an http or https URL' });

const decimalText = z.string().regex(/^\d+(\.\d+)?$/);
const limitSchema = z.strictObject({ min: decimalText, max: decimalText.optional(), step: decimalText.optional() });

/** JSON text of a schema's value. */
const jsonOf = <S extends z.ZodType>(schema: S) =>
  z
    .string()
    .transform((text, ctx) => {
      try {
        return JSON.parse(text) as unknown;
      } catch {
        ctx.addIssue({ code: 'custom', message: 'must be JSON' });
        return z.NEVER;
      }
    })
    .pipe(schema);

const settingsSchema = z.object({
  PORT: withDefault(z.coerce.number().int().min(0).max(65535), 3000),
  GATEWAY_DATA_DIR: withDefault(z.string(), DEFAULT_DATA_DIR),
  GATEWAY_DEMO_API_KEY: optional(
    z.string().refine((key) => isWellFormedApiKey(key) && key.startsWith(`gw_${LOCAL_STAGE}_`), {
      error: `must be a demo key: gw_${LOCAL_STAGE}_ followed by 32 letters or digits`,
    }),
  ),
  GATEWAY_DEMO_CALLBACK_URL: optional(httpUrl),
  GATEWAY_DEMO_CALLBACK_SECRET: optional(z.string().refine(isCallbackSecret, { error: 'must be whsec_ followed by the base64 of 32 bytes' })),
  GATEWAY_INVOICE_LIFETIME_S: withDefault(z.coerce.number().positive(), DEFAULTS.invoiceLifetimeSeconds),
  GATEWAY_EXPIRY_SWEEP_S: optional(z.coerce.number().positive()),
  GATEWAY_CHAIN_POLL_S: withDefault(z.coerce.number().positive(), DEFAULTS.chainPollSeconds),
  GATEWAY_RETRY_SCALE: withDefault(z.coerce.number().positive(), DEFAULTS.callbackRetryScale),
  GATEWAY_SECRET_OVERLAP_S: withDefault(z.coerce.number().positive(), DEFAULTS.callbackSecretOverlapSeconds),
  GATEWAY_PROVIDER_DELAY_S: withDefault(z.coerce.number().min(0), DEFAULTS.demoProviderDelaySeconds),
  GATEWAY_AUTHORIZER_CACHE_S: withDefault(z.coerce.number().min(0), AUTHORIZER_CACHE_SECONDS),
  GATEWAY_RECONCILE_S: optional(z.coerce.number().positive()),
  GATEWAY_BOOKS_CHECK_S: optional(z.coerce.number().positive()),
  // Checked in full by the functions' configuration, which reads it when they load at start.
  GATEWAY_PROVIDERS: optional(z.string().min(2)),
  GATEWAY_FIAT_LIMITS: optional(jsonOf(z.partialRecord(z.enum(LOCAL_FIAT_CURRENCIES), z.partialRecord(z.enum(FIAT_METHODS), limitSchema)))),
  AWS_ENDPOINT_URL_DYNAMODB: optional(httpUrl),
  AWS_ENDPOINT_URL_SQS: optional(httpUrl),
});

/** Reads docs/operations.md#local-configuration's variables; throws one message naming every bad variable. */
export function parseLocalSettings(env: NodeJS.ProcessEnv): LocalSettings {
  const result = settingsSchema.safeParse(env);
  if (!result.success) {
    const problems = result.error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`);
    throw new Error(`Invalid environment: ${problems.join('; ')}`);
  }
  const e = result.data;
  return {
    port: e.PORT,
    dataDir: e.GATEWAY_DATA_DIR,
    demoApiKey: e.GATEWAY_DEMO_API_KEY,
    demoCallbackUrl: e.GATEWAY_DEMO_CALLBACK_URL,
    demoCallbackSecret: e.GATEWAY_DEMO_CALLBACK_SECRET,
    invoiceLifetimeSeconds: e.GATEWAY_INVOICE_LIFETIME_S,
    expirySweepSeconds: e.GATEWAY_EXPIRY_SWEEP_S,
    chainPollSeconds: e.GATEWAY_CHAIN_POLL_S,
    retryScale: e.GATEWAY_RETRY_SCALE,
    secretOverlapSeconds: e.GATEWAY_SECRET_OVERLAP_S,
    providerDelaySeconds: e.GATEWAY_PROVIDER_DELAY_S,
    authorizerCacheSeconds: e.GATEWAY_AUTHORIZER_CACHE_S,
    reconcileSeconds: e.GATEWAY_RECONCILE_S,
    booksCheckSeconds: e.GATEWAY_BOOKS_CHECK_S,
    providers: e.GATEWAY_PROVIDERS,
    demoProviderLimits: e.GATEWAY_FIAT_LIMITS ?? {},
    dynamodbEndpoint: e.AWS_ENDPOINT_URL_DYNAMODB?.replace(/\/+$/, ''),
    sqsEndpoint: e.AWS_ENDPOINT_URL_SQS?.replace(/\/+$/, ''),
  };
}
