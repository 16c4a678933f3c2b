/**
 * What a stage keeps, in a stack of its own that the stateless ones refer to
 * (docs/operations.md#what-a-stage-is-made-of): a table per table definition
 * (shared/store/tables.ts), the queues (gateway-queues.ts), the vault (its KMS key, the receipts
 * bucket and that bucket's access-log bucket), the reports bucket and its access-log bucket, the
 * SSM parameters of the wallets' extended public keys, and the partner providers' secrets.
 *
 * Each part makes its resources in the stack itself, so that their logical ids are the stack's
 * and a part's refactoring never replaces a table, queue, key, bucket or secret.
 */
import { receiptKeyAlias, treasuryKeyAliases } from '../../shared/config.js';
import { CfnOutput, CfnParameter, Duration, RemovalPolicy, Stack, type CfnOutputProps, type StackProps } from 'aws-cdk-lib';
import { AttributeType, BillingMode, ProjectionType, Table, type ITable } from 'aws-cdk-lib/aws-dynamodb';
import { AccountRootPrincipal, AnyPrincipal, PolicyDocument, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Key, KeySpec, KeyUsage } from 'aws-cdk-lib/aws-kms';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { BlockPublicAccess, Bucket, BucketEncryption, ObjectOwnership, type BucketProps } from 'aws-cdk-lib/aws-s3';
import { StringParameter } from 'aws-cdk-lib/aws-ssm';
import type { Construct } from 'constructs';
import { REPORT_RETENTION_DAYS } from '../../shared/domain/ledger/index.js';
import { type AddressFamily, TEST_WALLET_XPUBS } from '../../shared/domain/chains/index.js';
import { TREASURY_FAMILIES, type TreasuryFamily } from '../../shared/domain/payouts/index.js';
import type { Stage } from '../../shared/stage.js';
import { TABLES, TABLE_KEYS, type IndexDefinition, type KeyAttribute, type TableDefinition, type TableKey } from '../../shared/store/tables.js';
import { pascalCase } from './construct-ids.js';
import { GatewayQueues } from './gateway-queues.js';
import { PartnerSecrets, type ProviderDeployment } from './payment-providers.js';
import { removalPolicyOf, type StageSettings } from './stage-settings.js';
import { functionsForStage, type GatewayFunction as FunctionDefinition } from '../../shared/routes.js';
import { functionRoleArn, SERVICE_NAME, usesVaultKey, vaultActionsOf, type StageQueues, type Vault, type WalletKeyParameters } from './gateway-function.js';
import { acknowledge } from './nag.js';

const PROJECTION_TYPE = { all: ProjectionType.ALL, keys: ProjectionType.KEYS_ONLY } as const;

/** Multipart uploads left unfinished (a function that timed out), of receipts or reports, are removed after this. */
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

/** The statement of a key's policy by which the account administers the key (above). */
const accountAdministersKey = (account: AccountRootPrincipal): PolicyStatement =>
  new PolicyStatement({ sid: 'AccountAdministersKey', principals: [account], actions: KEY_ADMINISTRATION_ACTIONS, resources: ['*'] });

/** The statement of a key's policy letting one function of the stage take `actions`: its role named in the condition, as the vault's comment says why. */
const functionUsesKey = (stage: Stage, functionName: string, sid: string, actions: readonly string[]): PolicyStatement =>
  new PolicyStatement({
    sid: `${pascalCase(functionName)}${sid}`,
    principals: [new AnyPrincipal()],
    actions: [...actions],
    resources: ['*'],
    conditions: { ArnEquals: { 'aws:PrincipalArn': functionRoleArn(stage, functionName) } },
  });

/** What a function that sends payouts does with a treasury key: sign a digest, and read the public key it checks the signature against. */
const TREASURY_SIGNER_ACTIONS = ['kms:Sign', 'kms:GetPublicKey'];
/** What a function that follows payouts on chain does with it: read the public key its addresses come from. */
const TREASURY_READER_ACTIONS = ['kms:GetPublicKey'];

/** What the function that signs transaction receipts does with the receipt key: sign, and read the public key that names it (`kid`). */
const RECEIPT_SIGNER_ACTIONS = ['kms:Sign', 'kms:GetPublicKey'];
/** What the JWKS function does with it: read the public key, never sign. */
const RECEIPT_LISTER_ACTIONS = ['kms:GetPublicKey'];

/** Account-level extended public keys only: a private key (`xprv`) must never reach a parameter. */
const XPUB_PATTERN = '^[xz]pub[1-9A-HJ-NP-Za-km-z]{107}$';

