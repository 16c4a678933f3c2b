/**
 * The synthesized CloudFormation of both stages, checked against the route table, the table
 * definitions and the contract. Expectations are computed from shared/routes.ts and
 * shared/store/tables.ts, so they stay true as routes and tables are added.
 *
 * Bundling is skipped here (it changes nothing these assertions read); cdk-app.test.ts bundles
 * every function through the real CLI.
 */
import { readFileSync } from 'node:fs';
import { App, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { Alarm, Metric } from 'aws-cdk-lib/aws-cloudwatch';
import { Table, type ITable } from 'aws-cdk-lib/aws-dynamodb';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import { GatewayFunction as GatewayFunctionConstruct, QUEUE_BATCHING_WINDOW } from '../../infra/aws/gateway-function.js';
import { GatewayStack, gatewayStackName } from '../../infra/aws/gateway-stack.js';
import { DEFAULT_LIVE_RATES } from '../../infra/aws/live-rates.js';
import { TEST_WALLET_XPUBS } from '../../shared/domain/test-wallet-keys.js';
import { BUSINESS_METRICS, CALLBACK_QUEUE, QUEUES, type QueueDefinition, type QueueName } from '../../shared/platform.js';
import { FUNCTIONS, STAGES, functionsForStage, maxBodyBytesOf, type GatewayFunction, type HttpRoute, type QueueFunction, type Stage } from '../../shared/routes.js';
import { TABLES, TABLE_KEYS, tableEnvVar, type TableDefinition, type TableKey } from '../../shared/store/tables.js';

type Resource = { Type: string; Properties: Record<string, any>; DeletionPolicy?: string; UpdateReplacePolicy?: string };
type Statement = { Effect: string; Action: string | string[]; Resource: unknown };

const CUSTOM_DOMAIN = { domainName: 'pay.example.com', certificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/0a1b2c3d-4e5f-6789-abcd-ef0123456789' };
const EXPLICIT_BASE_URL = 'https://checkout.example.com';
const WALLET_FAMILIES = ['evm', 'btc', 'tron'] as const;
/** What reading an SSM parameter takes (StringParameter.grantRead); nothing that writes. */
const SSM_READ = ['ssm:DescribeParameters', 'ssm:GetParameter', 'ssm:GetParameterHistory', 'ssm:GetParameters'];
const WRITE_ACTIONS = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];
/** What sending to, and consuming from, an SQS queue take; nothing more. */
const SQS_SEND = ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'];
const SQS_CONSUME = ['sqs:ReceiveMessage', 'sqs:ChangeMessageVisibility', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl'];
/** What sealing card numbers and storing receipts take: data keys from the vault key, objects put in the bucket. */
const KMS_ACTIONS = ['kms:Decrypt', 'kms:Encrypt', 'kms:GenerateDataKey*', 'kms:ReEncrypt*'];
/** Four hours: past every retry's third attempt, so only a stalled queue gets there. */
const BACKLOG_AGE_SECONDS = 4 * 3600;
const REQUEST_ID_HEADER = { 'gatewayresponse.header.x-request-id': 'context.requestId' };

/** What API Gateway itself answers (decisions 1 and 2), written out from the contract. */
const GATEWAY_RESPONSES: ReadonlyArray<[type: string, status: number, code: string, message: string]> = [
  ['UNAUTHORIZED', 401, 'unauthorized', 'You do not have permission to access this resource'],
  ['ACCESS_DENIED', 401, 'unauthorized', 'You do not have permission to access this resource'],
  ['INVALID_API_KEY', 401, 'unauthorized', 'You do not have permission to access this resource'],
  ['MISSING_AUTHENTICATION_TOKEN', 404, 'not_found', 'Route not found'],
  ['RESOURCE_NOT_FOUND', 404, 'not_found', 'Route not found'],
  ['THROTTLED', 429, 'too_many_requests', 'Too many requests'],
  ['QUOTA_EXCEEDED', 429, 'too_many_requests', 'Too many requests'],
  ['REQUEST_TOO_LARGE', 413, 'payload_too_large', 'Request body too large'],
  ['BAD_REQUEST_BODY', 400, 'bad_request', 'Malformed request body'],
  ['BAD_REQUEST_PARAMETERS', 400, 'bad_request', 'Malformed request parameters'],
  ['UNSUPPORTED_MEDIA_TYPE', 415, 'unsupported_media_type', 'Unsupported media type'],
  ['AUTHORIZER_FAILURE', 500, 'internal_server_error', 'Internal server error (request id $context.requestId)'],
  ['AUTHORIZER_CONFIGURATION_ERROR', 500, 'internal_server_error', 'Internal server error (request id $context.requestId)'],
  ['DEFAULT_5XX', 500, 'internal_server_error', 'Internal server error (request id $context.requestId)'],
  ['INTEGRATION_TIMEOUT', 504, 'gateway_timeout', 'Gateway timeout (request id $context.requestId)'],
  ['DEFAULT_4XX', 400, 'bad_request', 'Bad request'],
];

const envelope = (code: string, message: string) => JSON.stringify({ success: false, errors: [{ code, message }] });
const pascalCase = (name: string) => name.replace(/(?:^|-)(\w)/g, (_, first: string) => first.toUpperCase());
const refersTo = (value: unknown, logicalId: string) => JSON.stringify(value).includes(`"${logicalId}"`);
const actionsOf = (statement: Statement) => [statement.Action].flat();
const sorted = (values: Iterable<string>) => [...values].sort();
/** `CALLBACK_QUEUE_URL` -> `CallbackQueueUrl`: the stack output of a queue URL is named after its variable. */
const outputName = (variable: string) => variable.toLowerCase().replace(/(?:^|_)(\w)/g, (_, first: string) => first.toUpperCase());
const queuesOf = (stage: Stage) => (Object.entries(QUEUES) as Array<[QueueName, QueueDefinition]>).filter(([, q]) => q.stages.includes(stage));
const routeTableNames = new Set<string>(FUNCTIONS.map((f) => f.name));

/** Read helpers over one synthesized template. */
class StackView {
  readonly json: { Resources: Record<string, Resource>; Outputs: Record<string, any>; Parameters?: Record<string, any> };

  constructor(
    readonly stage: Stage,
    readonly stack: GatewayStack,
    readonly template: Template,
  ) {
    this.json = template.toJSON() as StackView['json'];
  }

  resources(type: string): [string, Resource][] {
    return Object.entries(this.json.Resources).filter(([, resource]) => resource.Type === type);
  }

  /**
   * Function logical ids by route-table name (each function carries its name as description);
   * CDK's own handlers (the demo bucket's object cleanup) are left out.
   */
  functionIds(): Map<string, string> {
    return new Map(
      this.resources('AWS::Lambda::Function')
        .filter(([, fn]) => routeTableNames.has(fn.Properties.Description))
        .map(([id, fn]) => [fn.Properties.Description as string, id]),
    );
  }

  functionNamed(name: string): Resource {
    const id = this.functionIds().get(name);
    if (!id) throw new Error(`No function ${name} in ${this.stage}`);
    return this.json.Resources[id]!;
  }

  tableId(key: TableKey): string {
    return this.json.Outputs[`Table${pascalCase(key)}`].Value.Ref;
  }

  /** Logical ids of a queue (the callbacks queue unless named) and of the dead-letter queue its redrive policy names. */
  queueIds(name: QueueName = 'callbacks'): { queue: string; deadLetter: string } {
    const queue = this.json.Outputs[outputName(QUEUES[name].urlVariable)].Value.Ref as string;
    const deadLetter = this.json.Resources[queue]!.Properties.RedrivePolicy.deadLetterTargetArn['Fn::GetAtt'][0] as string;
    return { queue, deadLetter };
  }

  /** Logical ids of every queue and dead-letter queue of the stage. */
  allQueueIds(): string[] {
    return queuesOf(this.stage).flatMap(([name]) => Object.values(this.queueIds(name)));
  }

  /** Logical ids of the vault key and the receipts bucket. */
  vaultIds(): { key: string; bucket: string } {
    return { key: this.json.Outputs.VaultKeyArn.Value['Fn::GetAtt'][0], bucket: this.json.Outputs.ReceiptsBucketName.Value.Ref };
  }

  /** Logical ids of the SSM parameters of the wallet keys, by family (from their names). */
  walletKeyParameterIds(): Record<(typeof WALLET_FAMILIES)[number], string> {
    return Object.fromEntries(
      WALLET_FAMILIES.map((family) => {
        const found = this.resources('AWS::SSM::Parameter').find(([, p]) => p.Properties.Name === `/payment-gateway/${this.stage}/wallet-xpub/${family}`);
        if (!found) throw new Error(`No ${family} wallet key parameter in ${this.stage}`);
        return [family, found[0]];
      }),
    ) as Record<(typeof WALLET_FAMILIES)[number], string>;
  }

  statementsOf(functionName: string): Statement[] {
    const roleId = this.functionNamed(functionName).Properties.Role['Fn::GetAtt'][0];
    return this.resources('AWS::IAM::Policy')
      .filter(([, policy]) => refersTo(policy.Properties.Roles, roleId))
      .flatMap(([, policy]) => policy.Properties.PolicyDocument.Statement as Statement[]);
  }

  /** DynamoDB actions a function may take, per table. */
  tableActionsOf(functionName: string): Map<TableKey, Set<string>> {
    const access = new Map<TableKey, Set<string>>();
    for (const statement of this.statementsOf(functionName)) {
      for (const key of TABLE_KEYS) {
        if (!refersTo(statement.Resource, this.tableId(key))) continue;
        const actions = access.get(key) ?? new Set<string>();
        actionsOf(statement).forEach((action) => actions.add(action));
        access.set(key, actions);
      }
    }
    return access;
  }

  /** SQS actions a function may take (sorted), by queue logical id; any other resource by its JSON. */
  queueActionsOf(functionName: string): Map<string, string[]> {
    const access = new Map<string, string[]>();
    const queueIds = this.allQueueIds();
    for (const statement of this.statementsOf(functionName)) {
      const actions = actionsOf(statement).filter((action) => action.startsWith('sqs:'));
      if (actions.length === 0) continue;
      const key = queueIds.find((id) => refersTo(statement.Resource, id)) ?? JSON.stringify(statement.Resource);
      access.set(key, sorted(new Set([...(access.get(key) ?? []), ...actions])));
    }
    return access;
  }

  /** The SQS metrics the dashboard plots, as `MetricName` and the logical id of the queue. */
  dashboardQueueMetrics(): Array<[metric: string, queueId: string]> {
    const [, dashboard] = this.resources('AWS::CloudWatch::Dashboard')[0]!;
    const parts = dashboard.Properties.DashboardBody['Fn::Join'][1] as unknown[];
    return parts.flatMap((part, i) => {
      const metric = typeof part === 'string' ? /"AWS\/SQS","(\w+)","QueueName","$/.exec(part)?.[1] : undefined;
      const queue = (parts[i + 1] as { 'Fn::GetAtt'?: [string, string] } | undefined)?.['Fn::GetAtt']?.[0];
      return metric && queue ? [[metric, queue] as [string, string]] : [];
    });
  }

  /** Full path of every API resource, by logical id. */
  resourcePaths(): Map<string, string> {
    const parts = new Map(this.resources('AWS::ApiGateway::Resource').map(([id, r]) => [id, r.Properties]));
    const pathOf = (id: string): string => {
      const { ParentId, PathPart } = parts.get(id)!;
      return `${ParentId.Ref ? pathOf(ParentId.Ref) : ''}/${PathPart}`;
    };
    return new Map([...parts.keys()].map((id) => [id, pathOf(id)]));
  }

  /** Methods by `VERB /path`; the root resource is `/`. */
  methods(): Map<string, Record<string, any>> {
    const paths = this.resourcePaths();
    return new Map(
      this.resources('AWS::ApiGateway::Method').map(([, method]) => {
        const path = method.Properties.ResourceId.Ref ? paths.get(method.Properties.ResourceId.Ref) : '/';
        return [`${method.Properties.HttpMethod} ${path}`, method.Properties];
      }),
    );
  }

  logRetentionOf(functionName: string): number {
    const logGroupId = this.functionNamed(functionName).Properties.LoggingConfig.LogGroup.Ref;
    return this.json.Resources[logGroupId]!.Properties.RetentionInDays;
  }
}

let views: Record<Stage, StackView>;
let customDomain: StackView;
let explicitBaseUrl: StackView;
let watching: StackView;
let liveDemo: StackView;

const LIVE_DEMO_RATES = { url: 'https://ticker.example/api/v3/ticker/price', pairs: { BTC: { symbol: 'BTCUSDT', inverse: false }, USDT: { fixed: '1' } }, maxAgeSeconds: 120 };

const WATCHED_TOKEN = '0x1111111111111111111111111111111111111111';

beforeAll(() => {
  const { context } = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8'));
  const app = new App({ context: { ...context, 'aws:cdk:bundling-stacks': [] } });
  const view = (stage: Stage, stack: GatewayStack) => new StackView(stage, stack, Template.fromStack(stack));
  const stacks = STAGES.map((stage) => [stage, new GatewayStack(app, gatewayStackName(stage), { stage })] as const);
  const customDomainStack = new GatewayStack(app, 'PaymentGateway-prod-custom-domain', { stage: 'prod', customDomain: CUSTOM_DOMAIN });
  const explicitBaseUrlStack = new GatewayStack(app, 'PaymentGateway-demo-base-url', { stage: 'demo', customDomain: CUSTOM_DOMAIN, publicBaseUrl: EXPLICIT_BASE_URL });
  const watchingStack = new GatewayStack(app, 'PaymentGateway-demo-watching', { stage: 'demo', watchedNetworks: { ethereum: { tokens: { USDT: WATCHED_TOKEN } }, polygon: {} } });
  const liveDemoStack = new GatewayStack(app, 'PaymentGateway-demo-live-rates', { stage: 'demo', liveRates: LIVE_DEMO_RATES });
  views = Object.fromEntries(stacks.map(([stage, stack]) => [stage, view(stage, stack)])) as Record<Stage, StackView>;
  customDomain = view('prod', customDomainStack);
  explicitBaseUrl = view('demo', explicitBaseUrlStack);
  watching = view('demo', watchingStack);
  liveDemo = view('demo', liveDemoStack);
});

describe('live exchange rates', () => {
  const rateVariables = (view: StackView, name: string) =>
    Object.fromEntries(Object.entries(view.functionNamed(name).Properties.Environment.Variables as Record<string, string>).filter(([variable]) => variable.startsWith('GATEWAY_RATE')));
  const ratesRules = (view: StackView) =>
    view.resources('AWS::Events::Rule').filter(([, rule]) => JSON.stringify(rule.Properties.Targets).includes(`"${view.functionIds().get('fetch-rates')}"`));

  it('are prod\'s by default: Binance\'s public ticker for every function, fetched once a minute, stale after five minutes', () => {
    const prod = views.prod;
    for (const name of prod.functionIds().keys()) {
      const variables = rateVariables(prod, name);
      expect(variables).toMatchObject({ GATEWAY_RATES_URL: DEFAULT_LIVE_RATES.url, GATEWAY_RATE_MAX_AGE_S: '300' });
      expect(JSON.parse(variables.GATEWAY_RATE_PAIRS!)).toEqual(DEFAULT_LIVE_RATES.pairs);
    }
    expect(ratesRules(prod).map(([, rule]) => rule.Properties.ScheduleExpression)).toEqual(['rate(1 minute)']);
  });

  it('are not demo\'s by default: the fixed table, and fetch-rates deployed without a schedule', () => {
    for (const name of views.demo.functionIds().keys()) expect(rateVariables(views.demo, name)).toEqual({});
    expect(views.demo.functionIds().has('fetch-rates')).toBe(true);
    expect(ratesRules(views.demo)).toEqual([]);
  });

  it('are any stage\'s when given, with their schedule', () => {
    expect(rateVariables(liveDemo, 'create-invoice')).toEqual({
      GATEWAY_RATES_URL: LIVE_DEMO_RATES.url,
      GATEWAY_RATE_PAIRS: JSON.stringify(LIVE_DEMO_RATES.pairs),
      GATEWAY_RATE_MAX_AGE_S: '120',
    });
    expect(ratesRules(liveDemo)).toHaveLength(1);
  });

  it('are written by fetch-rates alone and read where invoices, deposits and withdrawals are priced', () => {
    const prod = views.prod;
    expect([...prod.tableActionsOf('fetch-rates').keys()]).toEqual(['rates']);
    expect([...prod.tableActionsOf('fetch-rates').get('rates')!]).toEqual(expect.arrayContaining(WRITE_ACTIONS));
    const readers = [...prod.functionIds().keys()].filter((name) => prod.tableActionsOf(name).has('rates')).sort();
    expect(readers).toEqual(['create-invoice', 'create-withdrawal', 'fetch-rates', 'watch-chain']);
    for (const name of readers.filter((reader) => reader !== 'fetch-rates')) {
      expect([...prod.tableActionsOf(name).get('rates')!].filter((action) => WRITE_ACTIONS.includes(action))).toEqual([]);
    }
  });

  it('alarm when the oldest live price outgrows the limit, or no run reports one', () => {
    for (const [view, maxAge] of [
      [views.prod, DEFAULT_LIVE_RATES.maxAgeSeconds],
      [liveDemo, LIVE_DEMO_RATES.maxAgeSeconds],
    ] as const) {
      view.template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'PaymentGateway',
        MetricName: 'RateAge',
        Dimensions: [
          { Name: 'service', Value: 'payment-gateway' },
          { Name: 'stage', Value: view.stage },
        ],
        Statistic: 'Maximum',
        Period: 300,
        Threshold: maxAge,
        ComparisonOperator: 'GreaterThanThreshold',
        TreatMissingData: 'breaching',
      });
    }
    expect(views.demo.resources('AWS::CloudWatch::Alarm').filter(([, alarm]) => alarm.Properties.MetricName === 'RateAge')).toEqual([]);
  });

  it('fail synthesis when the functions would fail to start on them', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const liveRates = { ...LIVE_DEMO_RATES, pairs: { USD: { symbol: 'USDUSDT', inverse: false } } };
    expect(() => new GatewayStack(app, 'PaymentGateway-demo-bad-rates', { stage: 'demo', liveRates })).toThrow(/Invalid environment: GATEWAY_RATE_PAIRS/);
  });
});

