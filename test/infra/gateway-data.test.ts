/**
 * A stage's data as synthesized (infra/aws/gateway-data.ts): the tables, the vault (its key, its
 * policy and the receipts bucket) and the reports (their bucket, queue, functions and grants).
 *
 * Bundling is skipped (it changes nothing these assertions read); cdk-app.test.ts bundles every
 * function through the real CLI. Each stage is read as one template (test/support/stage-view.ts).
 */
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { usesVaultKey } from '../../infra/aws/gateway-function.js';
import { REPORT_RETENTION_DAYS } from '../../shared/domain/ledger/reports.js';
import { functionsForStage } from '../../shared/routes.js';
import { TABLES, TABLE_KEYS, type TableDefinition } from '../../shared/store/tables.js';
import { resolveText } from '../support/template.js';
import { SQS_SEND, SQS_CONSUME, REPORT_WRITE, refersTo, actionsOf, sorted, pascalCase, describeEachStage, type Statement } from '../support/stage-view.js';
import { TREASURY_FAMILIES } from '../../shared/domain/payouts/index.js';

/** AWS's key-administrator actions, less CreateGrant: managing the key, none of using it or lending its use. */
const KEY_ADMINISTRATION = [
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

describeEachStage((stage, v) => {
  const definitions = functionsForStage(stage);

  describe('tables', () => {
    it.each(TABLE_KEYS.map((key) => [key, TABLES[key] as TableDefinition] as const))('%s: on demand, point-in-time recovery, keys and indexes of its definition', (key, definition) => {
      const table = v().json.Resources[v().tableId(key)]!;
      expect(table.Type).toBe('AWS::DynamoDB::Table');
      expect(table.Properties).toMatchObject({
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        KeySchema: [{ AttributeName: definition.partitionKey.name, KeyType: 'HASH' }, ...(definition.sortKey ? [{ AttributeName: definition.sortKey.name, KeyType: 'RANGE' }] : [])],
      });
      if (definition.ttlAttribute) expect(table.Properties.TimeToLiveSpecification).toEqual({ AttributeName: definition.ttlAttribute, Enabled: true });
      const indexes = (table.Properties.GlobalSecondaryIndexes ?? []) as Array<{ IndexName: string; Projection: Record<string, unknown> }>;
      expect(indexes.map((i) => i.IndexName)).toEqual((definition.indexes ?? []).map((i) => i.name));
      for (const index of definition.indexes ?? []) {
        const projection = indexes.find((i) => i.IndexName === index.name)!.Projection;
        if (index.projection === 'all') expect(projection).toEqual({ ProjectionType: 'ALL' });
        else if (index.projection === 'keys') expect(projection).toEqual({ ProjectionType: 'KEYS_ONLY' });
        else expect(projection).toEqual({ ProjectionType: 'INCLUDE', NonKeyAttributes: [...index.projection] });
      }
    });

    it("creates one table per definition; in demo, the demo provider's besides", () => {
      const gatewayTables = TABLE_KEYS.map((key) => v().tableId(key));
      const others = v()
        .resources('AWS::DynamoDB::Table')
        .filter(([id]) => !gatewayTables.includes(id))
        .map(([id]) => id);
      expect(new Set(gatewayTables).size).toBe(TABLE_KEYS.length);
      expect(others).toEqual(stage === 'demo' ? [expect.stringMatching(/^DemoProviderTable/)] : []);
    });

    it.each(['invoices', 'transactions'] as const)('%s: a sparse index of what waits on a provider, by provider and age, with whole items, queried by the reconciliation alone', (key) => {
      const { Properties } = v().json.Resources[v().tableId(key)]!;
      const index = (Properties.GlobalSecondaryIndexes as Array<Record<string, unknown>>).find((i) => i.IndexName === 'awaitingProvider');
      expect(index).toEqual({
        IndexName: 'awaitingProvider',
        KeySchema: [
          { AttributeName: 'awaitingProvider', KeyType: 'HASH' },
          { AttributeName: 'createdAt', KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      });
      expect(Properties.AttributeDefinitions).toEqual(expect.arrayContaining([{ AttributeName: 'awaitingProvider', AttributeType: 'S' }]));
      const queriers = definitions
        .filter((f) =>
          v()
            .grantsOf(f.name)
            .includes(`dynamodb:Query ${v().tableId(key)}/index/awaitingProvider`),
        )
        .map((f) => f.name);
      expect(queriers).toEqual(['reconcile-provider-payments']);
    });
  });

  describe('vault key policy', () => {
    const rootStatements = () =>
      v()
        .keyPolicy()
        .filter((statement) => JSON.stringify(statement.Principal).includes(':root'));

    it('lets the account administer the key and generate data keys for the admin CLI, and nothing more', () => {
      const actions = sorted(new Set(rootStatements().flatMap(actionsOf)));
      expect(actions).toEqual(sorted([...KEY_ADMINISTRATION, 'kms:GenerateDataKey']));
      // No data-plane wildcard reaches the account: it cannot decrypt sealed card numbers, secrets or receipts.
      for (const action of actions) expect(['kms:*', 'kms:Create*', 'kms:CreateGrant', 'kms:Decrypt', 'kms:Encrypt', 'kms:ReEncrypt*', 'kms:GenerateDataKey*'].includes(action), action).toBe(false);
    });

    it('names every other principal: the roles of the functions that use the vault, each by its ARN alone', () => {
      const others = v()
        .keyPolicy()
        .filter((statement) => !rootStatements().includes(statement));
      expect(others.length).toBe(definitions.filter(usesVaultKey).length);
      for (const statement of others) {
        expect(Object.keys(statement.Condition as object)).toEqual(['ArnEquals']);
        expect(definitions.filter((f) => v().keyStatementsOf(f.name).includes(statement))).toHaveLength(1);
      }
      // Each role's name is the stage's, the function's and the region's: IAM's names are the account's, in every region.
      for (const { name } of definitions) {
        const roleId = v().functionNamed(name).Properties.Role['Fn::GetAtt'][0];
        expect(resolveText(v().json.Resources[roleId]!.Properties.RoleName)).toBe(`payment-gateway-${stage}-${name}-<AWS::Region>`);
      }
    });
  });

  describe('treasury keys', () => {
    const keys = () =>
      v()
        .resources('AWS::KMS::Key')
        .filter(([, key]) => key.Properties.KeySpec === 'ECC_SECG_P256K1');
    const keyOf = (family: string) => v().json.Resources[v().json.Outputs[`Treasury${family[0]!.toUpperCase()}${family.slice(1)}KeyArn`].Value['Fn::GetAtt'][0]]!;

    it('are one secp256k1 signing key per family, aliased after the stage and the family, their ARNs exported for the admin CLI', () => {
      expect(keys()).toHaveLength(TREASURY_FAMILIES.length);
      for (const family of TREASURY_FAMILIES) {
        const key = keyOf(family);
        expect(key.Properties).toMatchObject({ KeySpec: 'ECC_SECG_P256K1', KeyUsage: 'SIGN_VERIFY' });
        // KMS rotates no asymmetric key: a new key would be a new treasury address.
        expect(key.Properties.EnableKeyRotation).toBeFalsy();
        v().template.hasResourceProperties('AWS::KMS::Alias', { AliasName: `alias/payment-gateway-${stage}-treasury-${family}` });
      }
    });

    it(`are ${stage === 'prod' ? 'kept when the prod stack goes' : 'deleted with the demo stack'}`, () => {
      for (const [, key] of keys()) expect(key.DeletionPolicy).toBe(stage === 'prod' ? 'Retain' : 'Delete');
    });

    it('let the account administer them and read their public keys, never sign; sign for the functions that send payouts alone, and let those that follow payouts read their public keys alone', () => {
      // Each function named by its role's ARN, its statement named after it and what it may do.
      const statementOf = (definition: (typeof definitions)[number], sid: string, actions: string[]) => {
        const roleId = v().functionNamed(definition.name).Properties.Role['Fn::GetAtt'][0];
        return `${pascalCase(definition.name)}${sid} ${actions.join(',')} arn:<AWS::Partition>:iam::<AWS::AccountId>:role/${resolveText(v().json.Resources[roleId]!.Properties.RoleName)}`;
      };
      const signers = definitions.filter((definition) => definition.signsPayouts);
      const followers = definitions.filter((definition) => definition.readsTreasuryKeys && !definition.signsPayouts);
      expect(signers.map(({ name }) => name)).toContain('send-payout');
      expect(followers.map(({ name }) => name)).toContain('watch-chain');
      const expected = sorted([
        ...signers.map((definition) => statementOf(definition, 'Signs', ['kms:GetPublicKey', 'kms:Sign'])),
        ...followers.map((definition) => statementOf(definition, 'ReadsPublicKey', ['kms:GetPublicKey'])),
      ]);
      for (const [, key] of keys()) {
        const statements = key.Properties.KeyPolicy.Statement as Statement[];
        const account = statements.filter((statement) => JSON.stringify(statement.Principal).includes(':root'));
        expect(sorted(new Set(account.flatMap(actionsOf)))).toEqual(sorted(KEY_ADMINISTRATION));
        const others = statements.filter((statement) => !account.includes(statement));
        for (const statement of others) {
          expect(statement.Effect).toBe('Allow');
          expect(statement.Resource).toBe('*');
          expect(Object.keys(statement.Condition as object)).toEqual(['ArnEquals']);
          expect(Object.keys((statement.Condition as { ArnEquals: object }).ArnEquals)).toEqual(['aws:PrincipalArn']);
        }
        expect(
          sorted(
            others.map(
              (statement) => `${statement.Sid} ${sorted(actionsOf(statement)).join(',')} ${resolveText((statement.Condition as { ArnEquals: Record<string, unknown> }).ArnEquals['aws:PrincipalArn'])}`,
            ),
          ),
        ).toEqual(expected);
      }
    });
  });

  describe('receipt key', () => {
    const key = () => v().json.Resources[v().json.Outputs.ReceiptKeyArn.Value['Fn::GetAtt'][0]]!;

    it('is one P-256 signing key, aliased after the stage, kept whatever the stage keeps, its ARN exported for a rotation', () => {
      expect(key().Properties).toMatchObject({ KeySpec: 'ECC_NIST_P256', KeyUsage: 'SIGN_VERIFY' });
      expect(key().Properties.EnableKeyRotation).toBeFalsy();
      expect(key().DeletionPolicy).toBe('Retain');
      expect(key().UpdateReplacePolicy).toBe('Retain');
      v().template.hasResourceProperties('AWS::KMS::Alias', {
        AliasName: `alias/payment-gateway-${stage}-receipts`,
        TargetKeyId: { 'Fn::GetAtt': [v().json.Outputs.ReceiptKeyArn.Value['Fn::GetAtt'][0], 'Arn'] },
      });
    });

    it('lets the functions that sign receipts (the route and the dashboard page) alone sign with it, get-jwks alone read its public key besides, and the account administer it', () => {
      const statements = key().Properties.KeyPolicy.Statement as Statement[];
      const account = statements.filter((statement) => JSON.stringify(statement.Principal).includes(':root'));
      expect(sorted(new Set(account.flatMap(actionsOf)))).toEqual(sorted(KEY_ADMINISTRATION));
      const roleOf = (name: string) => {
        const roleId = v().functionNamed(name).Properties.Role['Fn::GetAtt'][0];
        return `arn:<AWS::Partition>:iam::<AWS::AccountId>:role/${resolveText(v().json.Resources[roleId]!.Properties.RoleName)}`;
      };
      const others = statements
        .filter((statement) => !account.includes(statement))
        .map((statement) => `${statement.Sid} ${sorted(actionsOf(statement)).join(',')} ${resolveText((statement.Condition as { ArnEquals: Record<string, unknown> }).ArnEquals['aws:PrincipalArn'])}`);
      const signers = definitions.filter((definition) => definition.signsReceipts).map(({ name }) => name);
      expect(sorted(signers)).toEqual(['get-dashboard-receipt', 'get-transaction-receipt']);
      expect(sorted(others)).toEqual(
        sorted([...signers.map((name) => `${pascalCase(name)}SignsReceipts kms:GetPublicKey,kms:Sign ${roleOf(name)}`), `GetJwksReadsPublicKey kms:GetPublicKey ${roleOf('get-jwks')}`]),
      );
      // No other signing key of the stage (the treasury's) lets either function near it; the receipt function opens callback secrets with the vault's key alone.
      for (const [, other] of v()
        .resources('AWS::KMS::Key')
        .filter(([, candidate]) => candidate !== key() && candidate.Properties.KeyUsage === 'SIGN_VERIFY')) {
        expect(JSON.stringify(other.Properties.KeyPolicy)).not.toMatch(/get-transaction-receipt|get-jwks|get-dashboard-receipt/);
      }
    });
  });

  describe('vault', () => {
    const ids = () => v().vaultIds();
    const bucket = () => v().json.Resources[ids().bucket]!;
    const key = () => v().json.Resources[ids().key]!;

    it('is one customer-managed KMS key with rotation, aliased after the stage', () => {
      // The treasury's signing keys and the receipt key besides (below).
      v().template.resourceCountIs('AWS::KMS::Key', 1 + TREASURY_FAMILIES.length + 1);
      expect(key().Properties.EnableKeyRotation).toBe(true);
      v().template.hasResourceProperties('AWS::KMS::Alias', { AliasName: `alias/payment-gateway-${stage}`, TargetKeyId: { 'Fn::GetAtt': [ids().key, 'Arn'] } });
    });

    it("keeps receipts in one bucket, and its access logs in another; every bucket of the stack (the reports' two besides) blocks every kind of public access", () => {
      v().template.resourceCountIs('AWS::S3::Bucket', 4);
      for (const [, candidate] of v().resources('AWS::S3::Bucket')) {
        expect(candidate.Properties.PublicAccessBlockConfiguration).toEqual({
          BlockPublicAcls: true,
          BlockPublicPolicy: true,
          IgnorePublicAcls: true,
          RestrictPublicBuckets: true,
        });
        expect(candidate.Properties.OwnershipControls).toEqual({ Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] });
      }
    });

    it('logs every access to the receipts bucket, to a bucket of its own with S3-managed keys that keeps the logs as long as the stage keeps logs', () => {
      const { DestinationBucketName, LogFilePrefix } = bucket().Properties.LoggingConfiguration;
      const logsId = DestinationBucketName.Ref as string;
      expect(logsId).not.toBe(ids().bucket);
      expect(LogFilePrefix).toBe('receipts/');
      const logs = v().json.Resources[logsId]!;
      // S3 delivers server access logs only to a bucket encrypted with S3-managed keys.
      expect(logs.Properties.BucketEncryption).toEqual({ ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] });
      expect(logs.Properties.LifecycleConfiguration.Rules).toEqual([expect.objectContaining({ ExpirationInDays: v().logRetentionOf('get-invoice'), Status: 'Enabled' })]);
      // Only S3's log delivery writes there, for this account's receipts bucket; plain HTTP is refused.
      v().template.hasResourceProperties('AWS::S3::BucketPolicy', {
        Bucket: { Ref: logsId },
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Deny', Action: 's3:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
            Match.objectLike({
              Effect: 'Allow',
              Principal: { Service: 'logging.s3.amazonaws.com' },
              Action: 's3:PutObject',
              Condition: Match.objectLike({ ArnLike: { 'aws:SourceArn': { 'Fn::GetAtt': [ids().bucket, 'Arn'] } } }),
            }),
          ]),
        },
      });
    });

    it('encrypts the bucket with the vault key (bucket key on) and versions it', () => {
      expect(bucket().Properties.BucketEncryption).toEqual({
        ServerSideEncryptionConfiguration: [{ BucketKeyEnabled: true, ServerSideEncryptionByDefault: { SSEAlgorithm: 'aws:kms', KMSMasterKeyID: { 'Fn::GetAtt': [ids().key, 'Arn'] } } }],
      });
      expect(bucket().Properties.VersioningConfiguration).toEqual({ Status: 'Enabled' });
    });

    it('refuses plain-HTTP access to the bucket', () => {
      v().template.hasResourceProperties('AWS::S3::BucketPolicy', {
        Bucket: { Ref: ids().bucket },
        PolicyDocument: {
          Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Action: 's3:*', Principal: { AWS: '*' }, Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]),
        },
      });
    });

    it('is used by exactly the functions whose entry says usesVault, opensCallbackSecrets, sealsCallbackSecrets or resendsProviderRequests, the latter three only to decrypt or to seal', () => {
      const users = definitions.filter(usesVaultKey).map((f) => f.name);
      expect(users).toEqual(expect.arrayContaining(['confirm-deposit', 'create-withdrawal', 'send-callback', 'get-transaction', 'rotate-callback-secret', 'reconcile-provider-payments']));
      // The key's use is granted in its key policy, which names each role; no role policy mentions KMS.
      const kmsActionsOf = (name: string) => {
        expect(
          v()
            .statementsOf(name)
            .flatMap(actionsOf)
            .filter((action) => action.startsWith('kms:')),
        ).toEqual([]);
        return v().keyStatementsOf(name).flatMap(actionsOf);
      };
      const withKms = definitions.filter((f) => kmsActionsOf(f.name).length > 0).map((f) => f.name);
      const withVariables = definitions.filter((f) => v().functionNamed(f.name).Properties.Environment.Variables.VAULT_KMS_KEY_ID !== undefined).map((f) => f.name);
      expect(sorted(withKms)).toEqual(sorted(users));
      expect(sorted(withVariables)).toEqual(sorted(users));
      // Opening is decrypting, sealing is a new data key, and nothing else: a rotation seals the new
      // secret and never opens the old one, which moves still sealed; the reconciliation opens what
      // it sends again (a sealed card number, a receipt) and seals nothing; the dashboard's forms do
      // both (a user's TOTP seed opened at sign-in, sealed when joining; the callback secret rotated).
      for (const f of definitions.filter((f) => (f.opensCallbackSecrets || f.sealsCallbackSecrets || f.resendsProviderRequests) && !f.usesVault)) {
        const expected = [...(f.opensCallbackSecrets || f.resendsProviderRequests ? ['kms:Decrypt'] : []), ...(f.sealsCallbackSecrets ? ['kms:GenerateDataKey'] : [])];
        expect(sorted(kmsActionsOf(f.name)), f.name).toEqual(sorted(expected));
      }
    });

    it('lets the reconciliation read receipts to send them again, and nothing else of the vault: no writing, listing or deleting', () => {
      const s3 = (name: string) =>
        v()
          .grantsOf(name)
          .filter((grant) => grant.startsWith('s3:'));
      expect(s3('reconcile-provider-payments')).toEqual([`s3:GetObject ${ids().bucket}/*`]);
      // Only it reads receipts; those that take them write them.
      const readers = definitions.filter((f) => s3(f.name).includes(`s3:GetObject ${ids().bucket}/*`)).map((f) => f.name);
      expect(readers).toEqual(['reconcile-provider-payments']);
      const variables = v().functionNamed('reconcile-provider-payments').Properties.Environment.Variables;
      expect(variables).toMatchObject({ RECEIPTS_BUCKET: { Ref: ids().bucket }, VAULT_KMS_KEY_ID: { 'Fn::GetAtt': [ids().key, 'Arn'] } });
    });

    it('exports the bucket name and the key ARN', () => {
      expect(v().json.Outputs.ReceiptsBucketName.Value).toEqual({ Ref: ids().bucket });
      expect(v().json.Outputs.VaultKeyArn.Value).toEqual({ 'Fn::GetAtt': [ids().key, 'Arn'] });
    });
  });

  describe('reports', () => {
    const bucketId = () => v().reportsBucketId();
    const bucket = () => v().json.Resources[bucketId()]!;
    const reportFunctions = ['create-report', 'get-report', 'build-report'];
    const s3 = (name: string) =>
      v()
        .grantsOf(name)
        .filter((grant) => grant.startsWith('s3:'));
    const onReports = (name: string) =>
      v()
        .grantsOf(name)
        .filter((grant) => grant.endsWith(` ${bucketId()}/*`) || grant.endsWith(` ${bucketId()}`));

    it('are deployed in the stage: asking for one, reading it, building it; and the hourly books check', () => {
      for (const name of [...reportFunctions, 'check-books']) expect(v().functionIds().has(name), name).toBe(true);
    });

    it('keep their files in a private bucket of their own, with S3-managed keys (a link needs no key grant), unversioned', () => {
      expect(bucketId()).toMatch(/^ReportsBucket/);
      expect(bucket().Properties.PublicAccessBlockConfiguration).toEqual({ BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true });
      expect(bucket().Properties.OwnershipControls).toEqual({ Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] });
      expect(bucket().Properties.BucketEncryption).toEqual({ ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] });
      expect(JSON.stringify(bucket().Properties)).not.toContain('aws:kms');
      expect(bucket().Properties.VersioningConfiguration).toBeUndefined();
    });

    it(`expire each file ${REPORT_RETENTION_DAYS} days after it is written, with its report, and abandoned uploads after a day`, () => {
      expect(REPORT_RETENTION_DAYS).toBe(7);
      expect(bucket().Properties.LifecycleConfiguration.Rules).toEqual([{ ExpirationInDays: REPORT_RETENTION_DAYS, AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 }, Status: 'Enabled' }]);
    });

    it('refuse plain-HTTP access to the bucket', () => {
      v().template.hasResourceProperties('AWS::S3::BucketPolicy', {
        Bucket: { Ref: bucketId() },
        PolicyDocument: {
          Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Action: 's3:*', Principal: { AWS: '*' }, Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]),
        },
      });
    });

    it('log every access to the bucket, to a bucket of its own with S3-managed keys that keeps the logs as long as the stage keeps logs', () => {
      const { DestinationBucketName, LogFilePrefix } = bucket().Properties.LoggingConfiguration;
      const logsId = DestinationBucketName.Ref as string;
      expect(logsId).toMatch(/^ReportsAccessLogs/);
      expect(LogFilePrefix).toBe('reports/');
      const logs = v().json.Resources[logsId]!;
      expect(logs.Properties.BucketEncryption).toEqual({ ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] });
      expect(logs.Properties.LifecycleConfiguration.Rules).toEqual([expect.objectContaining({ ExpirationInDays: v().logRetentionOf('get-report'), Status: 'Enabled' })]);
      expect(logs.Properties.PublicAccessBlockConfiguration).toEqual({ BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true });
      v().template.hasResourceProperties('AWS::S3::BucketPolicy', {
        Bucket: { Ref: logsId },
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Deny', Action: 's3:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
            Match.objectLike({
              Effect: 'Allow',
              Principal: { Service: 'logging.s3.amazonaws.com' },
              Action: 's3:PutObject',
              Condition: Match.objectLike({ ArnLike: { 'aws:SourceArn': { 'Fn::GetAtt': [bucketId(), 'Arn'] } } }),
            }),
          ]),
        },
      });
    });

    it('keep the bucket and its logs with a prod stack, and empty and delete them with a demo stack', () => {
      const logsId = bucket().Properties.LoggingConfiguration.DestinationBucketName.Ref as string;
      for (const id of [bucketId(), logsId]) {
        const resource = v().json.Resources[id]!;
        if (stage === 'prod') expect(resource, id).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
        else {
          expect(resource, id).toMatchObject({ DeletionPolicy: 'Delete' });
          v().template.hasResourceProperties('Custom::S3AutoDeleteObjects', { BucketName: { Ref: id } });
        }
      }
    });

    it('export the bucket name as ReportsBucketName, and the queue with its dead-letter queue for redrives', () => {
      expect(v().json.Outputs.ReportsBucketName.Value).toEqual({ Ref: bucketId() });
      const { queue, deadLetter } = v().queueIds('reports');
      expect(v().json.Outputs.ReportQueueUrl.Value).toEqual({ Ref: queue });
      expect(v().json.Outputs.ReportDlqUrl.Value).toEqual({ Ref: deadLetter });
      expect(v().json.Outputs.ReportQueueArn.Value).toEqual({ 'Fn::GetAtt': [queue, 'Arn'] });
      expect(v().json.Outputs.ReportDlqArn.Value).toEqual({ 'Fn::GetAtt': [deadLetter, 'Arn'] });
    });

    it("are built off a queue that hides a report for six of build-report's 5-minute runs, and gives one up after three failures", () => {
      const { queue } = v().queueIds('reports');
      expect(v().json.Resources[queue]!.Properties).toMatchObject({ VisibilityTimeout: 1801, RedrivePolicy: { maxReceiveCount: 3 } });
      expect(v().functionNamed('build-report').Properties).toMatchObject({ Timeout: 300, MemorySize: 512 });
      const [, mapping] = v()
        .resources('AWS::Lambda::EventSourceMapping')
        .find(([, m]) => refersTo(m.Properties.FunctionName, v().functionIds().get('build-report')!))!;
      expect(mapping.Properties).toMatchObject({ EventSourceArn: { 'Fn::GetAtt': [queue, 'Arn'] }, BatchSize: 1, FunctionResponseTypes: ['ReportBatchItemFailures'] });
    });

    it('give REPORTS_BUCKET to the functions that write files or link to them, and REPORT_QUEUE_URL to those that ask for reports', () => {
      expect(definitions.filter((f) => f.reportFiles).map((f) => [f.name, f.reportFiles])).toEqual([
        ['get-report', 'links'],
        ['build-report', 'writes'],
        ['get-dashboard-page', 'links'],
      ]);
      for (const name of ['get-report', 'build-report', 'get-dashboard-page']) expect(v().functionNamed(name).Properties.Environment.Variables.REPORTS_BUCKET, name).toEqual({ Ref: bucketId() });
      for (const name of ['create-report', 'check-books']) expect(v().functionNamed(name).Properties.Environment.Variables.REPORTS_BUCKET, name).toBeUndefined();
      for (const name of ['create-report', 'submit-dashboard-form']) {
        expect(v().functionNamed(name).Properties.Environment.Variables, name).toMatchObject({ REPORT_QUEUE_URL: { Ref: v().queueIds('reports').queue } });
      }
    });

    it("let build-report write files and abandon its failed uploads, and get-report and the dashboard's pages read them to sign links; no one lists, deletes or reads them otherwise", () => {
      const linking = ['get-report', 'get-dashboard-page'];
      expect(onReports('build-report')).toEqual(sorted(REPORT_WRITE.map((action) => `${action} ${bucketId()}/*`)));
      for (const name of linking) {
        expect(onReports(name), name).toEqual([`s3:GetObject ${bucketId()}/*`]);
        expect(s3(name), name).not.toContain(`s3:PutObject ${bucketId()}/*`);
      }
      expect(s3('build-report')).not.toContain(`s3:GetObject ${bucketId()}/*`);
      // S3 only on the reports bucket, and the bucket itself on no grant (no listing).
      for (const name of [...linking, 'build-report'])
        expect(
          s3(name).every((grant) => grant.endsWith(` ${bucketId()}/*`)),
          name,
        ).toBe(true);
      const others = definitions.filter((f) => ![...linking, 'build-report'].includes(f.name)).filter((f) => onReports(f.name).length > 0);
      expect(others.map((f) => f.name)).toEqual([]);
      for (const name of [...reportFunctions, 'check-books']) {
        expect(
          s3(name).filter((grant) => /^s3:(ListBucket|DeleteObject|PutObjectAcl|GetBucket)/.test(grant)),
          name,
        ).toEqual([]);
      }
    });

    it('take no vault key: the files are under S3-managed keys, and nothing of theirs is sealed', () => {
      for (const name of [...reportFunctions, 'check-books']) {
        expect(v().keyStatementsOf(name), name).toEqual([]);
        expect(v().functionNamed(name).Properties.Environment.Variables.VAULT_KMS_KEY_ID, name).toBeUndefined();
        expect(
          v()
            .grantsOf(name)
            .filter((grant) => grant.startsWith('kms:')),
          name,
        ).toEqual([]);
      }
    });

    it('let create-report record a report, replay its Idempotency-Key, and queue the report for its builder, and nothing else', () => {
      expect(v().tableActionsOf('create-report')).toEqual(
        new Map([
          ['reports', new Set(['dynamodb:PutItem', 'dynamodb:UpdateItem'])],
          ['idempotency', new Set(['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem'])],
        ]),
      );
      expect(v().queueActionsOf('create-report')).toEqual(new Map([[v().queueIds('reports').queue, sorted(SQS_SEND)]]));
      expect(s3('create-report')).toEqual([]);
      expect(
        v()
          .grantsOf('create-report')
          .filter((grant) => grant.startsWith('dynamodb:Query')),
      ).toEqual([]);
    });

    it('let get-report read a report by key and sign a link to its file, and nothing else', () => {
      expect(v().tableActionsOf('get-report')).toEqual(new Map([['reports', new Set(['dynamodb:GetItem'])]]));
      expect(v().queueActionsOf('get-report')).toEqual(new Map());
    });

    it("let build-report read and update its report, consume its queue and queue it again, and query the merchant's records by their indexes, writing none of them", () => {
      expect(v().tableActionsOf('build-report')).toEqual(
        new Map([
          ['reports', new Set(['dynamodb:GetItem', 'dynamodb:UpdateItem'])],
          ['transactions', new Set(['dynamodb:Query'])],
          ['balanceEntries', new Set(['dynamodb:Query'])],
        ]),
      );
      const queries = v()
        .grantsOf('build-report')
        .filter((grant) => grant.startsWith('dynamodb:Query'));
      expect(queries).toEqual(
        sorted([
          `dynamodb:Query ${v().tableId('transactions')}/index/byMerchant`,
          `dynamodb:Query ${v().tableId('balanceEntries')}/index/byMerchant`,
          `dynamodb:Query ${v().tableId('balanceEntries')}/index/byMerchantCurrency`,
        ]),
      );
      expect(v().grantsOf('build-report')).not.toContain(`dynamodb:PutItem ${v().tableId('transactions')}`);
      expect(v().queueActionsOf('build-report')).toEqual(new Map([[v().queueIds('reports').queue, sorted([...SQS_CONSUME, ...SQS_SEND])]]));
    });

    it("let check-books read balances and entries by key and query the merchants' directory, their changes, transactions and entries, scanning nothing and writing only the hold on a merchant's payouts and its own state", () => {
      expect(v().tableActionsOf('check-books')).toEqual(
        new Map([
          ['balances', new Set(['dynamodb:GetItem', 'dynamodb:Query'])],
          ['balanceEntries', new Set(['dynamodb:BatchGetItem', 'dynamodb:Query'])],
          ['merchants', new Set(['dynamodb:Query', 'dynamodb:UpdateItem'])],
          ['booksCheck', new Set(['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem'])],
          ['transactions', new Set(['dynamodb:Query'])],
        ]),
      );
      const dynamo = v()
        .grantsOf('check-books')
        .filter((grant) => grant.startsWith('dynamodb:'));
      expect(dynamo).toEqual(
        sorted([
          `dynamodb:GetItem ${v().tableId('balances')}`,
          `dynamodb:BatchGetItem ${v().tableId('balanceEntries')}`,
          `dynamodb:UpdateItem ${v().tableId('merchants')}`,
          `dynamodb:GetItem ${v().tableId('booksCheck')}`,
          `dynamodb:PutItem ${v().tableId('booksCheck')}`,
          `dynamodb:UpdateItem ${v().tableId('booksCheck')}`,
          `dynamodb:Query ${v().tableId('merchants')}/index/directory`,
          `dynamodb:Query ${v().tableId('transactions')}/index/changes`,
          `dynamodb:Query ${v().tableId('transactions')}/index/byMerchant`,
          `dynamodb:Query ${v().tableId('balances')}/index/changes`,
          `dynamodb:Query ${v().tableId('balanceEntries')}/index/bySequence`,
        ]),
      );
      expect(dynamo.filter((grant) => /^dynamodb:(Scan|PutItem|UpdateItem|DeleteItem|BatchWriteItem)/.test(grant))).toEqual(
        sorted([`dynamodb:UpdateItem ${v().tableId('merchants')}`, `dynamodb:PutItem ${v().tableId('booksCheck')}`, `dynamodb:UpdateItem ${v().tableId('booksCheck')}`]),
      );
      expect(v().queueActionsOf('check-books')).toEqual(new Map());
      expect(s3('check-books')).toEqual([]);
    });

    it('run the books check every hour, one run at a time, for up to 12 minutes', () => {
      const functionId = v().functionIds().get('check-books')!;
      const rules = v()
        .resources('AWS::Events::Rule')
        .filter(([, rule]) => refersTo(rule.Properties.Targets, functionId));
      expect(rules.map(([, rule]) => rule.Properties.ScheduleExpression)).toEqual(['rate(1 hour)']);
      expect(v().functionNamed('check-books').Properties).toMatchObject({ Timeout: 720, MemorySize: 512, ReservedConcurrentExecutions: 1 });
    });

    it("keep a report record for its retention by the reports table's TTL, and list the merchants through a keys-only directory index", () => {
      expect(v().json.Resources[v().tableId('reports')]!.Properties).toMatchObject({
        KeySchema: [{ AttributeName: 'id', KeyType: 'HASH' }],
        TimeToLiveSpecification: { AttributeName: 'expiration', Enabled: true },
      });
      const directory = (v().json.Resources[v().tableId('merchants')]!.Properties.GlobalSecondaryIndexes as Array<Record<string, unknown>>).find((i) => i.IndexName === 'directory');
      expect(directory).toEqual({
        IndexName: 'directory',
        KeySchema: [
          { AttributeName: 'directory', KeyType: 'HASH' },
          { AttributeName: 'createdAt', KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'KEYS_ONLY' },
      });
      const queriers = definitions
        .filter((f) =>
          v()
            .grantsOf(f.name)
            .includes(`dynamodb:Query ${v().tableId('merchants')}/index/directory`),
        )
        .map((f) => f.name);
      expect(queriers).toEqual(['check-books']);
    });

    it('alarm as soon as a report waits in the dead-letter queue', () => {
      const { deadLetter } = v().queueIds('reports');
      const alarms = v()
        .resources('AWS::CloudWatch::Alarm')
        .filter(([, alarm]) => JSON.stringify(alarm.Properties.Dimensions ?? []) === JSON.stringify([{ Name: 'QueueName', Value: { 'Fn::GetAtt': [deadLetter, 'QueueName'] } }]));
      expect(alarms.map(([id]) => id)).toEqual([expect.stringMatching(/^ReportsDeadLetterAlarm/)]);
      expect(alarms[0]![1].Properties).toMatchObject({ MetricName: 'ApproximateNumberOfMessagesVisible', Threshold: 0, ComparisonOperator: 'GreaterThanThreshold' });
    });
  });
});