interface PrivateBucketSettings {
  /** The bucket keeps its objects rather than being emptied with the stack. */
  protectData: boolean;
  removalPolicy: RemovalPolicy;
}

/** A bucket that blocks public access, takes TLS only, and is retained in prod (emptied and deleted with a demo stack). */
function privateBucket(stack: Stack, id: string, { protectData, removalPolicy }: PrivateBucketSettings, props: BucketProps): Bucket {
  return new Bucket(stack, id, {
    blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
    objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
    enforceSSL: true,
    removalPolicy,
    // A bucket with objects in it could not go with its stack.
    autoDeleteObjects: !protectData,
    ...props,
  });
}

/** The access-log destination of one bucket (`of`), keeping the logs as long as the stage keeps logs. */
function accessLogBucket(stack: Stack, id: string, of: string, settings: PrivateBucketSettings, logRetention: RetentionDays): Bucket {
  const bucket = privateBucket(stack, id, settings, {
    // S3 delivers access logs only to a bucket encrypted with S3-managed keys.
    encryption: BucketEncryption.S3_MANAGED,
    lifecycleRules: [{ expiration: Duration.days(logRetention) }],
  });
  acknowledge(bucket, ['AwsSolutions-S1'], `It is the ${of} bucket's access-log destination: logging its own access would only log the log deliveries.`);
  return bucket;
}

export interface GatewayTablesProps {
  /** Tables refuse deletion. */
  protectData: boolean;
  removalPolicy: RemovalPolicy;
}

export class GatewayTables {
  readonly tables = {} as Record<TableKey, ITable>;
  /** Each table's name, for the admin CLI. */
  readonly outputs: Record<string, CfnOutputProps> = {};

  constructor(stack: Stack, { protectData, removalPolicy }: GatewayTablesProps) {
    const attribute = ({ name, type }: KeyAttribute) => ({
      name,
      type: type === 'S' ? AttributeType.STRING : AttributeType.NUMBER,
    });
    const projection = (index: IndexDefinition) =>
      typeof index.projection === 'string' ? { projectionType: PROJECTION_TYPE[index.projection] } : { projectionType: ProjectionType.INCLUDE, nonKeyAttributes: [...index.projection] };

    for (const key of TABLE_KEYS) {
      const definition: TableDefinition = TABLES[key];
      const table = new Table(stack, `${pascalCase(key)}Table`, {
        partitionKey: attribute(definition.partitionKey),
        sortKey: definition.sortKey && attribute(definition.sortKey),
        timeToLiveAttribute: definition.ttlAttribute,
        billingMode: BillingMode.PAY_PER_REQUEST,
        pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
        deletionProtection: protectData,
        removalPolicy,
      });
      for (const index of definition.indexes ?? []) {
        table.addGlobalSecondaryIndex({
          indexName: index.name,
          partitionKey: attribute(index.partitionKey),
          sortKey: index.sortKey && attribute(index.sortKey),
          ...projection(index),
        });
      }
      this.tables[key] = table;
      this.outputs[`Table${pascalCase(key)}`] = { value: table.tableName };
    }
  }
}

export interface GatewayVaultProps {
  stage: Stage;
  /** The stage's functions: those that use the vault are named in the key policy, each with its actions. */
  functions: readonly FunctionDefinition[];
  /** The buckets keep their objects rather than being emptied with the stack. */
  protectData: boolean;
  removalPolicy: RemovalPolicy;
  /** How long the receipts bucket's access logs are kept. */
  logRetention: RetentionDays;
}

/**
 * The customer-managed key that wraps the data keys of sealed card numbers and encrypts the
 * receipts bucket, and that bucket: private, TLS only, versioned, its access logged.
 *
 * The key policy is written out: the account may administer the key but not decrypt with it,
 * and may generate data keys, which is what the admin CLI seals new merchants' callback secrets
 * with (under the operator's IAM permissions). Each function that uses the key is named in the
 * policy by its role's ARN, with its own actions: the roles are the api and jobs stacks', made
 * after this one, and a key policy naming a role that does not exist yet is refused, so the
 * statement names the role in its condition rather than as its principal.
 */
export class GatewayVault implements Vault {
  readonly key: Key;
  readonly receipts: Bucket;
  readonly outputs: Record<string, CfnOutputProps>;