describe('a stage watching EVM networks', () => {
  const watcher = 'watch-chain';

  it('runs the chain watcher once a minute per watched network, telling it which', () => {
    const rules = watching.resources('AWS::Events::Rule').filter(([, rule]) => JSON.stringify(rule.Properties.Targets).includes(watching.functionIds().get(watcher)!));
    expect(rules.map(([, rule]) => [rule.Properties.ScheduleExpression, JSON.parse(rule.Properties.Targets[0].Input)]).sort()).toEqual([
      ['rate(1 minute)', { network: 'ethereum' }],
      ['rate(1 minute)', { network: 'polygon' }],
    ]);
  });

  it('takes each RPC URL as a NoEcho parameter, given to the watcher only', () => {
    for (const network of ['Ethereum', 'Polygon']) expect(watching.json.Parameters?.[`ChainRpc${network}`]).toMatchObject({ Type: 'String', NoEcho: true });
    for (const name of watching.functionIds().keys()) {
      const variables = watching.functionNamed(name).Properties.Environment.Variables;
      if (name === watcher) expect(variables).toMatchObject({ GATEWAY_RPC_ETHEREUM: { Ref: 'ChainRpcEthereum' }, GATEWAY_RPC_POLYGON: { Ref: 'ChainRpcPolygon' } });
      else expect(Object.keys(variables).filter((variable) => variable.startsWith('GATEWAY_RPC_'))).toEqual([]);
      // The tokens reach every function: the checkout's payment links name them too.
      expect(JSON.parse(variables.GATEWAY_TOKENS_ETHEREUM)).toEqual({ USDT: WATCHED_TOKEN });
    }
  });

  it('has no watcher schedule where no network is watched', () => {
    const rules = views.demo.resources('AWS::Events::Rule').filter(([, rule]) => JSON.stringify(rule.Properties.Targets).includes(views.demo.functionIds().get(watcher)!));
    expect(rules).toEqual([]);
  });
});