  constructor(stack: Stack, { stage, functions, protectData, removalPolicy, logRetention }: GatewayVaultProps) {
    const account = new AccountRootPrincipal();
    const users = functions.filter(usesVaultKey).map((definition) => functionUsesKey(stage, definition.name, 'Uses', vaultActionsOf(definition)));
    this.key = new Key(stack, 'VaultKey', {
      description: `Payment gateway ${stage}: data keys of sealed card numbers and callback secrets, and the receipts bucket`,
      alias: `alias/${SERVICE_NAME}-${stage}`,
      enableKeyRotation: true,
      policy: new PolicyDocument({
        statements: [accountAdministersKey(account), new PolicyStatement({ sid: 'AccountSealsWithAdminCli', principals: [account], actions: ['kms:GenerateDataKey'], resources: ['*'] }), ...users],
      }),
      // Prod keeps it: deleting the key would make every sealed card number and receipt unreadable.
      removalPolicy,
    });
    const buckets = { protectData, removalPolicy };
    const accessLogs = accessLogBucket(stack, 'ReceiptsAccessLogs', 'receipts', buckets, logRetention);
    this.receipts = privateBucket(stack, 'ReceiptsBucket', buckets, {
      encryption: BucketEncryption.KMS,
      encryptionKey: this.key,
      // One data key per bucket and period instead of one KMS call per object.
      bucketKeyEnabled: true,
      versioned: true,
      lifecycleRules: [{ abortIncompleteMultipartUploadAfter: INCOMPLETE_UPLOAD_LIFETIME }],
      serverAccessLogsBucket: accessLogs,
      serverAccessLogsPrefix: 'receipts/',
    });
    this.outputs = {
      ReceiptsBucketName: { value: this.receipts.bucketName, description: 'Payment receipts (private, KMS-encrypted)' },
      VaultKeyArn: { value: this.key.keyArn, description: 'KMS key of sealed card numbers and callback secrets, and of the receipts bucket; the admin CLI seals with it' },
    };
  }
}

export interface GatewayTreasuryKeysProps {
  stage: Stage;
  /** The stage's functions: those that send payouts (`signsPayouts`) or follow them (`readsTreasuryKeys`) are named in each key's policy. */
  functions: readonly FunctionDefinition[];
  removalPolicy: RemovalPolicy;
}

/**
 * The treasury's keys (docs/architecture.md#the-treasury-signer): one KMS asymmetric key per family,
 * secp256k1 for signing, whose private half never leaves KMS. The account may administer each
 * key and read its public key (the admin CLI derives the treasury's addresses from it), never sign
 * with it: only a function that sends payouts may, named in the policy by its role's ARN as the
 * vault's users are; the chain watcher, which follows payouts, may read the public key alone. Prod keeps them, as it keeps the vault's key: a deleted key is a treasury
 * whose coins nobody can move again.
 */
export class GatewayTreasuryKeys {
  readonly keys: Record<TreasuryFamily, Key>;
  readonly outputs: Record<string, CfnOutputProps>;

  constructor(stack: Stack, { stage, functions, removalPolicy }: GatewayTreasuryKeysProps) {
    const account = new AccountRootPrincipal();
    const users = functions.flatMap((definition) =>
      definition.signsPayouts
        ? [{ definition, sid: 'Signs', actions: TREASURY_SIGNER_ACTIONS }]
        : definition.readsTreasuryKeys
          ? [{ definition, sid: 'ReadsPublicKey', actions: TREASURY_READER_ACTIONS }]
          : [],
    );
    const keyOf = (family: TreasuryFamily) =>
      new Key(stack, `Treasury${pascalCase(family)}Key`, {
        description: `Payment gateway ${stage}: the ${family} treasury's signing key`,
        alias: treasuryKeyAliases(stage)[family],
        keySpec: KeySpec.ECC_SECG_P256K1,
        keyUsage: KeyUsage.SIGN_VERIFY,
        policy: new PolicyDocument({
          statements: [accountAdministersKey(account), ...users.map(({ definition, sid, actions }) => functionUsesKey(stage, definition.name, sid, actions))],
        }),
        removalPolicy,
      });
    this.keys = Object.fromEntries(TREASURY_FAMILIES.map((family) => [family, keyOf(family)])) as Record<TreasuryFamily, Key>;
    this.outputs = Object.fromEntries(
      TREASURY_FAMILIES.map((family) => [
        `Treasury${pascalCase(family)}KeyArn`,
        { value: this.keys[family].keyArn, description: `KMS key of the ${family} treasury: the admin CLI reads its public key for the treasury's address` },
      ]),
    );
  }
}

export interface GatewayReceiptKeyProps {
  stage: Stage;
  /** The stage's functions: the one that signs receipts (`signsReceipts`) and the one that lists the keys (`listsReceiptKeys`) are named in the key's policy. */
  functions: readonly FunctionDefinition[];
  /** Which key of the stage's receipt keys this is: a rotation makes the next (docs/operations.md#receipt-keys). */
  generation: number;
}

/**
 * The transaction receipts' signing key (docs/merchant-guide.md#receipts): a KMS P-256 key whose
 * private half never leaves KMS, aliased after the stage (the functions name it by the alias).
 * Only the functions that sign receipts (the receipt route, and the dashboard's page function for
 * its download) may sign with it; the JWKS function may read its public
 * key. The account administers it and never signs. It is kept whatever the stage's data policy:
 * receipts it signed must verify for as long as merchants keep them, so a rotation leaves it in
 * the account, its policy as it was, and the stage's configuration lists it for the JWKS.
 */
export class GatewayReceiptKey {
  readonly key: Key;
  readonly outputs: Record<string, CfnOutputProps>;

  constructor(stack: Stack, { stage, functions, generation }: GatewayReceiptKeyProps) {
    const users = functions.flatMap((definition) =>
      definition.signsReceipts
        ? [{ definition, sid: 'SignsReceipts', actions: RECEIPT_SIGNER_ACTIONS }]
        : definition.listsReceiptKeys
          ? [{ definition, sid: 'ReadsPublicKey', actions: RECEIPT_LISTER_ACTIONS }]
          : [],
    );
    // The first key keeps its id; each rotation's key is a new resource beside the one it retires.
    this.key = new Key(stack, generation === 1 ? 'ReceiptKey' : `ReceiptKey${generation}`, {
      description: `Payment gateway ${stage}: the transaction receipts' signing key (generation ${generation})`,
      alias: receiptKeyAlias(stage),
      keySpec: KeySpec.ECC_NIST_P256,
      keyUsage: KeyUsage.SIGN_VERIFY,
      policy: new PolicyDocument({
        statements: [accountAdministersKey(new AccountRootPrincipal()), ...users.map(({ definition, sid, actions }) => functionUsesKey(stage, definition.name, sid, actions))],
      }),
      removalPolicy: RemovalPolicy.RETAIN,
    });
    this.outputs = { ReceiptKeyArn: { value: this.key.keyArn, description: "KMS key signing transaction receipts: on a rotation, its ARN goes to the stage's retiredReceiptKeys" } };
  }
}

export interface GatewayReportFilesProps {
  /** The buckets keep their objects rather than being emptied with the stack. */
  protectData: boolean;
  removalPolicy: RemovalPolicy;
  /** How long the reports bucket's access logs are kept. */
  logRetention: RetentionDays;
}

/**
 * The reports' CSV files (docs/merchant-guide.md#reports), written by their builder and read only
 * through the presigned links handed out for them: a bucket that is private, TLS only, its access
 * logged, each file kept as long as its report (REPORT_RETENTION_DAYS).
 *
 * Encrypted with S3-managed keys, not the vault's: a presigned link is a GET signed by the function
 * that made it, and under SSE-KMS it would also take that function's right to decrypt with the key.
 * Not versioned: each file is written once, under a key of its own, and a version kept past its
 * expiration would outlive the report.
 */
export class GatewayReportFiles {
  readonly bucket: Bucket;
  readonly outputs: Record<string, CfnOutputProps>;

  constructor(stack: Stack, { protectData, removalPolicy, logRetention }: GatewayReportFilesProps) {
    const buckets = { protectData, removalPolicy };
    const accessLogs = accessLogBucket(stack, 'ReportsAccessLogs', 'reports', buckets, logRetention);
    this.bucket = privateBucket(stack, 'ReportsBucket', buckets, {
      encryption: BucketEncryption.S3_MANAGED,
      lifecycleRules: [{ expiration: Duration.days(REPORT_RETENTION_DAYS), abortIncompleteMultipartUploadAfter: INCOMPLETE_UPLOAD_LIFETIME }],
      serverAccessLogsBucket: accessLogs,
      serverAccessLogsPrefix: 'reports/',
    });
    this.outputs = {
      ReportsBucketName: { value: this.bucket.bucketName, description: `Report files (private, S3-managed encryption, kept ${REPORT_RETENTION_DAYS} days)` },
    };
  }
}

export interface GatewayWalletKeysProps {
  stage: Stage;
  /** Derive deposit addresses from the public test mnemonic instead of keys the operator supplies. */
  testWalletKeys: boolean;
}