describe.each(STAGES)('%s stack', (stage) => {
  const definitions = functionsForStage(stage);
  const routes = definitions.filter((f): f is HttpRoute => f.kind === 'http');
  const v = () => views[stage];

  describe('functions', () => {
    it('deploys exactly one Lambda per function of the stage', () => {
      expect(sorted(v().functionIds().keys())).toEqual(sorted(definitions.map((f) => f.name)));
      // Besides them only CDK's handler that empties the demo receipts bucket when the stack goes.
      const others = v().resources('AWS::Lambda::Function').filter(([, fn]) => !routeTableNames.has(fn.Properties.Description));
      expect(others.map(([id]) => id)).toEqual(stage === 'demo' ? [expect.stringMatching(/^CustomS3AutoDeleteObjects/)] : []);
    });

    it.each(definitions.map((f) => [f.name, f] as const))('%s: nodejs22.x on arm64, traced, sized from the route table', (name, definition) => {
      expect(v().functionNamed(name).Properties).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        TracingConfig: { Mode: 'Active' },
        Handler: 'index.handler',
        Timeout: definition.timeoutSeconds ?? 10,
        MemorySize: definition.memoryMb ?? 512,
        Environment: { Variables: { NODE_OPTIONS: '--enable-source-maps', POWERTOOLS_SERVICE_NAME: 'payment-gateway' } },
      });
    });

    it.each(definitions.map((f) => [f.name, f] as const))('%s: gets every variable the shared config parses', (name, definition) => {
      const variables = v().functionNamed(name).Properties.Environment.Variables;
      expect(variables).toMatchObject({ STAGE: stage, GATEWAY_INVOICE_LIFETIME_S: '900' });
      expect(JSON.stringify(variables.PUBLIC_BASE_URL)).toContain('.execute-api.');
      // The keys themselves never; the names of their parameters only where addresses are derived.
      const parameters = v().walletKeyParameterIds();
      for (const family of WALLET_FAMILIES) {
        expect(variables[`WALLET_${family.toUpperCase()}_XPUB`]).toBeUndefined();
        expect(variables[`WALLET_${family.toUpperCase()}_XPUB_PARAMETER`]).toEqual(definition.readsWalletKeys ? { Ref: parameters[family] } : undefined);
      }
      for (const key of TABLE_KEYS) expect(variables[tableEnvVar(key)]).toEqual({ Ref: v().tableId(key) });
      // Every queue's URLs everywhere, whatever the grants: the config validates them at every cold start.
      for (const [queueName, queue] of Object.entries(QUEUES) as Array<[QueueName, QueueDefinition]>) {
        if (queue.stages.includes(stage)) {
          const { queue: queueId, deadLetter } = v().queueIds(queueName);
          expect(variables[queue.urlVariable]).toEqual({ Ref: queueId });
          expect(variables[queue.deadLetterUrlVariable]).toEqual({ Ref: deadLetter });
        } else {
          expect(variables[queue.urlVariable]).toBeUndefined();
          expect(variables[queue.deadLetterUrlVariable]).toBeUndefined();
        }
      }
      // Real time in AWS: only tests compress the retry schedule.
      expect(variables).toMatchObject({ GATEWAY_RETRY_SCALE: '1', GATEWAY_PROVIDER_DELAY_S: '2' });
      // The vault's names only where the route table says it is used: the key to seal or open, the bucket to store receipts.
      const { key, bucket } = v().vaultIds();
      if (definition.usesVault || definition.opensCallbackSecrets) expect(variables.VAULT_KMS_KEY_ID).toEqual({ 'Fn::GetAtt': [key, 'Arn'] });
      else expect(variables.VAULT_KMS_KEY_ID).toBeUndefined();
      if (definition.usesVault) expect(variables.RECEIPTS_BUCKET).toEqual({ Ref: bucket });
      else expect(variables.RECEIPTS_BUCKET).toBeUndefined();
    });

    it('writes each function to its own log group', () => {
      const logGroups = definitions.map((f) => v().functionNamed(f.name).Properties.LoggingConfig.LogGroup.Ref);
      expect(new Set(logGroups).size).toBe(definitions.length);
    });
  });

  describe('least privilege', () => {
    it.each(definitions.map((f) => [f.name, f] as const))('%s: only the tables of its route-table entry, at its access level', (name, definition) => {
      const granted = v().tableActionsOf(name);
      expect(sorted(granted.keys())).toEqual(sorted(Object.keys(definition.tables)));
      for (const [key, access] of Object.entries(definition.tables) as [TableKey, string][]) {
        const actions = [...granted.get(key)!];
        expect(actions).toContain('dynamodb:GetItem');
        if (access === 'read') expect(actions.filter((a) => WRITE_ACTIONS.includes(a))).toEqual([]);
        else expect(actions).toEqual(expect.arrayContaining(WRITE_ACTIONS));
      }
    });

    it.each(definitions.map((f) => [f.name, f] as const))('%s: sends to or consumes a queue only as its route-table entry says', (name, definition) => {
      const expected = new Map<string, string[]>();
      const add = (id: string, actions: string[]) => expected.set(id, sorted(new Set([...(expected.get(id) ?? []), ...actions])));
      // A queue the stage does not have grants nothing (prod's confirm-deposit and the demo's provider queue).
      for (const queueName of (definition.sendsTo ?? []) as QueueName[]) {
        if ((QUEUES[queueName] as QueueDefinition).stages.includes(stage)) add(v().queueIds(queueName).queue, SQS_SEND);
      }
      if (definition.kind === 'queue') {
        const { queue, deadLetter } = v().queueIds(definition.queue);
        add(queue, SQS_CONSUME);
        if (definition.parksMessages) add(deadLetter, SQS_SEND);
      }
      expect(v().queueActionsOf(name)).toEqual(expected);
    });

    it.each(definitions.map((f) => [f.name, f] as const))('%s: uses the KMS key and the receipts bucket only if its route-table entry says so', (name, definition) => {
      const { key, bucket } = v().vaultIds();
      const statements = v().statementsOf(name);
      const kms = statements.filter((st) => actionsOf(st).some((a) => a.startsWith('kms:')));
      const s3 = statements.filter((st) => actionsOf(st).some((a) => a.startsWith('s3:')));
      if (!definition.usesVault) {
        // Opening a callback secret is decrypting its data key with the vault's key, and no more.
        expect(kms).toEqual(definition.opensCallbackSecrets ? [expect.objectContaining({ Action: 'kms:Decrypt', Resource: { 'Fn::GetAtt': [key, 'Arn'] } })] : []);
        expect(s3).toEqual([]);
        return;
      }
      expect(sorted(new Set(kms.flatMap(actionsOf)))).toEqual(KMS_ACTIONS);
      for (const statement of kms) expect(statement.Resource).toEqual({ 'Fn::GetAtt': [key, 'Arn'] });
      // Writes receipts; never reads, lists or deletes them.
      const s3Actions = sorted(new Set(s3.flatMap(actionsOf)));
      expect(s3Actions).toContain('s3:PutObject');
      expect(s3Actions.filter((a) => /^s3:(Get|List|Delete)/.test(a))).toEqual([]);
      for (const statement of s3) {
        for (const resource of [statement.Resource].flat()) expect(refersTo(resource, bucket), JSON.stringify(resource)).toBe(true);
      }
    });

    it.each(definitions.map((f) => [f.name, f] as const))('%s: reads the wallet key parameters only if its route-table entry says so', (name, definition) => {
      const ssm = v().statementsOf(name).filter((st) => actionsOf(st).some((a) => a.startsWith('ssm:')));
      if (!definition.readsWalletKeys) {
        expect(ssm).toEqual([]);
        return;
      }
      expect(sorted(new Set(ssm.flatMap(actionsOf)))).toEqual(SSM_READ);
      const parameters = Object.values(v().walletKeyParameterIds());
      const resources = ssm.flatMap((st) => [st.Resource].flat());
      // Each of the three parameters, and nothing else.
      expect(resources).toHaveLength(parameters.length);
      for (const id of parameters) expect(resources.filter((resource) => refersTo(resource, id))).toHaveLength(1);
    });

    it('lets create-invoice, which derives addresses, read the wallet keys', () => {
      expect(definitions.filter((f) => f.readsWalletKeys).map((f) => f.name)).toContain('create-invoice');
    });

    it('lets send-callback consume the callbacks queue, park in the dead-letter queue, write the outbox, read merchants, open callback secrets, and nothing else', () => {
      const { queue, deadLetter } = v().queueIds();
      const queues = v().queueActionsOf('send-callback');
      // Its retry schedule is ChangeMessageVisibility on the message it received.
      expect(queues.get(queue)).toContain('sqs:ChangeMessageVisibility');
      expect(queues).toEqual(new Map([[queue, sorted(SQS_CONSUME)], [deadLetter, sorted(SQS_SEND)]]));

      const granted = v().tableActionsOf('send-callback');
      expect(sorted(granted.keys())).toEqual(['merchants', 'outbox']);
      expect([...granted.get('outbox')!]).toEqual(expect.arrayContaining(WRITE_ACTIONS));
      expect([...granted.get('merchants')!].filter((a) => WRITE_ACTIONS.includes(a))).toEqual([]);

      const allowed = [queue, deadLetter, v().tableId('outbox'), v().tableId('merchants'), v().vaultIds().key];
      for (const statement of v().statementsOf('send-callback')) {
        expect(statement.Effect).toBe('Allow');
        const resources = [statement.Resource].flat();
        // Tracing is the one grant on every resource.
        if (resources.includes('*')) expect(actionsOf(statement).filter((a) => !a.startsWith('xray:'))).toEqual([]);
        else for (const resource of resources) expect(allowed.some((id) => refersTo(resource, id)), JSON.stringify(resource)).toBe(true);
      }
    });

    it('lets get-invoice read invoices and nothing else', () => {
      const granted = v().tableActionsOf('get-invoice');
      expect([...granted.keys()]).toEqual(['invoices']);
      expect([...granted.get('invoices')!].filter((a) => !/^dynamodb:(Get|BatchGet|Query|Scan|Describe|ConditionCheck)/.test(a))).toEqual([]);
    });

    it('lets the authorizer read API keys and nothing else', () => {
      const granted = v().tableActionsOf('authorize-merchant');
      expect([...granted.keys()]).toEqual(['apiKeys']);
      expect([...granted.get('apiKeys')!].filter((a) => WRITE_ACTIONS.includes(a))).toEqual([]);
    });
  });

  describe('REST API', () => {
    it('names the API and its stage after the stage, traced, with metrics and access logs', () => {
      v().template.hasResourceProperties('AWS::ApiGateway::RestApi', {
        Name: Match.stringLikeRegexp(stage),
        ApiKeySourceType: 'AUTHORIZER',
      });
      v().template.hasResourceProperties('AWS::ApiGateway::Stage', {
        StageName: stage,
        TracingEnabled: true,
        MethodSettings: [Match.objectLike({ MetricsEnabled: true, DataTraceEnabled: false })],
        AccessLogSetting: { DestinationArn: Match.anyValue(), Format: Match.stringLikeRegexp('\\$context.requestId') },
      });
    });

    it('has one request authorizer: authorize-merchant on x-api-key, cached 30 s', () => {
      v().template.resourceCountIs('AWS::ApiGateway::Authorizer', 1);
      const [, authorizer] = v().resources('AWS::ApiGateway::Authorizer')[0]!;
      expect(authorizer.Properties).toMatchObject({
        Type: 'REQUEST',
        IdentitySource: 'method.request.header.x-api-key',
        AuthorizerResultTtlInSeconds: 30,
      });
      const authorizerFunction = definitions.find((f) => f.kind === 'authorizer')!;
      expect(refersTo(authorizer.Properties.AuthorizerUri, v().functionIds().get(authorizerFunction.name)!)).toBe(true);
    });

    it.each(routes.map((r) => [`${r.method} ${r.path}`, r] as const))('%s: integrates its own function with the auth of the route table', (key, route) => {
      const method = v().methods().get(key);
      expect(method).toBeDefined();
      expect(method!.Integration).toMatchObject({ Type: 'AWS_PROXY', IntegrationHttpMethod: 'POST' });
      expect(refersTo(method!.Integration.Uri, v().functionIds().get(route.name)!)).toBe(true);
      if (route.auth === 'apiKey') {
        const authorizerId = v().resources('AWS::ApiGateway::Authorizer')[0]![0];
        expect(method).toMatchObject({ AuthorizationType: 'CUSTOM', AuthorizerId: { Ref: authorizerId }, ApiKeyRequired: true });
      } else {
        expect(method!.AuthorizationType).toBe('NONE');
        expect(method!.AuthorizerId).toBeUndefined();
        expect(method!.ApiKeyRequired).toBeFalsy();
      }
    });

    it('answers any other method on a routed path with a 405 envelope', () => {
      for (const path of new Set(routes.map((r) => r.path))) {
        const allowed = routes.filter((r) => r.path === path).map((r) => r.method);
        expect(v().methods().get(`ANY ${path}`)).toMatchObject(mockMethod(405, 'method_not_allowed', 'Method not allowed', { Allow: `'${allowed.join(', ')}'` }));
      }
    });

    it('answers unknown paths, the root included, with a 404 envelope', () => {
      for (const path of ['/', '/{proxy+}']) {
        expect(v().methods().get(`ANY ${path}`)).toMatchObject(mockMethod(404, 'not_found', 'Route not found'));
      }
    });

    it.each(GATEWAY_RESPONSES)('gateway response %s: %i %s envelope with x-request-id', (type, status, code, message) => {
      v().template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', {
        ResponseType: type,
        StatusCode: String(status),
        ResponseParameters: REQUEST_ID_HEADER,
        ResponseTemplates: { 'application/json': envelope(code, message) },
      });
    });

    it('customizes no gateway response beyond those', () => {
      v().template.resourceCountIs('AWS::ApiGateway::GatewayResponse', GATEWAY_RESPONSES.length);
    });

    it('accepts TLS 1.2 at least on the execute-api endpoint', () => {
      v().template.hasResourceProperties('AWS::ApiGateway::RestApi', { SecurityPolicy: 'TLS_1_2' });
      expect(v().resources('AWS::ApiGateway::RestApi')[0]![1].Properties.DisableExecuteApiEndpoint).toBeFalsy();
      v().template.resourceCountIs('AWS::ApiGateway::DomainName', 0);
    });

    it('throttles each key at 50 requests/s, burst 100, on the stage', () => {
      v().template.resourceCountIs('AWS::ApiGateway::UsagePlan', 1);
      v().template.hasResourceProperties('AWS::ApiGateway::UsagePlan', {
        Throttle: { RateLimit: 50, BurstLimit: 100 },
        ApiStages: [Match.objectLike({ ApiId: { Ref: v().resources('AWS::ApiGateway::RestApi')[0]![0] }, Stage: Match.anyValue() })],
      });
    });
  });

  describe('web ACL', () => {
    type Rule = { Name: string; Action: unknown; Statement: any };
    const webAcl = () => v().resources('AWS::WAFv2::WebACL')[0]![1];
    const rules = () => webAcl().Properties.Rules as Rule[];
    /** A body-limit rule read back: its content-length pattern and the methods and path patterns it covers. */
    const shapeOf = (rule: Rule) => {
      const [contentLength, routeStatement] = rule.Statement.AndStatement.Statements;
      const routeStatements: any[] = routeStatement.OrStatement?.Statements ?? [routeStatement];
      return {
        header: contentLength.RegexMatchStatement.FieldToMatch.SingleHeader.Name as string,
        contentLength: new RegExp(contentLength.RegexMatchStatement.RegexString),
        routes: routeStatements.map((statement) => {
          const [method, path] = statement.AndStatement.Statements;
          expect(path.RegexMatchStatement.FieldToMatch).toEqual({ UriPath: {} });
          return { method: method.ByteMatchStatement.SearchString as string, path: new RegExp(path.RegexMatchStatement.RegexString) };
        }),
      };
    };
    const rulesFor = (method: string, uriPath: string) => rules().filter((rule) => shapeOf(rule).routes.some((r) => r.method === method && r.path.test(uriPath)));
    const concretePath = (route: HttpRoute) => route.path.replace(/\{\w+\}/g, '0b6c8f3e-5d4a-4c1b-9e2f-1a2b3c4d5e6f');

    it('is one regional web ACL that allows by default, on the API stage', () => {
      v().template.resourceCountIs('AWS::WAFv2::WebACL', 1);
      expect(webAcl().Properties).toMatchObject({ Scope: 'REGIONAL', DefaultAction: { Allow: {} } });
      const [, association] = v().resources('AWS::WAFv2::WebACLAssociation')[0]!;
      expect(association.Properties.WebACLArn).toEqual({ 'Fn::GetAtt': [v().resources('AWS::WAFv2::WebACL')[0]![0], 'Arn'] });
      const stageId = v().resources('AWS::ApiGateway::Stage')[0]![0];
      expect(JSON.stringify(association.Properties.ResourceArn)).toContain(`"/stages/",{"Ref":"${stageId}"}`);
      expect(v().json.Resources[stageId]!.Properties.StageName).toBe(stage);
    });

    it.each(routes.map((r) => [`${r.method} ${r.path}`, r] as const))('%s: a declared body over the route limit gets the 413 envelope, on either endpoint', (_, route) => {
      const limit = maxBodyBytesOf(route);
      for (const uriPath of [concretePath(route), `/${stage}${concretePath(route)}`, `${concretePath(route)}/`]) {
        const matching = rulesFor(route.method, uriPath);
        expect(matching, uriPath).toHaveLength(1);
        const { header, contentLength } = shapeOf(matching[0]!);
        expect(header).toBe('content-length');
        for (const length of [0, 1, limit - 1, limit]) expect(contentLength.test(String(length)), String(length)).toBe(false);
        for (const length of [limit + 1, limit + 10, 10 * limit, 10 * 1024 * 1024]) expect(contentLength.test(String(length)), String(length)).toBe(true);
        expect(contentLength.test(`000${limit + 1}`)).toBe(true);
        expect(contentLength.test(`000${limit}`)).toBe(false);
        expect(matching[0]!.Action).toEqual({ Block: { CustomResponse: { ResponseCode: 413, CustomResponseBodyKey: 'payload-too-large' } } });
      }
    });

    it('leaves alone what no function answers: other methods on a routed path, and unknown paths', () => {
      for (const route of routes) {
        const otherMethod = route.method === 'GET' ? 'DELETE' : 'PUT';
        expect(rulesFor(otherMethod, concretePath(route))).toEqual([]);
      }
      expect(rulesFor('POST', '/api/v2/unknown')).toEqual([]);
      expect(rulesFor('POST', `/other${routes[0]!.path}`)).toEqual([]);
    });

    it('answers with the 413 envelope the gateway itself renders', () => {
      expect(webAcl().Properties.CustomResponseBodies).toEqual({
        'payload-too-large': { ContentType: 'APPLICATION_JSON', Content: envelope('payload_too_large', 'Request body too large') },
      });
    });

    it('has one rule per body limit of the route table, each with metrics', () => {
      expect(rules()).toHaveLength(new Set(routes.map(maxBodyBytesOf)).size);
      for (const rule of rules()) expect((rule as Rule & { VisibilityConfig: unknown }).VisibilityConfig).toMatchObject({ CloudWatchMetricsEnabled: true, MetricName: rule.Name });
    });
  });

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

    it('creates one table per definition', () => {
      v().template.resourceCountIs('AWS::DynamoDB::Table', TABLE_KEYS.length);
    });
  });

  describe.each(queuesOf(stage).map(([name, queue]) => [queue.name, name, queue] as const))('%s queue', (_, queueName, definition) => {
    const queues = () => v().queueIds(queueName);
    const consumers = definitions.filter((f): f is QueueFunction => f.kind === 'queue' && f.queue === queueName);
    const mappingOf = (name: string) => {
      const functionId = v().functionIds().get(name);
      const mappings = v().resources('AWS::Lambda::EventSourceMapping').filter(([, m]) => refersTo(m.Properties.FunctionName, functionId!));
      expect(mappings).toHaveLength(1);
      return mappings[0]![1].Properties;
    };

    it('has one consumer', () => {
      expect(consumers).toHaveLength(1);
    });

    it.each(consumers.map((f) => [f.name, f] as const))('%s: reads its own queue in batches of its route-table size, reporting partial failures', (name, consumer) => {
      expect(mappingOf(name)).toMatchObject({
        EventSourceArn: { 'Fn::GetAtt': [queues().queue, 'Arn'] },
        FunctionName: { Ref: v().functionIds().get(name) },
        BatchSize: consumer.batchSize,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
      });
      // Short: a callback should not wait for a batch to fill.
      expect(mappingOf(name).MaximumBatchingWindowInSeconds).toBeGreaterThan(0);
      expect(mappingOf(name).MaximumBatchingWindowInSeconds).toBeLessThanOrEqual(5);
    });

    it.each(consumers.map((f) => [f.name] as const))('%s: the queue hides a message for six of its timeouts plus the batching window', (name) => {
      const mapping = mappingOf(name);
      const queue = v().json.Resources[mapping.EventSourceArn['Fn::GetAtt'][0]]!.Properties;
      const requiredSeconds = 6 * v().functionNamed(name).Properties.Timeout + mapping.MaximumBatchingWindowInSeconds;
      expect(queue.VisibilityTimeout).toBe(definition.visibilityTimeoutSeconds);
      expect(queue.VisibilityTimeout).toBeGreaterThanOrEqual(requiredSeconds);
    });

    it('redrives after its maxReceiveCount to a dead-letter queue kept 14 days, with its visibility timeout', () => {
      const { queue, deadLetter } = queues();
      expect(v().json.Resources[queue]!.Properties).toMatchObject({
        VisibilityTimeout: definition.visibilityTimeoutSeconds,
        RedrivePolicy: { maxReceiveCount: definition.maxReceiveCount },
      });
      expect(v().json.Resources[deadLetter]!.Properties.MessageRetentionPeriod).toBe(14 * 24 * 3600);
    });

    it('encrypts the queue and its dead-letter queue and refuses plain-HTTP access to them', () => {
      for (const id of Object.values(queues())) {
        expect(v().json.Resources[id]!.Properties.SqsManagedSseEnabled).toBe(true);
        v().template.hasResourceProperties('AWS::SQS::QueuePolicy', {
          Queues: [{ Ref: id }],
          PolicyDocument: {
            Statement: Match.arrayWith([
              Match.objectLike({ Effect: 'Deny', Action: 'sqs:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
            ]),
          },
        });
      }
    });

    it('plots the queue depth, in flight included, the oldest message and the dead letters', () => {
      const { queue, deadLetter } = queues();
      expect(v().dashboardQueueMetrics()).toEqual(
        expect.arrayContaining([
          ['ApproximateNumberOfMessagesVisible', queue],
          ['ApproximateNumberOfMessagesNotVisible', queue],
          ['ApproximateAgeOfOldestMessage', queue],
          ['ApproximateNumberOfMessagesVisible', deadLetter],
        ]),
      );
    });

    it('alarms as soon as one message waits in the dead-letter queue', () => {
      const { deadLetter } = queues();
      v().template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [deadLetter, 'QueueName'] } }],
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
        AlarmActions: [Match.anyValue()],
      });
    });

    it('is exported with its dead-letter queue, URLs and ARNs, as outputs named after their variables', () => {
      const { queue, deadLetter } = queues();
      const arnOutput = (variable: string) => outputName(variable).replace(/Url$/, 'Arn');
      expect(v().json.Outputs[outputName(definition.urlVariable)].Value).toEqual({ Ref: queue });
      expect(v().json.Outputs[outputName(definition.deadLetterUrlVariable)].Value).toEqual({ Ref: deadLetter });
      // What `aws sqs start-message-move-task` takes to redrive the dead-letter queue.
      expect(v().json.Outputs[arnOutput(definition.urlVariable)].Value).toEqual({ 'Fn::GetAtt': [queue, 'Arn'] });
      expect(v().json.Outputs[arnOutput(definition.deadLetterUrlVariable)].Value).toEqual({ 'Fn::GetAtt': [deadLetter, 'Arn'] });
    });
  });

  describe('callbacks queue', () => {
    const queues = () => v().queueIds();
    const mappingOf = (name: string) => {
      const functionId = v().functionIds().get(name);
      return v().resources('AWS::Lambda::EventSourceMapping').find(([, m]) => refersTo(m.Properties.FunctionName, functionId!))![1].Properties;
    };

    it('feeds send-callback 10 messages at a time; one event source per queue function of the stage', () => {
      expect(mappingOf('send-callback')).toMatchObject({ EventSourceArn: { 'Fn::GetAtt': [queues().queue, 'Arn'] }, BatchSize: 10 });
      v().template.resourceCountIs('AWS::Lambda::EventSourceMapping', definitions.filter((f) => f.kind === 'queue').length);
    });

    it('has a visibility timeout of 190 s: six times send-callback\'s 30 s plus its batching window, rounded up', () => {
      expect(v().json.Resources[queues().queue]!.Properties.VisibilityTimeout).toBe(190);
      expect(v().functionNamed('send-callback').Properties.Timeout).toBe(30);
    });

    it('alarms when the oldest callback has waited over 4 hours: deliveries are not progressing', () => {
      v().template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateAgeOfOldestMessage',
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queues().queue, 'QueueName'] } }],
        Statistic: 'Maximum',
        Threshold: BACKLOG_AGE_SECONDS,
        ComparisonOperator: 'GreaterThanThreshold',
        AlarmActions: [Match.anyValue()],
      });
    });
  });

  describe('vault', () => {
    const ids = () => v().vaultIds();
    const bucket = () => v().json.Resources[ids().bucket]!;
    const key = () => v().json.Resources[ids().key]!;

    it('is one customer-managed KMS key with rotation, aliased after the stage', () => {
      v().template.resourceCountIs('AWS::KMS::Key', 1);
      expect(key().Properties.EnableKeyRotation).toBe(true);
      v().template.hasResourceProperties('AWS::KMS::Alias', { AliasName: `alias/payment-gateway-${stage}`, TargetKeyId: { 'Fn::GetAtt': [ids().key, 'Arn'] } });
    });

    it('keeps receipts in one bucket that blocks every kind of public access', () => {
      v().template.resourceCountIs('AWS::S3::Bucket', 1);
      expect(bucket().Properties.PublicAccessBlockConfiguration).toEqual({
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      });
    });

    it('encrypts the bucket with the vault key (bucket key on) and versions it', () => {
      expect(bucket().Properties.BucketEncryption).toEqual({
        ServerSideEncryptionConfiguration: [
          { BucketKeyEnabled: true, ServerSideEncryptionByDefault: { SSEAlgorithm: 'aws:kms', KMSMasterKeyID: { 'Fn::GetAtt': [ids().key, 'Arn'] } } },
        ],
      });
      expect(bucket().Properties.VersioningConfiguration).toEqual({ Status: 'Enabled' });
    });

    it('refuses plain-HTTP access to the bucket', () => {
      v().template.hasResourceProperties('AWS::S3::BucketPolicy', {
        Bucket: { Ref: ids().bucket },
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: 'Deny', Action: 's3:*', Principal: { AWS: '*' }, Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
          ]),
        },
      });
    });

    it('is used by exactly the functions whose entry says usesVault or opensCallbackSecrets, the latter only to decrypt', () => {
      const users = definitions.filter((f) => f.usesVault || f.opensCallbackSecrets).map((f) => f.name);
      expect(users).toEqual(expect.arrayContaining(['confirm-deposit', 'create-withdrawal', 'send-callback', 'get-transaction']));
      const kmsActionsOf = (name: string) => v().statementsOf(name).flatMap((st) => actionsOf(st).filter((a) => a.startsWith('kms:')));
      const withKms = definitions.filter((f) => kmsActionsOf(f.name).length > 0).map((f) => f.name);
      const withVariables = definitions.filter((f) => v().functionNamed(f.name).Properties.Environment.Variables.VAULT_KMS_KEY_ID !== undefined).map((f) => f.name);
      expect(sorted(withKms)).toEqual(sorted(users));
      expect(sorted(withVariables)).toEqual(sorted(users));
      for (const opener of definitions.filter((f) => f.opensCallbackSecrets && !f.usesVault)) expect(kmsActionsOf(opener.name)).toEqual(['kms:Decrypt']);
    });

    it('exports the bucket name and the key ARN', () => {
      expect(v().json.Outputs.ReceiptsBucketName.Value).toEqual({ Ref: ids().bucket });
      expect(v().json.Outputs.VaultKeyArn.Value).toEqual({ 'Fn::GetAtt': [ids().key, 'Arn'] });
    });
  });

  describe('schedules', () => {
    // The chain watcher's rules come with the networks a stage watches, the rates schedule with
    // live rates, prod's default (both below).
    const scheduled = definitions.flatMap((f) => (f.kind === 'schedule' && !f.perEvmNetwork && (stage === 'prod' || !f.onlyWithLiveRates) ? [f] : []));

    it.each(scheduled.map((f) => [f.name, f] as const))('%s runs on its EventBridge rate', (name, definition) => {
      const minutes = definition.everySeconds / 60;
      v().template.hasResourceProperties('AWS::Events::Rule', {
        ScheduleExpression: `rate(${minutes} minute${minutes === 1 ? '' : 's'})`,
        Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [v().functionIds().get(name), 'Arn'] } })],
      });
    });

    it('targets expire-invoices every minute', () => {
      v().template.hasResourceProperties('AWS::Events::Rule', {
        ScheduleExpression: 'rate(1 minute)',
        Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [v().functionIds().get('expire-invoices'), 'Arn'] } })],
      });
      v().template.resourceCountIs('AWS::Events::Rule', scheduled.length);
    });

    it('runs publish-callbacks every minute, with the outbox and the callbacks queue and nothing more', () => {
      v().template.hasResourceProperties('AWS::Events::Rule', {
        ScheduleExpression: 'rate(1 minute)',
        Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [v().functionIds().get('publish-callbacks'), 'Arn'] } })],
      });
      const granted = v().tableActionsOf('publish-callbacks');
      expect([...granted.keys()]).toEqual(['outbox']);
      expect([...granted.get('outbox')!]).toEqual(expect.arrayContaining(WRITE_ACTIONS));
      expect(v().queueActionsOf('publish-callbacks')).toEqual(new Map([[v().queueIds().queue, sorted(SQS_SEND)]]));
    });
  });

  describe('monitoring', () => {
    it('alarms on errors of every function, on API 5XX, on each dead-letter queue and on the callbacks backlog', () => {
      for (const id of v().functionIds().values()) {
        v().template.hasResourceProperties('AWS::CloudWatch::Alarm', {
          Namespace: 'AWS/Lambda',
          MetricName: 'Errors',
          Dimensions: [{ Name: 'FunctionName', Value: { Ref: id } }],
          Statistic: 'Sum',
          Period: 300,
          Threshold: 1,
          ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        });
      }
      v().template.hasResourceProperties('AWS::CloudWatch::Alarm', { Namespace: 'AWS/ApiGateway', MetricName: '5XXError' });
      // Plus the authorizer's throttles and latency, and prod's stale-rates alarm (prod prices live).
      v().template.resourceCountIs('AWS::CloudWatch::Alarm', definitions.length + 2 + queuesOf(stage).length + 2 + (stage === 'prod' ? 1 : 0));
    });

    it('watches the authorizer for real failures, throttles and p99 latency: a refused key raises none of them', () => {
      const authorizerId = v().functionIds().get('authorize-merchant')!;
      const alarmsOnAuthorizer = v()
        .resources('AWS::CloudWatch::Alarm')
        .filter(([, alarm]) => JSON.stringify(alarm.Properties.Dimensions) === JSON.stringify([{ Name: 'FunctionName', Value: { Ref: authorizerId } }]))
        .map(([, alarm]) => alarm.Properties);
      const byMetric = Object.fromEntries(alarmsOnAuthorizer.map((alarm) => [alarm.MetricName, alarm]));
      expect(sorted(Object.keys(byMetric))).toEqual(['Duration', 'Errors', 'Throttles']);
      for (const alarm of alarmsOnAuthorizer) expect(alarm).toMatchObject({ Namespace: 'AWS/Lambda', Period: 300 });
      expect(byMetric.Errors).toMatchObject({ Statistic: 'Sum', Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
      expect(byMetric.Throttles).toMatchObject({ Statistic: 'Sum', Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
      expect(byMetric.Duration).toMatchObject({ ExtendedStatistic: 'p99', Threshold: 1000, ComparisonOperator: 'GreaterThanThreshold' });
      // A denial is a policy the function returns, which API Gateway answers with 401: a 4XX, not a 5XX.
      v().template.hasResourceProperties('AWS::ApiGateway::GatewayResponse', { ResponseType: 'ACCESS_DENIED', StatusCode: '401' });
    });

    it('sends every alarm to the alarm topic, when it fires and when it clears, and has a dashboard', () => {
      const topicId = v().json.Outputs.AlarmTopicArn.Value.Ref;
      for (const [, alarm] of v().resources('AWS::CloudWatch::Alarm')) {
        expect(alarm.Properties.AlarmActions).toEqual([{ Ref: topicId }]);
        expect(alarm.Properties.OKActions).toEqual([{ Ref: topicId }]);
      }
      v().template.resourceCountIs('AWS::CloudWatch::Dashboard', 1);
    });

    it('mails the alarm topic to the AlarmEmail parameter, which has no default and must be an address', () => {
      const topicId = v().json.Outputs.AlarmTopicArn.Value.Ref;
      const parameter = v().json.Parameters!.AlarmEmail;
      expect(parameter).toMatchObject({ Type: 'String', AllowedPattern: '^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$' });
      expect(parameter.Default).toBeUndefined();
      expect(new RegExp(parameter.AllowedPattern).test('oncall@example.com')).toBe(true);
      expect(new RegExp(parameter.AllowedPattern).test('not an address')).toBe(false);
      const subscriptions = v().resources('AWS::SNS::Subscription').map(([, subscription]) => subscription.Properties);
      expect(subscriptions).toEqual([{ Protocol: 'email', TopicArn: { Ref: topicId }, Endpoint: { Ref: 'AlarmEmail' } }]);
    });

    it('plots every business metric on the dashboard, for this stage', () => {
      const parts = v().resources('AWS::CloudWatch::Dashboard')[0]![1].Properties.DashboardBody['Fn::Join'][1] as unknown[];
      const body = parts.map((part) => (typeof part === 'string' ? part : '')).join('');
      for (const metric of Object.values(BUSINESS_METRICS)) {
        if ('dimension' in metric) {
          // One line per method or source, whichever appear.
          expect(body).toContain(`SEARCH('{PaymentGateway,service,stage,${metric.dimension}} MetricName=\\"${metric.name}\\" service=\\"payment-gateway\\" stage=\\"${stage}\\"', 'Sum', 300)`);
        } else {
          expect(body).toContain(`["PaymentGateway","${metric.name}","service","payment-gateway","stage","${stage}"`);
        }
      }
    });
  });

  it('exports what the admin CLI reads, under stable names', () => {
    const outputs = Object.keys(v().json.Outputs);
    expect(outputs).toEqual(
      expect.arrayContaining([
        'ApiUrl',
        'UsagePlanId',
        'RestApiId',
        'CallbackQueueUrl',
        'CallbackDlqUrl',
        'ReceiptsBucketName',
        'VaultKeyArn',
        'Stage',
        'AlarmTopicArn',
        'DashboardUrl',
        'CallbackQueueArn',
        'CallbackDlqArn',
        ...TABLE_KEYS.map((key) => `Table${pascalCase(key)}`),
      ]),
    );
    expect(v().json.Outputs.CallbackDlqUrl.Value).toEqual({ Ref: v().queueIds().deadLetter });
    const dashboardId = v().resources('AWS::CloudWatch::Dashboard')[0]![0];
    const dashboardUrl = JSON.stringify(v().json.Outputs.DashboardUrl.Value);
    expect(dashboardUrl).toContain('https://console.aws.amazon.com/cloudwatch/home?region=');
    expect(dashboardUrl).toContain('#dashboards:name=');
    expect(refersTo(v().json.Outputs.DashboardUrl.Value, dashboardId)).toBe(true);
    // Spelled out: the admin CLI looks these up by name.
    expect(outputs).toEqual(expect.arrayContaining(['TableMerchants', 'TableApiKeys', 'TableInvoices']));
    expect(v().json.Outputs.Stage.Value).toBe(stage);
  });
});

describe('stage differences', () => {
  const demoOnly = FUNCTIONS.filter((f: GatewayFunction) => !f.stages.includes('prod')).map((f) => f.name);

  it('deploys demo-only functions in demo and never in prod', () => {
    const prod = views.prod.functionIds();
    const demo = views.demo.functionIds();
    expect(demoOnly.length).toBeGreaterThan(0);
    for (const name of demoOnly) {
      expect(prod.has(name)).toBe(false);
      expect(demo.has(name)).toBe(true);
    }
  });

  // Decisions 11: the simulation API exists in demo and not at all in prod.
  it.each(['simulate-deposit', 'simulate-withdrawal'])('%s: routed in demo, absent from prod', (name) => {
    const route = FUNCTIONS.find((f): f is Extract<(typeof FUNCTIONS)[number], { kind: 'http' }> => f.kind === 'http' && f.name === name)!;
    expect(route.stages).toEqual(['demo']);
    expect(views.demo.functionIds().has(name)).toBe(true);
    expect(views.prod.functionIds().has(name)).toBe(false);
    expect(views.demo.methods().has(`${route.method} ${route.path}`)).toBe(true);
    expect(views.prod.methods().has(`${route.method} ${route.path}`)).toBe(false);
  });

  // By path as well, whatever the route table says: prod must not even know the resource.
  it('exposes no simulation path in prod', () => {
    expect([...views.prod.resourcePaths().values()].filter((path) => path.includes('/simulate'))).toEqual([]);
  });

  it('retains and protects prod data; demo data goes with its stack', () => {
    for (const [, table] of views.prod.resources('AWS::DynamoDB::Table')) {
      expect(table).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain', Properties: { DeletionProtectionEnabled: true } });
    }
    for (const [, table] of views.demo.resources('AWS::DynamoDB::Table')) {
      expect(table).toMatchObject({ DeletionPolicy: 'Delete', Properties: { DeletionProtectionEnabled: false } });
    }
    for (const [, logGroup] of views.prod.resources('AWS::Logs::LogGroup')) expect(logGroup.DeletionPolicy).toBe('Retain');
    expect(views.prod.stack.terminationProtection).toBe(true);
    expect(views.demo.stack.terminationProtection).toBe(false);
  });

  it('retains the prod vault key and receipts bucket; demo empties and deletes them with its stack', () => {
    const [prodKey, demoKey] = [views.prod, views.demo].map((view) => view.json.Resources[view.vaultIds().key]!);
    const [prodBucket, demoBucket] = [views.prod, views.demo].map((view) => view.json.Resources[view.vaultIds().bucket]!);
    expect(prodKey).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    expect(prodBucket).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    views.prod.template.resourceCountIs('Custom::S3AutoDeleteObjects', 0);
    expect(demoKey).toMatchObject({ DeletionPolicy: 'Delete' });
    expect(demoBucket).toMatchObject({ DeletionPolicy: 'Delete' });
    views.demo.template.hasResourceProperties('Custom::S3AutoDeleteObjects', { BucketName: { Ref: views.demo.vaultIds().bucket } });
  });

  it('has the fiat-decisions queue and its dead-letter queue in demo only', () => {
    expect(QUEUES.fiatDecisions.stages).toEqual(['demo']);
    const { queue, deadLetter } = views.demo.queueIds('fiatDecisions');
    expect(views.demo.json.Resources[queue]!.Type).toBe('AWS::SQS::Queue');
    expect(views.demo.json.Resources[deadLetter]!.Type).toBe('AWS::SQS::Queue');
    views.demo.template.resourceCountIs('AWS::SQS::Queue', 4);
    views.prod.template.resourceCountIs('AWS::SQS::Queue', 2);
    expect(Object.keys(views.prod.json.Outputs).filter((id) => id.startsWith('FiatDecision'))).toEqual([]);
  });

  it('feeds decide-fiat-payments from the fiat-decisions queue in demo; prod has neither', () => {
    const functionId = views.demo.functionIds().get('decide-fiat-payments')!;
    const [mapping] = views.demo.resources('AWS::Lambda::EventSourceMapping').filter(([, m]) => refersTo(m.Properties.FunctionName, functionId));
    expect(mapping![1].Properties.EventSourceArn).toEqual({ 'Fn::GetAtt': [views.demo.queueIds('fiatDecisions').queue, 'Arn'] });
    expect(views.prod.functionIds().has('decide-fiat-payments')).toBe(false);
    expect(views.prod.resources('AWS::Lambda::EventSourceMapping')).toHaveLength(1);
  });

  it('lets confirm-deposit send to the fiat-decisions queue only, and in demo only', () => {
    expect(views.demo.queueActionsOf('confirm-deposit')).toEqual(new Map([[views.demo.queueIds('fiatDecisions').queue, sorted(SQS_SEND)]]));
    expect(views.prod.queueActionsOf('confirm-deposit')).toEqual(new Map());
  });

  it('keeps prod logs longer than demo logs', () => {
    expect(views.prod.logRetentionOf('get-invoice')).toBeGreaterThan(views.demo.logRetentionOf('get-invoice'));
  });

  it('keeps the wallet keys in SSM String parameters: prod fills them from no-echo stack parameters without defaults, demo with the test keys', () => {
    const parameters = views.prod.json.Parameters!;
    const prodSsm = views.prod.walletKeyParameterIds();
    for (const [id, family] of [['WalletEvmXpub', 'evm'], ['WalletBtcXpub', 'btc'], ['WalletTronXpub', 'tron']] as const) {
      expect(parameters[id]).toMatchObject({ Type: 'String', NoEcho: true });
      expect(parameters[id].Default).toBeUndefined();
      expect(views.prod.json.Resources[prodSsm[family]]!.Properties).toMatchObject({ Type: 'String', Value: { Ref: id } });
    }
    expect(Object.keys(views.demo.json.Parameters ?? {}).filter((id) => id.startsWith('Wallet'))).toEqual([]);
    const demoSsm = views.demo.walletKeyParameterIds();
    for (const family of WALLET_FAMILIES) {
      expect(views.demo.json.Resources[demoSsm[family]]!.Properties).toMatchObject({ Type: 'String', Value: TEST_WALLET_XPUBS[family] });
    }
    // Nowhere else in the template: not in any function's environment.
    for (const view of [views.prod, views.demo]) {
      for (const [, fn] of view.resources('AWS::Lambda::Function')) {
        for (const xpub of Object.values(TEST_WALLET_XPUBS)) expect(JSON.stringify(fn.Properties.Environment ?? {})).not.toContain(xpub);
      }
    }
  });

  it('builds PUBLIC_BASE_URL from the API id and stage, or takes the custom domain, or an explicit base URL', () => {
    const apiId = views.demo.resources('AWS::ApiGateway::RestApi')[0]![0];
    const builtUrl = views.demo.functionNamed('create-invoice').Properties.Environment.Variables.PUBLIC_BASE_URL;
    expect(refersTo(builtUrl, apiId)).toBe(true);
    expect(JSON.stringify(builtUrl)).toMatch(/\/demo"/);
    expect(customDomain.functionNamed('create-invoice').Properties.Environment.Variables.PUBLIC_BASE_URL).toBe(`https://${CUSTOM_DOMAIN.domainName}`);
    expect(explicitBaseUrl.functionNamed('create-invoice').Properties.Environment.Variables.PUBLIC_BASE_URL).toBe(EXPLICIT_BASE_URL);
  });
});

describe('a custom domain', () => {
  it('is a regional domain name with TLS 1.2 at least and the given certificate, mapped at its root to the stage', () => {
    customDomain.template.resourceCountIs('AWS::ApiGateway::DomainName', 1);
    const [domainId, domain] = customDomain.resources('AWS::ApiGateway::DomainName')[0]!;
    expect(domain.Properties).toMatchObject({
      DomainName: CUSTOM_DOMAIN.domainName,
      RegionalCertificateArn: CUSTOM_DOMAIN.certificateArn,
      EndpointConfiguration: { Types: ['REGIONAL'] },
      SecurityPolicy: 'TLS_1_2',
    });
    const [, mapping] = customDomain.resources('AWS::ApiGateway::BasePathMapping')[0]!;
    expect(mapping.Properties).toMatchObject({ DomainName: { Ref: domainId }, RestApiId: { Ref: customDomain.resources('AWS::ApiGateway::RestApi')[0]![0] } });
    expect(mapping.Properties.BasePath).toBeUndefined();
    expect(mapping.Properties.Stage).toEqual({ Ref: customDomain.resources('AWS::ApiGateway::Stage')[0]![0] });
  });

  it('disables the execute-api endpoint, keeping TLS 1.2 on the API itself', () => {
    customDomain.template.hasResourceProperties('AWS::ApiGateway::RestApi', { DisableExecuteApiEndpoint: true, SecurityPolicy: 'TLS_1_2' });
  });

  it('is the API URL of the outputs, with what its DNS record points at', () => {
    const [domainId] = customDomain.resources('AWS::ApiGateway::DomainName')[0]!;
    expect(customDomain.json.Outputs.ApiUrl.Value).toBe(`https://${CUSTOM_DOMAIN.domainName}/`);
    expect(customDomain.json.Outputs.CustomDomainTarget.Value).toEqual({ 'Fn::GetAtt': [domainId, 'RegionalDomainName'] });
    expect(customDomain.json.Outputs.CustomDomainHostedZoneId.Value).toEqual({ 'Fn::GetAtt': [domainId, 'RegionalHostedZoneId'] });
    expect(views.prod.json.Outputs.CustomDomainTarget).toBeUndefined();
  });
});

describe('a queue consumer that could outlast the visibility timeout', () => {
  const sendCallback = FUNCTIONS.find((f): f is Extract<(typeof FUNCTIONS)[number], { kind: 'queue' }> => f.name === 'send-callback')!;
  const decideFiatPayments = FUNCTIONS.find((f): f is Extract<(typeof FUNCTIONS)[number], { kind: 'queue' }> => f.name === 'decide-fiat-payments')!;
  const build = (stack: Stack, definition: QueueFunction, queues: Record<string, { queue: Queue; deadLetterQueue: Queue; visibilityTimeoutSeconds: number }>) =>
    new GatewayFunctionConstruct(stack, pascalCase(definition.name), {
      definition,
      environment: {},
      tables: Object.fromEntries(TABLE_KEYS.map((key) => [key, Table.fromTableName(stack, `${key}Table`, key)])) as Record<TableKey, ITable>,
      queues,
      vault: { key: new Key(stack, 'VaultKey'), receipts: new Bucket(stack, 'Receipts') },
      logRetention: RetentionDays.ONE_DAY,
      removalPolicy: RemovalPolicy.DESTROY,
    });
  const queueWithDeadLetter = (stack: Stack, id: string, visibilityTimeoutSeconds: number) => ({
    queue: new Queue(stack, `${id}Queue`),
    deadLetterQueue: new Queue(stack, `${id}DeadLetterQueue`),
    visibilityTimeoutSeconds,
  });

  /** The longest timeout the six-times rule allows a consumer of a queue with this visibility timeout. */
  const longestTimeout = (visibilityTimeoutSeconds: number) => Math.floor((visibilityTimeoutSeconds - QUEUE_BATCHING_WINDOW.toSeconds()) / 6);

  // Below one timeout AWS refuses the event source; below six the poller's retries can overlap. Synthesis refuses it first, saying what to change.
  it('fails synthesis below six timeouts plus the batching window, naming the function, the durations and where to change them', () => {
    const stack = new Stack(new App(), 'VisibilityCheck');
    const queues = { callbacks: queueWithDeadLetter(stack, 'Callbacks', CALLBACK_QUEUE.visibilityTimeoutSeconds) };
    const tooLong = longestTimeout(CALLBACK_QUEUE.visibilityTimeoutSeconds) + 1;
    expect(() => build(stack, { ...sendCallback, timeoutSeconds: tooLong }, queues)).toThrow(
      new RegExp(
        `send-callback may hold a message ${6 * tooLong + QUEUE_BATCHING_WINDOW.toSeconds()} s \\(6 x its ${tooLong} s timeout .*` +
          `visibility timeout must be at least that, and it is ${CALLBACK_QUEUE.visibilityTimeoutSeconds} s: .*shared/platform\\.ts.*shared/routes\\.ts`,
      ),
    );
    // The longest timeout the rule allows passes (bundling skipped: only the check is under test).
    const fitting = new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'VisibilityFits');
    const fittingQueues = { callbacks: queueWithDeadLetter(fitting, 'Callbacks', CALLBACK_QUEUE.visibilityTimeoutSeconds) };
    expect(() => build(fitting, { ...sendCallback, timeoutSeconds: tooLong - 1 }, fittingQueues)).not.toThrow();
  });

  it('checks each consumer against its own queue', () => {
    const stack = new Stack(new App(), 'PerQueueCheck');
    const visibility = QUEUES.fiatDecisions.visibilityTimeoutSeconds;
    // The callbacks queue would allow this timeout; the fiat-decisions queue, which it reads, does not.
    const queues = { callbacks: queueWithDeadLetter(stack, 'Callbacks', visibility * 10), fiatDecisions: queueWithDeadLetter(stack, 'FiatDecisions', visibility) };
    expect(() => build(stack, { ...decideFiatPayments, timeoutSeconds: longestTimeout(visibility) + 1 }, queues)).toThrow(
      new RegExp(`^decide-fiat-payments may hold a message .* and it is ${visibility} s`),
    );
  });

  it('fails synthesis for a consumer of a queue its stage does not have', () => {
    const stack = new Stack(new App(), 'MissingQueue');
    const queues = { callbacks: queueWithDeadLetter(stack, 'Callbacks', CALLBACK_QUEUE.visibilityTimeoutSeconds) };
    expect(() => build(stack, decideFiatPayments, queues)).toThrow(/decide-fiat-payments consumes the fiat-decisions queue, which its stage does not have/);
  });
});

function mockMethod(status: number, code: string, message: string, staticHeaders: Record<string, string> = {}) {
  const headers = { 'x-request-id': 'context.requestId', ...staticHeaders };
  const key = (name: string) => `method.response.header.${name}`;
  return {
    AuthorizationType: 'NONE',
    Integration: {
      Type: 'MOCK',
      RequestTemplates: { 'application/json': JSON.stringify({ statusCode: status }) },
      IntegrationResponses: [
        {
          StatusCode: String(status),
          ResponseTemplates: { 'application/json': envelope(code, message) },
          ResponseParameters: Object.fromEntries(Object.entries(headers).map(([name, value]) => [key(name), value])),
        },
      ],
    },
    MethodResponses: [{ StatusCode: String(status), ResponseParameters: Object.fromEntries(Object.keys(headers).map((name) => [key(name), true])) }],
  };
}

describe('an alarm added to the stack by any construct', () => {
  it('sends to the alarm topic too', () => {
    const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
    const stack = new GatewayStack(app, 'PaymentGateway-demo-extra-alarm', { stage: 'demo' });
    new Alarm(stack, 'ExtraAlarm', { metric: new Metric({ namespace: 'Custom', metricName: 'Anything' }), threshold: 1, evaluationPeriods: 1 });
    const json = Template.fromStack(stack).toJSON() as { Resources: Record<string, Resource>; Outputs: Record<string, any> };
    const topicId = json.Outputs.AlarmTopicArn.Value.Ref;
    const extra = Object.entries(json.Resources).find(([id]) => id.startsWith('ExtraAlarm'))![1];
    expect(extra.Properties.AlarmActions).toEqual([{ Ref: topicId }]);
    expect(extra.Properties.OKActions).toEqual([{ Ref: topicId }]);
  });
});