/**
 * The wallets' extended public keys as SSM String parameters, read at run time by the functions
 * that derive addresses and by nothing else. (CloudFormation cannot create SecureStrings; an xpub
 * spends nothing, but it discloses every address, so it stays out of the functions' environment
 * and the template, and reading it takes a grant.)
 */
export class GatewayWalletKeys {
  readonly parameters: WalletKeyParameters;

  constructor(stack: Stack, { stage, testWalletKeys }: GatewayWalletKeysProps) {
    const families = Object.keys(TEST_WALLET_XPUBS) as AddressFamily[];
    this.parameters = Object.fromEntries(
      families.map((family) => {
        const value = testWalletKeys
          ? TEST_WALLET_XPUBS[family]
          : // No default: deploying requires the operator's keys (`--parameters`), synthesis needs none.
            new CfnParameter(stack, `Wallet${pascalCase(family)}Xpub`, {
              type: 'String',
              description: `Account-level extended public key for ${family} deposit addresses`,
              noEcho: true,
              allowedPattern: XPUB_PATTERN,
              constraintDescription: 'must be an extended public key (xpub..., or zpub... for BTC), never a private key',
            }).valueAsString;
        const parameter = new StringParameter(stack, `Wallet${pascalCase(family)}XpubParameter`, {
          parameterName: `/${SERVICE_NAME}/${stage}/wallet-xpub/${family}`,
          description: `Account-level extended public key for ${family} deposit addresses`,
          stringValue: value,
        });
        return [family, parameter];
      }),
    ) as Record<AddressFamily, StringParameter>;
  }
}

export interface GatewayDataStackProps extends StackProps {
  stage: Stage;
  settings: StageSettings;
  /** The stage's partner providers (context `providers`), each given a secret here. */
  partners: readonly ProviderDeployment[];
  /** Which receipt key signs (context `receiptKeyGeneration`, 1 until the first rotation). */
  receiptKeyGeneration?: number;
}

/** A stage's stateful resources: what its functions keep and read, and the operators' outputs naming them. */
export class GatewayDataStack extends Stack {
  readonly tables: Record<TableKey, ITable>;
  readonly queues: StageQueues;
  /** Made only when some function of the stage needs it, as the wallet keys and the reports bucket. */
  readonly vault?: GatewayVault;
  readonly walletKeys?: WalletKeyParameters;
  readonly reportFiles?: GatewayReportFiles;
  readonly partnerSecrets: PartnerSecrets;
  readonly treasuryKeys: GatewayTreasuryKeys;
  readonly receiptKey: GatewayReceiptKey;

  constructor(scope: Construct, id: string, { stage, settings, partners, receiptKeyGeneration = 1, ...stackProps }: GatewayDataStackProps) {
    super(scope, id, { description: `Payment gateway ${stage}: what the stage keeps`, terminationProtection: settings.protectData, ...stackProps });
    const { protectData, logRetention, testWalletKeys } = settings;
    const removalPolicy = removalPolicyOf(settings);
    const definitions = functionsForStage(stage);
    const tables = new GatewayTables(this, { protectData, removalPolicy });
    this.tables = tables.tables;
    const messaging = new GatewayQueues(this, { stage, removalPolicy });
    this.queues = messaging.queues;
    this.vault = definitions.some(usesVaultKey) ? new GatewayVault(this, { stage, functions: definitions, protectData, removalPolicy, logRetention }) : undefined;
    this.walletKeys = definitions.some((definition) => definition.readsWalletKeys) ? new GatewayWalletKeys(this, { stage, testWalletKeys }).parameters : undefined;
    this.reportFiles = definitions.some((definition) => definition.reportFiles) ? new GatewayReportFiles(this, { protectData, removalPolicy, logRetention }) : undefined;
    this.partnerSecrets = new PartnerSecrets(this, 'PaymentProviders', { partners, removalPolicy });
    this.treasuryKeys = new GatewayTreasuryKeys(this, { stage, functions: definitions, removalPolicy });
    this.receiptKey = new GatewayReceiptKey(this, { stage, functions: definitions, generation: receiptKeyGeneration });

    // What operators, the admin CLI and redrives read of the stage's data.
    const outputs = {
      Stage: { value: stage },
      ...tables.outputs,
      ...messaging.outputs,
      ...this.vault?.outputs,
      ...this.reportFiles?.outputs,
      ...this.partnerSecrets.outputs,
      ...this.treasuryKeys.outputs,
      ...this.receiptKey.outputs,
    };
    for (const [outputId, props] of Object.entries(outputs)) new CfnOutput(this, outputId, props);
  }
}
