/**
 * The synthesized CloudFormation of both stages, checked against the route table, the table
 * definitions and the contract. Expectations are computed from shared/routes.ts and
 * shared/store/tables.ts, so they stay true as routes and tables are added. A stage is several
 * stacks (infra/aws/gateway-stage.ts): each is read here as one template, its references to the
 * others' outputs made references within it (test/support/template.ts linkedStageTemplate); what
 * each stack holds apart is stage-limits.test.ts's.
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
import { GatewayFunction as GatewayFunctionConstruct, usesVaultKey } from '../../infra/aws/gateway-function.js';
import { GatewayStage, type GatewayStageProps } from '../../infra/aws/gateway-stage.js';
import { DEFAULT_LIVE_RATES } from '../../infra/aws/live-rates.js';
import { parseChainsConfig, parseRatesConfig } from '../../shared/config.js';
import type { ProviderDeployment } from '../../infra/aws/payment-providers.js';
import { DEFAULTS } from '../../shared/defaults.js';
import { CRYPTO_NETWORKS } from '../../shared/domain/kernel/currencies.js';
import { DEMO_PROVIDER_ID, demoProviderRoute } from '../../shared/domain/providers/providers.js';
import { REPORT_RETENTION_DAYS } from '../../shared/domain/ledger/reports.js';
import { TEST_WALLET_XPUBS } from '../../shared/domain/chains/test-wallet-keys.js';
import {
  CHAIN_RUN_ALLOWANCE_SECONDS,
  CONCURRENCY,
  chainWatchSecondsOf,
  methodThrottleOf,
  PROVIDER_EVENTS_THROTTLE,
  PUBLIC_ROUTE_THROTTLE,
  reservedConcurrencyOf,
  STAGE_METHOD_THROTTLE,
  TABLE_CAPACITY_BASIS,
} from '../../shared/platform.js';
import { BUSINESS_METRICS, CHAIN_RPC_METRICS } from '../../shared/observability/catalogue.js';
import { CALLBACK_QUEUE, QUEUES, type QueueDefinition, type QueueName } from '../../shared/queue/queues.js';
import {
  FUNCTIONS,
  functionsForStage,
  maxBodyBytesOf,
  readsProviders,
  readsStageConfiguration,
  replaysIdempotencyKey,
  watchesChains,
  type GatewayFunction,
  type HttpRoute,
  type QueueFunction,
} from '../../shared/routes.js';
import { STAGES, type Stage } from '../../shared/stage.js';
import { namedEverywhere, TABLES, TABLE_KEYS, tableEnvVar, type TableDefinition, type TableKey } from '../../shared/store/tables.js';
import { tableGrantsOf } from '../../shared/store/table-access.js';
import { linkedStageTemplate, resolveText } from '../support/template.js';

type Resource = { Type: string; Properties: Record<string, any>; DeletionPolicy?: string; UpdateReplacePolicy?: string };
type Statement = { Effect: string; Action: string | string[]; Resource: unknown; Principal?: unknown; Condition?: unknown };

const CUSTOM_DOMAIN = { domainName: 'pay.example.com', certificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/0a1b2c3d-4e5f-6789-abcd-ef0123456789' };
const EXPLICIT_BASE_URL = 'https://checkout.example.com';
const WALLET_FAMILIES = ['evm', 'btc', 'tron'] as const;
/** What reading the wallet keys takes: their one GetParameters call. */
const SSM_READ = ['ssm:GetParameters'];
/** What reading a provider's secret takes: its value, nothing else of it. */
const SECRET_READ = ['secretsmanager:GetSecretValue'];
/** What active tracing and writing to its log group take: every function has them. */
const TRACING = ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'];
const LOGGING = ['logs:CreateLogStream', 'logs:PutLogEvents'];
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
/** What sending to an SQS queue takes, and what its event source polls with; nothing more. */
const SQS_SEND = ['sqs:SendMessage'];
const SQS_CONSUME = ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'];
/** What writing a report's file takes (a multipart upload, abandoned when it fails), and what a link to one takes of its signer. */
const REPORT_WRITE = ['s3:PutObject', 's3:AbortMultipartUpload'];
const REPORT_LINK = ['s3:GetObject'];
/** What a consumer that schedules its own retries adds: hiding a message until its next attempt. */
const SQS_DELAY = 'sqs:ChangeMessageVisibility';
/** Four hours: past every retry's third attempt, so only a stalled queue gets there. */
const BACKLOG_AGE_SECONDS = 4 * 3600;
const REQUEST_ID_HEADER = { 'gatewayresponse.header.x-request-id': 'context.requestId' };

/** What API Gateway itself answers (docs/merchant-guide.md#the-envelope, #error-codes-and-statuses), written out from the contract. */
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
  // What the web ACL's managed rules block.
  ['WAF_FILTERED', 403, 'forbidden', 'Request refused'],
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

/** Read helpers over a stage's templates, linked as one. */
class StackView {
  readonly json: { Resources: Record<string, Resource>; Outputs: Record<string, any>; Parameters?: Record<string, any> };
  readonly template: Template;

  constructor(
    readonly stage: Stage,
    readonly gatewayStage: GatewayStage,
  ) {
    this.json = linkedStageTemplate(gatewayStage) as StackView['json'];
    this.template = Template.fromJSON(this.json, { skipCyclicalDependenciesCheck: true });
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

  /** Logical id of the reports bucket. */
  reportsBucketId(): string {
    return this.json.Outputs.ReportsBucketName.Value.Ref;
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
        for (const action of actionsOf(statement)) actions.add(action);
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

  /** Every metric the dashboard plots: namespace, name and dimensions (references as `<ref>`). */
  dashboardMetrics(): Array<{ namespace: string; metric: string; dimensions: Record<string, string> }> {
    const [, dashboard] = this.resources('AWS::CloudWatch::Dashboard')[0]!;
    const parts = dashboard.Properties.DashboardBody['Fn::Join'][1] as unknown[];
    const body = JSON.parse(parts.map((part) => (typeof part === 'string' ? part : '<ref>')).join('')) as { widgets: Array<{ properties: { metrics?: unknown[][] } }> };
    return body.widgets.flatMap(({ properties }) =>
      (properties.metrics ?? []).map((line) => {
        const [namespace, metric, ...rest] = line.filter((item) => typeof item === 'string') as string[];
        const dimensions = Object.fromEntries(rest.flatMap((item, i) => (i % 2 === 0 ? [[item, rest[i + 1]!]] : [])));
        return { namespace: namespace!, metric: metric!, dimensions };
      }),
    );
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

  /** The vault key's policy statements. */
  keyPolicy(): Statement[] {
    return this.json.Resources[this.vaultIds().key]!.Properties.KeyPolicy.Statement as Statement[];
  }

  /**
   * A resource of a statement as `logicalId` plus what follows it: `InvoicesTable…`,
   * `InvoicesTable…/index/openByExpiry`, `ReceiptsBucket…/*`, or `*`.
   */
  resourceKey(resource: unknown): string {
    if (resource === '*') return '*';
    const ids = [...JSON.stringify(resource).matchAll(/"(?:Ref|Fn::GetAtt)":\[?"([^"]+)"/g)].map((match) => match[1]!).filter((id) => !id.startsWith('AWS::'));
    const parts = (resource as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join']?.[1];
    const tail = parts && typeof parts.at(-1) === 'string' ? (parts.at(-1) as string) : '';
    return `${ids.join('+')}${tail}`;
  }

  /** Everything a function's role may do, as sorted `action resource` pairs. */
  grantsOf(functionName: string): string[] {
    const pairs = this.statementsOf(functionName).flatMap((statement) =>
      actionsOf(statement).flatMap((action) => [statement.Resource].flat().map((resource) => `${action} ${this.resourceKey(resource)}`)),
    );
    return sorted(new Set(pairs));
  }

  /** What a function's role may do by its route-table entry, as `grantsOf` reads it back. */
  derivedGrants(definition: GatewayFunction): string[] {
    const pairs: string[] = [];
    const grant = (actions: readonly string[], resource: string) => pairs.push(...actions.map((action) => `${action} ${resource}`));
    grant(TRACING, '*');
    grant(LOGGING, this.functionNamed(definition.name).Properties.LoggingConfig.LogGroup.Ref);
    for (const [key, actions] of Object.entries(definition.tables) as [TableKey, readonly string[]][])
      grant(
        actions.map((action) => `dynamodb:${action}`),
        this.tableId(key),
      );
    for (const [key, indexes] of Object.entries(definition.queries ?? {}) as [TableKey, readonly string[]][]) {
      for (const index of indexes) grant(['dynamodb:Query'], `${this.tableId(key)}/index/${index}`);
    }
    // A queue the stage does not have grants nothing (prod's confirm-deposit and the demo's provider queue).
    for (const queue of (definition.sendsTo ?? []) as QueueName[]) if ((QUEUES[queue] as QueueDefinition).stages.includes(this.stage)) grant(SQS_SEND, this.queueIds(queue).queue);
    if (definition.kind === 'queue') {
      const { queue, deadLetter } = this.queueIds(definition.queue);
      grant([...SQS_CONSUME, ...(definition.delaysRetries ? [SQS_DELAY] : [])], queue);
      if (definition.parksMessages) grant(SQS_SEND, deadLetter);
    }
    // Receipts are written where they are taken, and read only to be sent again to a provider; never listed or deleted.
    if (definition.usesVault) grant(['s3:PutObject'], `${this.vaultIds().bucket}/*`);
    if (definition.resendsProviderRequests) grant(['s3:GetObject'], `${this.vaultIds().bucket}/*`);
    // Report files are written by their builder, and read only by the functions that link to them.
    if (definition.reportFiles === 'writes') grant(REPORT_WRITE, `${this.reportsBucketId()}/*`);
    if (definition.reportFiles === 'links') grant(REPORT_LINK, `${this.reportsBucketId()}/*`);
    if (definition.readsWalletKeys) for (const id of Object.values(this.walletKeyParameterIds())) grant(SSM_READ, id);
    // Keys added to the stage's usage plan, found by name and deleted; the plan's id read from its parameter.
    if (definition.managesApiKeys) {
      const plan = this.resources('AWS::ApiGateway::UsagePlan')[0]![0];
      const parameter = this.resources('AWS::SSM::Parameter').find(([, p]) => p.Properties.Name === `/payment-gateway/${this.stage}/usage-plan-id`)![0];
      grant(['apigateway:POST'], '::/apikeys');
      grant(['apigateway:POST'], `${plan}/keys`);
      grant(['apigateway:GET'], '::/apikeys');
      grant(['apigateway:DELETE'], '::/apikeys/*');
      grant(['ssm:GetParameter'], parameter);
    }
    // Every provider's secret, read by the functions that talk to providers.
    if (definition.usesProviders) for (const id of this.providerSecretIds()) grant(SECRET_READ, id);
    // The stage's configuration where it is read, the networks' endpoints beside it for the chain watcher.
    if (readsStageConfiguration(definition)) {
      grant(['ssm:GetParameters'], this.parameterNamed('configuration'));
      if (watchesChains(definition)) grant(['ssm:GetParameters'], this.parameterNamed('chain-endpoints'));
    }
    return sorted(new Set(pairs));
  }

  /** The logical id of the stage's SSM parameter `/payment-gateway/{stage}/{name}`. */
  parameterNamed(name: string): string {
    const found = this.resources('AWS::SSM::Parameter').find(([, parameter]) => parameter.Properties.Name === `/payment-gateway/${this.stage}/${name}`);
    if (!found) throw new Error(`No parameter ${name} in ${this.stage}`);
    return found[0];
  }

  /** The JSON document an SSM parameter of the stage holds, each reference of the template standing as `<LogicalId>` (a secret's ARN is its `Ref`). */
  documentOf(name: 'configuration' | 'chain-endpoints'): Record<string, any> {
    return JSON.parse(resolveText(this.json.Resources[this.parameterNamed(name)]!.Properties.Value));
  }

  /** The vault key policy's statements that name the role of a function, by its role's name, in their condition. */
  keyStatementsOf(functionName: string): Statement[] {
    const roleId = this.functionNamed(functionName).Properties.Role['Fn::GetAtt'][0] as string;
    const roleName = resolveText(this.json.Resources[roleId]!.Properties.RoleName);
    return this.keyPolicy().filter((statement) => resolveText((statement.Condition as any)?.ArnEquals?.['aws:PrincipalArn'] ?? '').endsWith(`:role/${roleName}`));
  }

  /** Logical ids of the stack's Secrets Manager secrets: the providers' (the stack keeps no other). */
  providerSecretIds(): string[] {
    return this.resources('AWS::SecretsManager::Secret').map(([id]) => id);
  }

  /** The stage's providers as its configuration document names them, each secret by its ARN (`<LogicalId>`). */
  providers(): Array<Record<string, unknown>> {
    return this.documentOf('configuration').providers;
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
let partnerProd: StackView;
let partnerDemo: StackView;

/** A partner of the stage's context: INR P2P payments from 300 to 49,000. */
const PSP_ONE: ProviderDeployment = {
  id: 'psp-one',
  name: 'PSP One',
  url: 'https://psp-one.example/gw',
  priority: 1,
  methods: [{ currency: 'INR', method: 'p2p', min: '300', max: '49000' }],
};

const LIVE_DEMO_RATES = { url: 'https://ticker.example/api/v3/ticker/price', pairs: { BTC: { symbol: 'BTCUSDT', inverse: false }, USDT: { fixed: '1' } }, maxAgeSeconds: 120 };

const WATCHED_TOKEN = '0x1111111111111111111111111111111111111111';
const WATCHED_TRON_TOKEN = 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf';

/** An app with the project's feature flags (cdk.json), bundling nothing. */
function projectApp(): App {
  const { context } = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8'));
  return new App({ context: { ...context, 'aws:cdk:bundling-stacks': [] } });
}

/** A stage of `props` in an app of its own (a stage's stacks are named after it), read as one template. */
const view = (props: GatewayStageProps) => new StackView(props.stage, new GatewayStage(projectApp(), props));

beforeAll(() => {
  views = Object.fromEntries(STAGES.map((stage) => [stage, view({ stage })])) as Record<Stage, StackView>;
  customDomain = view({ stage: 'prod', customDomain: CUSTOM_DOMAIN });
  explicitBaseUrl = view({ stage: 'demo', customDomain: CUSTOM_DOMAIN, publicBaseUrl: EXPLICIT_BASE_URL });
  watching = view({
    stage: 'demo',
    watchedNetworks: { ethereum: { tokens: { USDT: WATCHED_TOKEN } }, polygon: {}, bitcoin: {}, tron: { tokens: { USDT: WATCHED_TRON_TOKEN } } },
  });
  liveDemo = view({ stage: 'demo', liveRates: LIVE_DEMO_RATES });
  partnerProd = view({ stage: 'prod', providers: [PSP_ONE] });
  partnerDemo = view({ stage: 'demo', providers: [PSP_ONE] });
}, 600_000);

describe('live exchange rates', () => {
  const rateVariables = (view: StackView, name: string) =>
    Object.fromEntries(Object.entries(view.functionNamed(name).Properties.Environment.Variables as Record<string, string>).filter(([variable]) => variable.startsWith('GATEWAY_RATE')));
  const ratesRules = (view: StackView) => view.resources('AWS::Events::Rule').filter(([, rule]) => JSON.stringify(rule.Properties.Targets).includes(`"${view.functionIds().get('fetch-rates')}"`));

  it("are prod's by default: Binance's public ticker for every function, fetched once a minute, stale after five minutes", () => {
    const prod = views.prod;
    for (const name of prod.functionIds().keys()) {
      const variables = rateVariables(prod, name);
      expect(variables).toMatchObject({ GATEWAY_RATES_URL: DEFAULT_LIVE_RATES.url, GATEWAY_RATE_MAX_AGE_S: '300' });
      // As the functions read them; written in their shortest form (a symbol whose price is the USD price stands alone).
      expect(parseRatesConfig(variables)).toEqual({ kind: 'live', ...DEFAULT_LIVE_RATES });
      expect(JSON.parse(variables.GATEWAY_RATE_PAIRS!)).toMatchObject({ BTC: 'BTCUSDT', TRY: { symbol: 'USDTTRY', inverse: true }, USDT: { fixed: '1' } });
    }
    expect(ratesRules(prod).map(([, rule]) => rule.Properties.ScheduleExpression)).toEqual(['rate(1 minute)']);
  });

  it("are not demo's by default: the fixed table, and fetch-rates deployed without a schedule", () => {
    for (const name of views.demo.functionIds().keys()) expect(rateVariables(views.demo, name)).toEqual({});
    expect(views.demo.functionIds().has('fetch-rates')).toBe(true);
    expect(ratesRules(views.demo)).toEqual([]);
  });

  it("are any stage's when given, with their schedule", () => {
    expect(rateVariables(liveDemo, 'create-invoice')).toEqual({
      GATEWAY_RATES_URL: LIVE_DEMO_RATES.url,
      GATEWAY_RATE_PAIRS: JSON.stringify({ BTC: 'BTCUSDT', USDT: { fixed: '1' } }),
      GATEWAY_RATE_MAX_AGE_S: '120',
    });
    expect(ratesRules(liveDemo)).toHaveLength(1);
  });

  it('are written by fetch-rates alone and read where invoices, deposits and withdrawals are priced', () => {
    for (const [view, readers] of [
      [views.prod, ['create-invoice', 'create-withdrawal', 'watch-chain']],
      [views.demo, ['create-invoice', 'create-withdrawal', 'simulate-deposit', 'watch-chain']],
    ] as const) {
      expect([...view.tableActionsOf('fetch-rates').keys()]).toEqual(['rates']);
      expect([...view.tableActionsOf('fetch-rates').get('rates')!].sort()).toEqual(['dynamodb:BatchGetItem', 'dynamodb:PutItem']);
      const granted = [...view.functionIds().keys()].filter((name) => name !== 'fetch-rates' && view.tableActionsOf(name).has('rates')).sort();
      expect(granted).toEqual(readers);
      for (const name of granted) expect([...view.tableActionsOf(name).get('rates')!]).toEqual(['dynamodb:BatchGetItem']);
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
    const liveRates = { ...LIVE_DEMO_RATES, pairs: { USD: { symbol: 'USDUSDT', inverse: false } } };
    expect(() => new GatewayStage(projectApp(), { stage: 'demo', liveRates })).toThrow(/Invalid environment: GATEWAY_RATE_PAIRS/);
  });
});

describe('payment providers', () => {
  /** A partner's secret, by the output that names it to operators. */
  const partnerSecret = (view: StackView, id = 'psp-one'): [string, Resource] => {
    const secretId = view.json.Outputs[`ProviderSecret${pascalCase(id)}`]?.Value.Ref as string;
    expect(view.json.Resources[secretId]?.Type, id).toBe('AWS::SecretsManager::Secret');
    return [secretId, view.json.Resources[secretId]!];
  };
  /** The demo provider as the stage's configuration names it: its routes, its address on the stage's API, its secret's ARN. */
  const demoEntry = (view: StackView) => ({
    ...demoProviderRoute(),
    url: `${resolveText(view.functionNamed('create-invoice').Properties.Environment.Variables.PUBLIC_BASE_URL)}/demo-provider`,
    secretArn: `<${view.providerSecretIds().find((id) => id.startsWith('DemoProviderSecret'))}>`,
  });
  const partnerEntry = (view: StackView) => ({ ...PSP_ONE, secretArn: `<${partnerSecret(view)[0]}>` });
  const everyView = () => [views.demo, views.prod, partnerProd, partnerDemo];

  /** The functions that read the stage's configuration: those that read its providers among them. */
  const readersOf = (view: StackView) => [...view.functionIds().keys()].filter((name) => readsStageConfiguration(FUNCTIONS.find((f) => f.name === name)!));

  it("names the stage's providers in its configuration document alone, which the functions that read them are given the name of, and no function's environment", () => {
    const providerReaders = FUNCTIONS.filter((f) => ('usesProviders' in f && f.usesProviders) || f.name === 'get-docs').filter((f) => (f.stages as readonly string[]).includes('demo'));
    expect(providerReaders.every((f) => readsProviders(f as GatewayFunction) && readsStageConfiguration(f as GatewayFunction))).toBe(true);
    for (const view of [views.demo, views.prod]) {
      for (const name of view.functionIds().keys()) {
        const variables = view.functionNamed(name).Properties.Environment.Variables;
        expect(variables.GATEWAY_PROVIDERS, `${view.stage} ${name}`).toBeUndefined();
        expect(variables.GATEWAY_STAGE_CONFIGURATION_PARAMETER, `${view.stage} ${name}`).toBe(readersOf(view).includes(name) ? `/payment-gateway/${view.stage}/configuration` : undefined);
      }
    }
  });

  it('keeps the document in SSM, in the standard tier while it fits 4 KB and the advanced beyond', () => {
    for (const view of everyView()) {
      expect(view.json.Resources[view.parameterNamed('configuration')]!.Properties).toMatchObject({ Type: 'String', Tier: 'Intelligent-Tiering' });
    }
  });

  it("names the demo provider in a demo stage, at {PUBLIC_BASE_URL}/demo-provider, by its secret's ARN", () => {
    expect(demoEntry(views.demo).url).toMatch(/^https:\/\/<Api\w+>\.execute-api\.<AWS::Region>\.<AWS::URLSuffix>\/demo\/demo-provider$/);
    expect(views.demo.providers()).toEqual([demoEntry(views.demo)]);
  });

  it('gives a prod stage without partners no provider: an empty list, no secret, and no function reads one', () => {
    expect(views.prod.providers()).toEqual([]);
    for (const name of views.prod.functionIds().keys())
      expect(
        views.prod.grantsOf(name).filter((grant) => grant.startsWith('secretsmanager:')),
        name,
      ).toEqual([]);
    views.prod.template.resourceCountIs('AWS::SecretsManager::Secret', 0);
  });

  it('makes each partner a secret of its own, generated by Secrets Manager, named by CloudFormation at each creation, kept when a prod stack goes', () => {
    for (const view of [partnerProd, partnerDemo]) {
      const [, secret] = partnerSecret(view);
      // 64 letters and digits: the base64 of 48 bytes, a secret the protocol takes.
      expect(secret.Properties.GenerateSecretString).toEqual({ ExcludePunctuation: true, PasswordLength: 64 });
      expect(secret.Properties.SecretString).toBeUndefined();
      // A prod secret outlives its provider and its stack: a fixed name would refuse the next one ("already exists").
      expect(secret.Properties.Name).toBeUndefined();
      expect(secret).toMatchObject(view.stage === 'prod' ? { DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' } : { DeletionPolicy: 'Delete' });
    }
    partnerProd.template.resourceCountIs('AWS::SecretsManager::Secret', 1);
    partnerDemo.template.resourceCountIs('AWS::SecretsManager::Secret', 2);
  });

  it("names each partner in the document as the context gives it, with its secret's ARN; the demo provider comes first in demo", () => {
    expect(partnerProd.providers()).toEqual([partnerEntry(partnerProd)]);
    expect(partnerDemo.providers()).toEqual([demoEntry(partnerDemo), partnerEntry(partnerDemo)]);
  });

  it('keeps every provider secret out of the template, the document and the environment: generated in Secrets Manager, named by ARN only', () => {
    for (const view of everyView()) {
      for (const [id, secret] of view.resources('AWS::SecretsManager::Secret')) {
        expect(secret.Properties.GenerateSecretString, id).toBeDefined();
        expect(secret.Properties.SecretString, id).toBeUndefined();
      }
      // No dynamic reference resolves a secret's value into a property, and no secret is written out.
      const text = JSON.stringify(view.json);
      expect(text).not.toContain('resolve:secretsmanager');
      expect(text).not.toContain('whsec_');
      for (const provider of view.providers()) {
        expect(provider, view.stage).not.toHaveProperty('secret');
        expect(provider.secretArn, view.stage).toMatch(/^<\w+>$/);
        expect(view.providerSecretIds()).toContain(String(provider.secretArn).slice(1, -1));
      }
    }
  });

  it("lets exactly the functions that talk to providers read the secrets, every provider's, and nothing else of them", () => {
    for (const view of [views.demo, partnerProd, partnerDemo]) {
      const secrets = view.providerSecretIds();
      expect(secrets.length).toBeGreaterThan(0);
      const readers: string[] = [];
      for (const definition of functionsForStage(view.stage)) {
        const secretGrants = view.grantsOf(definition.name).filter((grant) => grant.startsWith('secretsmanager:'));
        expect(secretGrants, `${view.stage} ${definition.name}`).toEqual(definition.usesProviders ? sorted(secrets.map((id) => `secretsmanager:GetSecretValue ${id}`)) : []);
        if (secretGrants.length > 0) readers.push(definition.name);
      }
      expect(sorted(readers)).toEqual(
        sorted(['create-invoice', 'confirm-deposit', 'create-withdrawal', 'receive-provider-event', 'reconcile-provider-payments', 'get-checkout-provider', 'submit-checkout-utr']),
      );
    }
  });

  it('lets exactly the functions that read the stage configuration read its document, and the chain watcher alone its endpoints', () => {
    for (const view of [views.demo, views.prod, watching]) {
      for (const definition of functionsForStage(view.stage)) {
        const ssm = view.grantsOf(definition.name).filter((grant) => grant.startsWith('ssm:GetParameters ') && !Object.values(view.walletKeyParameterIds()).some((id) => grant.endsWith(` ${id}`)));
        const expected = [
          ...(readsStageConfiguration(definition) ? [`ssm:GetParameters ${view.parameterNamed('configuration')}`] : []),
          ...(watchesChains(definition) ? [`ssm:GetParameters ${view.parameterNamed('chain-endpoints')}`] : []),
        ];
        expect(ssm, `${view.stage} ${definition.name}`).toEqual(sorted(expected));
      }
    }
  });

  it('fails synthesis on providers the functions would refuse at cold start', () => {
    expect(() => new GatewayStage(projectApp(), { stage: 'demo', providers: [{ ...PSP_ONE, id: DEMO_PROVIDER_ID }] })).toThrow(
      /Invalid stage configuration: configuration\.providers: provider ids must be unique/,
    );
    const tryP2p: ProviderDeployment = { ...PSP_ONE, methods: [{ currency: 'TRY', method: 'p2p', min: '1', max: '2' }] };
    expect(() => new GatewayStage(projectApp(), { stage: 'prod', providers: [tryP2p] })).toThrow(
      /Invalid stage configuration: configuration\.providers\.0\.methods\.0\.method: is not a method of its currency/,
    );
  });
});

describe('a stage watching EVM networks, Bitcoin and Tron', () => {
  const watcher = 'watch-chain';

  it('runs the chain watcher once a minute per watched network, telling it which and to poll it until one poll interval before the next (55 s)', () => {
    const rules = watching.resources('AWS::Events::Rule').filter(([, rule]) => JSON.stringify(rule.Properties.Targets).includes(watching.functionIds().get(watcher)!));
    const byNetwork = (a: unknown[], b: unknown[]) => JSON.stringify(a).localeCompare(JSON.stringify(b));
    expect(rules.map(([, rule]) => [rule.Properties.ScheduleExpression, JSON.parse(rule.Properties.Targets[0].Input)]).sort(byNetwork)).toEqual([
      ['rate(1 minute)', { network: 'bitcoin', watchForSeconds: 55 }],
      ['rate(1 minute)', { network: 'ethereum', watchForSeconds: 55 }],
      ['rate(1 minute)', { network: 'polygon', watchForSeconds: 55 }],
      ['rate(1 minute)', { network: 'tron', watchForSeconds: 55 }],
    ]);
  });

  it("ends each watcher invocation before its network's next: its timeout leaves its last run its allowance and is no longer than the period", () => {
    const definition = FUNCTIONS.find((fn) => fn.name === watcher)!;
    if (definition.kind !== 'schedule') throw new Error(`${watcher} is not scheduled`);
    const timeout = watching.functionNamed(watcher).Properties.Timeout;
    const watchFor = chainWatchSecondsOf(definition.everySeconds, DEFAULTS.chainPollSeconds);
    expect(watchFor).toBe(55);
    expect(timeout).toBeGreaterThanOrEqual(watchFor + CHAIN_RUN_ALLOWANCE_SECONDS);
    expect(timeout).toBeLessThanOrEqual(definition.everySeconds);
  });

  it('tells the watcher alone how often to read the chain (GATEWAY_CHAIN_POLL_S)', () => {
    for (const name of watching.functionIds().keys()) {
      const variables = watching.functionNamed(name).Properties.Environment.Variables;
      if (name === watcher) expect(variables.GATEWAY_CHAIN_POLL_S).toBe(String(DEFAULTS.chainPollSeconds));
      else expect(variables, name).not.toHaveProperty('GATEWAY_CHAIN_POLL_S');
    }
  });

  it("takes each node's URL, and Tron's API key, as NoEcho parameters, into a document only the watcher reads", () => {
    for (const id of ['ChainRpcEthereum', 'ChainRpcPolygon', 'ChainRpcBitcoin', 'ChainRpcTron', 'ChainApiKeyTron']) expect(watching.json.Parameters?.[id]).toMatchObject({ Type: 'String', NoEcho: true });
    expect(watching.json.Parameters?.ChainRpcBitcoin.Description).toContain('credentials');
    expect(watching.json.Parameters?.ChainApiKeyTron.Default).toBe('');
    expect(watching.documentOf('chain-endpoints')).toEqual({
      rpc: { ethereum: '<ChainRpcEthereum>', polygon: '<ChainRpcPolygon>', bitcoin: '<ChainRpcBitcoin>', tron: '<ChainRpcTron>' },
      tronApiKey: '<ChainApiKeyTron>',
    });
    expect(watching.json.Resources[watching.parameterNamed('chain-endpoints')]!.Properties).toMatchObject({ Type: 'String', Tier: 'Intelligent-Tiering' });
    for (const name of watching.functionIds().keys()) {
      const variables = watching.functionNamed(name).Properties.Environment.Variables;
      expect(
        Object.keys(variables).filter((variable) => /^GATEWAY_(RPC|TOKENS|API_KEY)_/.test(variable)),
        name,
      ).toEqual([]);
      expect(variables.GATEWAY_CHAIN_ENDPOINTS_PARAMETER, name).toBe(name === watcher ? '/payment-gateway/demo/chain-endpoints' : undefined);
      // Which networks are watched reaches every function: invoices offer those networks.
      expect(variables.GATEWAY_WATCHED_NETWORKS).toBe('ethereum,polygon,bitcoin,tron');
    }
    // Their tokens are the stage's configuration: the checkout's payment links name them, the watcher reads their transfers.
    expect(watching.documentOf('configuration').tokens).toEqual({ ethereum: { USDT: WATCHED_TOKEN }, tron: { USDT: WATCHED_TRON_TOKEN } });
  });

  it('takes one node URL or several in order of preference, as the watcher reads them, and says so', () => {
    for (const id of ['ChainRpcEthereum', 'ChainRpcPolygon', 'ChainRpcBitcoin', 'ChainRpcTron']) {
      const parameter = watching.json.Parameters![id];
      expect(parameter.Description).toContain('or several, separated by commas, in order of preference');
      const allowed = new RegExp(parameter.AllowedPattern);
      for (const value of [
        'https://eth.example.com/v2/key-1',
        'https://eth.example.com/v2/key-1,https://eth.example.org',
        'https://user:p%2Cw@btc.example.com:8332, http://gateway:s3cret@10.0.0.1:8332',
        'https://a.example.com https://b.example.com',
      ]) {
        expect(allowed.test(value), value).toBe(true);
        expect(() => parseChainsConfig('demo', { GATEWAY_RPC_ETHEREUM: value }), value).not.toThrow();
      }
      // Nothing that would end its string in the watcher's JSON document: URL syntax writes a quote or a backslash percent-encoded.
      for (const value of ['', 'eth.example.com', 'https://a.example.com,ftp://b.example.com', 'https://a.example.com,,wss://b', 'https://a.example.com/"x', 'https://a.example.com/\\x']) {
        expect(allowed.test(value), value).toBe(false);
      }
    }
  });

  it('alarms per watched network when every run for 5 minutes found each of its RPC endpoints failing, and not where none is watched', () => {
    const alarms = watching.resources('AWS::CloudWatch::Alarm').filter(([, alarm]) => alarm.Properties.MetricName === CHAIN_RPC_METRICS.allFailed.name);
    expect(alarms.map(([id]) => id.replace(/[0-9A-F]{8}$/, '')).sort()).toEqual([
      'ChainRpcBitcoinAllFailedAlarm',
      'ChainRpcEthereumAllFailedAlarm',
      'ChainRpcPolygonAllFailedAlarm',
      'ChainRpcTronAllFailedAlarm',
    ]);
    const bitcoin = alarms.find(([id]) => id.startsWith('ChainRpcBitcoin'))![1].Properties;
    expect(bitcoin).toMatchObject({
      Namespace: 'PaymentGateway',
      MetricName: 'ChainRpcAllFailed',
      Dimensions: [
        { Name: 'network', Value: 'bitcoin' },
        { Name: 'service', Value: 'payment-gateway' },
        { Name: 'stage', Value: 'demo' },
      ],
      Statistic: 'Minimum',
      Period: 300,
      EvaluationPeriods: 1,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
      AlarmActions: [{ Ref: watching.json.Outputs.AlarmTopicArn.Value.Ref }],
    });
    expect(bitcoin.AlarmDescription).toContain('Every RPC endpoint of bitcoin failed');
    expect(views.demo.resources('AWS::CloudWatch::Alarm').filter(([, alarm]) => alarm.Properties.MetricName === CHAIN_RPC_METRICS.allFailed.name)).toEqual([]);
  });

  it('refuses a token contract written for another family, as the functions would', () => {
    expect(() => new GatewayStage(projectApp(), { stage: 'demo', watchedNetworks: { tron: { tokens: { USDT: WATCHED_TOKEN } } } })).toThrow(
      /Invalid stage configuration: configuration\.tokens\.tron\.USDT: must be a base58check T… address/,
    );
  });

  it('reserves one watcher instance per watched network, so that no network waits on another; the other functions keep their ceilings', () => {
    expect(watching.functionNamed(watcher).Properties.ReservedConcurrentExecutions).toBe(4);
    for (const definition of functionsForStage('demo').filter((f) => f.name !== watcher)) {
      expect(watching.functionNamed(definition.name).Properties.ReservedConcurrentExecutions, definition.name).toBe(views.demo.functionNamed(definition.name).Properties.ReservedConcurrentExecutions);
    }
    const total = watching.resources('AWS::Lambda::Function').reduce((sum, [, fn]) => sum + (fn.Properties.ReservedConcurrentExecutions ?? 0), 0);
    expect(total).toBeLessThanOrEqual(CONCURRENCY.stageBudget);
  });

  it('grants every function exactly what its route-table entry derives, the watcher included', () => {
    for (const definition of functionsForStage('demo')) expect(watching.grantsOf(definition.name), definition.name).toEqual(watching.derivedGrants(definition));
    // The chain table by key and its held index; the owners of many addresses in one batch read.
    expect(watching.grantsOf(watcher)).toEqual(
      expect.arrayContaining([
        `dynamodb:PutItem ${watching.tableId('chain')}`,
        `dynamodb:Query ${watching.tableId('chain')}/index/held`,
        `dynamodb:Query ${watching.tableId('transactions')}/index/pendingOnChain`,
        `dynamodb:Query ${watching.tableId('invoices')}/index/byCustomer`,
        `dynamodb:BatchGetItem ${watching.tableId('wallets')}`,
      ]),
    );
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
      // Besides them, in demo only: CDK's handler that empties the receipts buckets when the stack
      // goes, and the demo provider's two functions.
      const others = v()
        .resources('AWS::Lambda::Function')
        .filter(([, fn]) => !routeTableNames.has(fn.Properties.Description));
      expect(sorted(others.map(([id]) => id))).toEqual(
        stage === 'demo' ? [expect.stringMatching(/^CustomS3AutoDeleteObjects/), expect.stringMatching(/^DemoProviderHttpFunction/), expect.stringMatching(/^DemoProviderQueueFunction/)] : [],
      );
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
      // Deployed, callbacks reach public addresses only: the setting that lifts that is the local runtime's alone.
      expect(variables.GATEWAY_CALLBACK_TARGETS).toBeUndefined();
      expect(JSON.stringify(variables.PUBLIC_BASE_URL)).toContain('.execute-api.');
      // The keys themselves never; the names of their parameters only where addresses are derived.
      const parameters = v().walletKeyParameterIds();
      for (const family of WALLET_FAMILIES) {
        expect(variables[`WALLET_${family.toUpperCase()}_XPUB`]).toBeUndefined();
        expect(variables[`WALLET_${family.toUpperCase()}_XPUB_PARAMETER`]).toEqual(definition.readsWalletKeys ? { Ref: parameters[family] } : undefined);
      }
      // Every table's name, but a table named where granted only (Lambda's 4 KB) goes to its grantees alone.
      const granted = new Set(tableGrantsOf(definition).map(({ table }) => table));
      for (const key of TABLE_KEYS) expect(variables[tableEnvVar(key)], key).toEqual(namedEverywhere(key) || granted.has(key) ? { Ref: v().tableId(key) } : undefined);
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
      // Real time in AWS: only tests compress the retry schedule. How long the demo provider takes
      // to decide is its own setting, no longer the gateway's.
      expect(variables).toMatchObject({ GATEWAY_RETRY_SCALE: '1' });
      expect(variables.GATEWAY_PROVIDER_DELAY_S).toBeUndefined();
      // The vault's names only where the route table says it is used: the key to seal or open, the
      // bucket to store receipts or to send one again to a provider.
      const { key, bucket } = v().vaultIds();
      if (usesVaultKey(definition)) expect(variables.VAULT_KMS_KEY_ID).toEqual({ 'Fn::GetAtt': [key, 'Arn'] });
      else expect(variables.VAULT_KMS_KEY_ID).toBeUndefined();
      if (definition.usesVault || definition.resendsProviderRequests) expect(variables.RECEIPTS_BUCKET).toEqual({ Ref: bucket });
      else expect(variables.RECEIPTS_BUCKET).toBeUndefined();
      // The reports bucket's name only where report files are written or linked to.
      if (definition.reportFiles) expect(variables.REPORTS_BUCKET).toEqual({ Ref: v().reportsBucketId() });
      else expect(variables.REPORTS_BUCKET).toBeUndefined();
      // The stage's configuration by the name of its parameter, where it is read; the providers never in the environment.
      expect(variables.GATEWAY_STAGE_CONFIGURATION_PARAMETER).toBe(readsStageConfiguration(definition) ? `/payment-gateway/${stage}/configuration` : undefined);
      expect(variables.GATEWAY_PROVIDERS).toBeUndefined();
    });

    it('writes each function to its own log group', () => {
      const logGroups = definitions.map((f) => v().functionNamed(f.name).Properties.LoggingConfig.LogGroup.Ref);
      expect(new Set(logGroups).size).toBe(definitions.length);
    });
  });

  describe('least privilege', () => {
    // One check over every function: its policy is exactly what its entry derives, nothing else.
    it.each(definitions.map((f) => [f.name, f] as const))("%s: its policy grants exactly what its route-table entry derives, and no wildcard but X-Ray's", (name, definition) => {
      const statements = v().statementsOf(name);
      for (const statement of statements) {
        expect(statement).toMatchObject({ Effect: 'Allow' });
        expect(
          actionsOf(statement).filter((action) => action.includes('*')),
          JSON.stringify(statement),
        ).toEqual([]);
        // Tracing is the one grant on every resource: X-Ray takes no resource-level permissions.
        if ([statement.Resource].flat().includes('*')) expect(actionsOf(statement).filter((action) => !action.startsWith('xray:'))).toEqual([]);
      }
      expect(v().grantsOf(name)).toEqual(v().derivedGrants(definition));
    });

    it.each(definitions.map((f) => [f.name, f] as const))('%s: has its own role, with no managed policy', (name) => {
      const roleId = v().functionNamed(name).Properties.Role['Fn::GetAtt'][0];
      expect(v().json.Resources[roleId]!.Properties.ManagedPolicyArns).toBeUndefined();
      const others = v()
        .resources('AWS::Lambda::Function')
        .filter(([, fn]) => fn.Properties.Description !== name && refersTo(fn.Properties.Role, roleId));
      expect(others).toEqual([]);
    });

    it.each(definitions.map((f) => [f.name, f] as const))('%s: is named in the vault key policy with the actions its entry says, and only there', (name, definition) => {
      const named = v().keyStatementsOf(name);
      // Sealing (card numbers, receipts under SSE-KMS, a rotated callback secret) generates data keys;
      // opening a callback secret, or a sealed card number or a receipt to send again to a provider, decrypts one.
      const opens = definition.opensCallbackSecrets || definition.resendsProviderRequests;
      const expected = [...(definition.usesVault || definition.sealsCallbackSecrets ? ['kms:GenerateDataKey'] : []), ...(opens ? ['kms:Decrypt'] : [])];
      expect(sorted(named.flatMap(actionsOf))).toEqual(sorted(expected));
      // Named by its role's ARN in the condition, as the role is another stack's (infra/aws/gateway-data.ts says why).
      for (const statement of named) expect(statement).toMatchObject({ Effect: 'Allow', Principal: { AWS: '*' }, Resource: '*' });
    });

    it('lets create-invoice, which derives addresses, read the wallet keys', () => {
      expect(definitions.filter((f) => f.readsWalletKeys).map((f) => f.name)).toContain('create-invoice');
    });

    it('lets send-callback consume the callbacks queue, park in the dead-letter queue, write the outbox, read merchants and pause their callbacks, open callback secrets, and nothing else', () => {
      const { queue, deadLetter } = v().queueIds();
      const queues = v().queueActionsOf('send-callback');
      // Its retry schedule is ChangeMessageVisibility on the message it received.
      expect(queues.get(queue)).toContain('sqs:ChangeMessageVisibility');
      expect(queues).toEqual(
        new Map([
          [queue, sorted([...SQS_CONSUME, SQS_DELAY])],
          [deadLetter, sorted(SQS_SEND)],
        ]),
      );

      const granted = v().tableActionsOf('send-callback');
      expect(sorted(granted.keys())).toEqual(['merchants', 'outbox']);
      // Reads an entry and records each attempt on it; it never writes a new one.
      expect(sorted(granted.get('outbox')!)).toEqual(['dynamodb:GetItem', 'dynamodb:UpdateItem']);
      // Reads the merchant (its URL and the pause of its deliveries) and updates the pause on it; it never writes a merchant.
      expect(sorted(granted.get('merchants')!)).toEqual(['dynamodb:GetItem', 'dynamodb:UpdateItem']);

      const logGroup = v().functionNamed('send-callback').Properties.LoggingConfig.LogGroup.Ref;
      const allowed = [queue, deadLetter, v().tableId('outbox'), v().tableId('merchants'), logGroup];
      for (const statement of v().statementsOf('send-callback')) {
        const resources = [statement.Resource].flat();
        if (!resources.includes('*'))
          for (const resource of resources)
            expect(
              allowed.some((id) => refersTo(resource, id)),
              JSON.stringify(resource),
            ).toBe(true);
      }
    });

    it('lets get-invoice read invoices by key and nothing else', () => {
      expect(v().tableActionsOf('get-invoice')).toEqual(new Map([['invoices', new Set(['dynamodb:GetItem'])]]));
    });

    it('lets the authorizer read API keys by key and record their last use, and nothing else', () => {
      expect(v().tableActionsOf('authorize-merchant')).toEqual(new Map([['apiKeys', new Set(['dynamodb:GetItem', 'dynamodb:UpdateItem'])]]));
    });

    // test/infra/api-key-functions.test.ts flags a route to check what such a function is granted and given.
    it('lets only the functions that manage API keys reach API Gateway, and keeps the usage plan id for them in SSM only if there are any', () => {
      const managing = definitions.filter((f) => f.managesApiKeys).map((f) => f.name);
      for (const { name } of definitions) {
        const reachesApiGateway = v()
          .statementsOf(name)
          .some((statement) => actionsOf(statement).some((action) => action.startsWith('apigateway:')));
        expect(reachesApiGateway, name).toBe(managing.includes(name));
      }
      const parameters = v()
        .resources('AWS::SSM::Parameter')
        .filter(([, p]) => p.Properties.Name === `/payment-gateway/${stage}/usage-plan-id`);
      expect(parameters).toHaveLength(managing.length > 0 ? 1 : 0);
    });

    it('grants no function a Scan or any index it does not query', () => {
      for (const { name } of definitions) {
        const actions = v().statementsOf(name).flatMap(actionsOf);
        expect(
          actions.filter((action) => /^dynamodb:(Scan|BatchWriteItem|DescribeTable|GetRecords|GetShardIterator|PartiQL)/.test(action)),
          name,
        ).toEqual([]);
      }
      const queriers = definitions
        .filter((f) =>
          v()
            .statementsOf(f.name)
            .some((st) => actionsOf(st).includes('dynamodb:Query')),
        )
        .map((f) => f.name);
      expect(sorted(queriers)).toEqual(sorted(definitions.filter((f) => Object.keys(f.queries ?? {}).length > 0).map((f) => f.name)));
    });

    it("grants deletes only where items are given up: idempotency records of failed requests, a chain deposit's claim, a held transfer, a rejected UTR's claim, a taken invitation, an ended session, a removed dashboard user", () => {
      const deleting = definitions.flatMap(({ name }) => [...v().tableActionsOf(name)].filter(([, actions]) => actions.has('dynamodb:DeleteItem')).map(([table]) => `${name} ${table}`));
      const idempotent = routes.filter(replaysIdempotencyKey).map((route) => `${route.name} idempotency`);
      // A provider rejects a UTR by its event, or in its answer to the reconciliation.
      const utrDecisions = ['receive-provider-event uniques', 'reconcile-provider-payments uniques'];
      const dashboard = ['submit-dashboard-form dashboardInvitations', 'submit-dashboard-form dashboardSessions', 'submit-dashboard-form dashboardUsers'];
      expect(sorted(deleting)).toEqual(sorted([...idempotent, 'watch-chain chain', 'watch-chain uniques', ...utrDecisions, ...dashboard]));
      // Batch reads only where many items are looked up at once: the owners of a range's addresses, a transaction's callbacks,
      // a merchant's balance in every currency, the entries the books check asks for.
      const batchReading = definitions.flatMap(({ name }) => [...v().tableActionsOf(name)].filter(([, actions]) => actions.has('dynamodb:BatchGetItem')).map(([table]) => `${name} ${table}`));
      // And the live prices an amount is converted at.
      const priceReaders = definitions.filter(({ tables }) => tables.rates).map(({ name }) => `${name} rates`);
      // The dashboard's pages show callbacks and balances as those routes do; its forms resend callbacks.
      const dashboardBatches = ['get-dashboard-page outbox', 'get-dashboard-page balances', 'submit-dashboard-form outbox'];
      expect(sorted(batchReading)).toEqual(
        sorted([
          'watch-chain wallets',
          'list-transaction-callbacks outbox',
          'resend-transaction-callback outbox',
          'list-invoice-callbacks outbox',
          'resend-invoice-callback outbox',
          'list-balances balances',
          'check-books balanceEntries',
          ...dashboardBatches,
          ...priceReaders,
        ]),
      );
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

  describe('concurrency', () => {
    it.each(definitions.map((f) => [f.name, f] as const))('%s: reserves the ceiling shared/platform.ts names for its kind', (name, definition) => {
      const reserved = v().functionNamed(name).Properties.ReservedConcurrentExecutions;
      // One instance per scheduled job (the chain watcher too, with no network watched): a run never overlaps its predecessor.
      // A route what its method's throttle sends it; a queue consumer and the authorizer the table-derived ceiling.
      const expected =
        definition.kind === 'schedule' ? 1 : definition.kind === 'http' ? methodThrottleOf(definition).ratePerSecond / TABLE_CAPACITY_BASIS.requestsPerInstancePerSecond : CONCURRENCY.perFunction;
      expect(reserved).toBe(expected);
      expect(reserved).toBe(reservedConcurrencyOf(definition, 0));
      expect(reserved).toBeLessThanOrEqual(CONCURRENCY.perFunction);
    });

    it('reserves for a route no more instances than its throttle keeps busy: 10 with a key (500 requests/s), 4 without (200)', () => {
      for (const route of routes) {
        const reserved = v().functionNamed(route.name).Properties.ReservedConcurrentExecutions;
        expect(reserved * TABLE_CAPACITY_BASIS.requestsPerInstancePerSecond, route.name).toBeGreaterThanOrEqual(methodThrottleOf(route).ratePerSecond);
        expect(reserved, route.name).toBe(route.auth === 'none' ? 4 : 10);
      }
    });

    it("derives the ceiling from the tables' capacity: one function can take at most half a new on-demand table's writes", () => {
      const { onDemandWriteUnitsPerSecond, writeUnitsPerRequest, requestsPerInstancePerSecond } = TABLE_CAPACITY_BASIS;
      expect(CONCURRENCY.perFunction * requestsPerInstancePerSecond * writeUnitsPerRequest).toBeLessThanOrEqual(onDemandWriteUnitsPerSecond / 2);
      expect(CONCURRENCY.perFunction).toBe(10);
    });

    it('reserves at most its budget, so two stages leave the account the 100 unreserved AWS requires out of 1,000', () => {
      const total = v()
        .resources('AWS::Lambda::Function')
        .reduce((sum, [, fn]) => sum + (fn.Properties.ReservedConcurrentExecutions ?? 0), 0);
      expect(total).toBe(definitions.reduce((sum, f) => sum + reservedConcurrencyOf(f, 0), 0));
      expect(total).toBeLessThanOrEqual(CONCURRENCY.stageBudget);
      expect(2 * CONCURRENCY.stageBudget + 100).toBeLessThanOrEqual(1000);
    });

    it.each(definitions.filter((f) => f.kind === 'schedule').map((f) => [f.name, f] as const))(
      '%s: a run that finds the previous one still going is retried for one period at most, and no run is retried after an error',
      (name, definition) => {
        const [, config] = v()
          .resources('AWS::Lambda::EventInvokeConfig')
          .find(([, c]) => refersTo(c.Properties.FunctionName, v().functionIds().get(name)!))!;
        expect(config.Properties).toMatchObject({ MaximumEventAgeInSeconds: definition.everySeconds, MaximumRetryAttempts: 0 });
      },
    );

    it.each(definitions.filter((f) => f.kind === 'queue').map((f) => [f.name, f] as const))('%s: polls with no more concurrency than it reserves', (name) => {
      const [, mapping] = v()
        .resources('AWS::Lambda::EventSourceMapping')
        .find(([, m]) => refersTo(m.Properties.FunctionName, v().functionIds().get(name)!))!;
      expect(mapping.Properties.ScalingConfig).toEqual({ MaximumConcurrency: v().functionNamed(name).Properties.ReservedConcurrentExecutions });
    });
  });

  describe('REST API', () => {
    const methodSettings = () => v().resources('AWS::ApiGateway::Stage')[0]![1].Properties.MethodSettings as Array<Record<string, any>>;

    it('names the API and its stage after the stage, traced, with metrics, access logs and execution errors, never bodies', () => {
      v().template.hasResourceProperties('AWS::ApiGateway::RestApi', {
        Name: Match.stringLikeRegexp(stage),
        ApiKeySourceType: 'AUTHORIZER',
      });
      v().template.hasResourceProperties('AWS::ApiGateway::Stage', {
        StageName: stage,
        TracingEnabled: true,
        AccessLogSetting: { DestinationArn: Match.anyValue(), Format: Match.stringLikeRegexp('\\$context.requestId') },
      });
      for (const setting of methodSettings()) expect(setting).toMatchObject({ MetricsEnabled: true, DataTraceEnabled: false, LoggingLevel: 'ERROR' });
    });

    it('keeps the execution logs in a log group of the stage, with its retention, made before the stage writes to it', () => {
      const [stageId, stageResource] = v().resources('AWS::ApiGateway::Stage')[0]!;
      const apiId = v().resources('AWS::ApiGateway::RestApi')[0]![0];
      const [logGroupId, logGroup] = v()
        .resources('AWS::Logs::LogGroup')
        .find(([, group]) => JSON.stringify(group.Properties.LogGroupName ?? '').includes('API-Gateway-Execution-Logs_'))!;
      expect(logGroup.Properties.LogGroupName).toEqual({ 'Fn::Join': ['', ['API-Gateway-Execution-Logs_', { Ref: apiId }, `/${stage}`]] });
      expect(logGroup.Properties.RetentionInDays).toBe(v().logRetentionOf('get-invoice'));
      expect([(stageResource as Resource & { DependsOn?: string[] }).DependsOn].flat()).toContain(logGroupId);
      expect(stageId).toBeTruthy();
    });

    it(`throttles every method at what its function's reserved concurrency answers: ${STAGE_METHOD_THROTTLE.ratePerSecond} requests/s`, () => {
      expect(methodSettings().find((setting) => setting.ResourcePath === '/*')).toMatchObject({
        HttpMethod: '*',
        ThrottlingRateLimit: CONCURRENCY.perFunction * TABLE_CAPACITY_BASIS.requestsPerInstancePerSecond,
        ThrottlingBurstLimit: STAGE_METHOD_THROTTLE.burst,
      });
    });

    it('throttles each route without an API key lower, per method; routes with a key keep the stage throttle and their usage plan', () => {
      const byPath = new Map(methodSettings().map((setting) => [`${setting.HttpMethod} ${setting.ResourcePath}`, setting]));
      for (const route of routes) {
        // API Gateway's encoding of a resource path: each slash as ~1, after a leading slash.
        const setting = byPath.get(`${route.method} /${route.path.replaceAll('/', '~1')}`);
        if (route.auth === 'none') {
          expect(setting, route.name).toMatchObject({ ThrottlingRateLimit: PUBLIC_ROUTE_THROTTLE.ratePerSecond, ThrottlingBurstLimit: PUBLIC_ROUTE_THROTTLE.burst });
          expect(PUBLIC_ROUTE_THROTTLE.ratePerSecond).toBeLessThan(STAGE_METHOD_THROTTLE.ratePerSecond);
        } else {
          expect(setting, route.name).toBeUndefined();
        }
      }
      expect(routes.some((route) => route.auth === 'none')).toBe(true);
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
      const [, response] = v()
        .resources('AWS::ApiGateway::GatewayResponse')
        .find(([, r]) => r.Properties.ResponseType === type)!;
      expect(response.Properties).toMatchObject({ StatusCode: String(status), ResponseTemplates: { 'application/json': envelope(code, message) } });
      // A throttled client is told when to try again; every answer carries the request id.
      expect(response.Properties.ResponseParameters).toEqual({ ...REQUEST_ID_HEADER, ...(status === 429 ? { 'gatewayresponse.header.Retry-After': "'1'" } : {}) });
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
    const bodyLimitRules = () => rules().filter((rule) => rule.Name.startsWith('body-over-'));
    const rulesFor = (method: string, uriPath: string) => bodyLimitRules().filter((rule) => shapeOf(rule).routes.some((r) => r.method === method && r.path.test(uriPath)));
    const managedGroups = () => rules().filter((rule) => rule.Statement.ManagedRuleGroupStatement);
    const rateRule = (name = 'public-requests-per-address') => rules().find((rule) => rule.Name === name && rule.Statement.RateBasedStatement)!;
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

    it('answers with the 413 and 429 envelopes the gateway itself renders', () => {
      expect(webAcl().Properties.CustomResponseBodies).toEqual({
        'payload-too-large': { ContentType: 'APPLICATION_JSON', Content: envelope('payload_too_large', 'Request body too large') },
        'too-many-requests': { ContentType: 'APPLICATION_JSON', Content: envelope('too_many_requests', 'Too many requests') },
      });
    });

    it('has one rule per body limit of the route table; every rule has metrics under its name', () => {
      expect(bodyLimitRules()).toHaveLength(new Set(routes.map(maxBodyBytesOf)).size);
      for (const rule of rules()) expect((rule as Rule & { VisibilityConfig: unknown }).VisibilityConfig).toMatchObject({ CloudWatchMetricsEnabled: true, MetricName: rule.Name });
    });

    it('evaluates the body limits first, then the per-address rates (public routes, provider events, dashboard sign-ins), then the managed rule groups, in consecutive priorities', () => {
      const ordered = [...rules()].sort((a, b) => (a as Rule & { Priority: number }).Priority - (b as Rule & { Priority: number }).Priority);
      expect(ordered.map((rule) => (rule as Rule & { Priority: number }).Priority)).toEqual(ordered.map((_, i) => i));
      expect(ordered.map((rule) => rule.Name)).toEqual([
        ...bodyLimitRules().map((rule) => rule.Name),
        'public-requests-per-address',
        'provider-events-per-address',
        'dashboard-sign-ins-per-address',
        'AWSManagedRulesCommonRuleSet',
        'AWSManagedRulesKnownBadInputsRuleSet',
      ]);
    });

    it(`refuses an address past ${PUBLIC_ROUTE_THROTTLE.perAddress.requests} requests in ${PUBLIC_ROUTE_THROTTLE.perAddress.windowSeconds} s to the routes without a key, providers' aside, with the 429 envelope`, () => {
      const { RateBasedStatement: rate } = rateRule().Statement;
      expect(rate).toMatchObject({ Limit: 1500, EvaluationWindowSec: 300, AggregateKeyType: 'IP' });
      expect(rateRule().Action).toEqual({ Block: { CustomResponse: { ResponseCode: 429, CustomResponseBodyKey: 'too-many-requests' } } });
      expect(rate.ScopeDownStatement.RegexMatchStatement.FieldToMatch).toEqual({ UriPath: {} });
      const scope = new RegExp(rate.ScopeDownStatement.RegexMatchStatement.RegexString);
      // Merchants' servers call many times a second with a key: the usage plan limits them per key
      // instead. Providers' events have a rule of their own, below.
      for (const route of routes) {
        for (const uriPath of [concretePath(route), `/${stage}${concretePath(route)}`]) {
          expect(scope.test(uriPath), `${route.name} ${uriPath}`).toBe(route.auth === 'none' && !route.calledByProviders);
        }
      }
      expect(scope.test('/api/v2/providers/psp-one/events')).toBe(false);
    });

    it(`refuses an address past ${PROVIDER_EVENTS_THROTTLE.perAddress.requests} requests in ${PROVIDER_EVENTS_THROTTLE.perAddress.windowSeconds} s to the route providers send events to, and to nothing else, with the 429 envelope`, () => {
      const eventRoutes = routes.filter((route) => route.calledByProviders);
      expect(eventRoutes.map((route) => `${route.method} ${route.path}`)).toEqual(['POST /api/v2/providers/{providerId}/events']);
      const rule = rateRule('provider-events-per-address');
      const { RateBasedStatement: rate } = rule.Statement;
      expect(rate).toMatchObject({ Limit: PROVIDER_EVENTS_THROTTLE.perAddress.requests, EvaluationWindowSec: PROVIDER_EVENTS_THROTTLE.perAddress.windowSeconds, AggregateKeyType: 'IP' });
      expect(rule.Action).toEqual({ Block: { CustomResponse: { ResponseCode: 429, CustomResponseBodyKey: 'too-many-requests' } } });
      expect(rate.ScopeDownStatement.RegexMatchStatement.FieldToMatch).toEqual({ UriPath: {} });
      const scope = new RegExp(rate.ScopeDownStatement.RegexMatchStatement.RegexString);
      for (const route of routes) {
        for (const uriPath of [concretePath(route), `/${stage}${concretePath(route)}`, `${concretePath(route)}/`]) {
          expect(scope.test(uriPath), `${route.name} ${uriPath}`).toBe(route.calledByProviders === true);
        }
      }
      for (const uriPath of ['/api/v2/providers/psp-one/events', `/${stage}/api/v2/providers/demo/events`]) expect(scope.test(uriPath), uriPath).toBe(true);
      for (const uriPath of ['/api/v2/providers/events', '/api/v2/providers/a/b/events', '/api/v2/providers/psp-one/events/x', '/demo-provider/payments']) expect(scope.test(uriPath), uriPath).toBe(false);
    });

    it("runs AWS's common and known-bad-inputs rule groups, counting only the body-size and missing User-Agent rules", () => {
      expect(managedGroups().map((rule) => [rule.Statement.ManagedRuleGroupStatement.VendorName, rule.Statement.ManagedRuleGroupStatement.Name])).toEqual([
        ['AWS', 'AWSManagedRulesCommonRuleSet'],
        ['AWS', 'AWSManagedRulesKnownBadInputsRuleSet'],
      ]);
      for (const rule of managedGroups()) expect((rule as Rule & { OverrideAction: unknown }).OverrideAction).toEqual({ None: {} });
      const [common, knownBad] = managedGroups().map((rule) => rule.Statement.ManagedRuleGroupStatement);
      // Receipts are megabytes: the body-limit rules above hold each route to its own limit.
      expect(common.RuleActionOverrides).toEqual([
        { Name: 'SizeRestrictions_BODY', ActionToUse: { Count: {} } },
        { Name: 'NoUserAgent_HEADER', ActionToUse: { Count: {} } },
      ]);
      expect(knownBad.RuleActionOverrides).toBeUndefined();
    });

    it('plots allowed and blocked requests, and what each rule blocked, on the dashboard', () => {
      const aclName = webAcl().Properties.Name;
      expect(aclName).toBe(`payment-gateway-${stage}`);
      expect(webAcl().Properties.VisibilityConfig.MetricName).toBe(aclName);
      const plotted = v()
        .dashboardMetrics()
        .filter(({ namespace }) => namespace === 'AWS/WAFV2')
        .map(({ metric, dimensions }) => {
          expect(dimensions).toMatchObject({ WebACL: aclName, Region: expect.any(String) });
          return `${metric} ${dimensions.Rule}`;
        });
      expect(sorted(plotted)).toEqual(sorted(['AllowedRequests ALL', 'BlockedRequests ALL', ...rules().map((rule) => `BlockedRequests ${rule.Name}`)]));
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

  describe.each(queuesOf(stage).map(([name, queue]) => [queue.name, name, queue] as const))('%s queue', (_, queueName, definition) => {
    const queues = () => v().queueIds(queueName);
    const consumers = definitions.filter((f): f is QueueFunction => f.kind === 'queue' && f.queue === queueName);
    const mappingOf = (name: string) => {
      const functionId = v().functionIds().get(name);
      const mappings = v()
        .resources('AWS::Lambda::EventSourceMapping')
        .filter(([, m]) => refersTo(m.Properties.FunctionName, functionId!));
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
      // Its queue's own batching window: none where a message should not wait for others to fill a batch.
      expect(mappingOf(name).MaximumBatchingWindowInSeconds ?? 0).toBe(definition.batchingWindowSeconds);
    });

    it.each(consumers.map((f) => [f.name] as const))('%s: the queue hides a message for six of its timeouts plus the batching window', (name) => {
      const mapping = mappingOf(name);
      const queue = v().json.Resources[mapping.EventSourceArn['Fn::GetAtt'][0]]!.Properties;
      const requiredSeconds = 6 * v().functionNamed(name).Properties.Timeout + (mapping.MaximumBatchingWindowInSeconds ?? 0);
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
            Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Action: 'sqs:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]),
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
      return v()
        .resources('AWS::Lambda::EventSourceMapping')
        .find(([, m]) => refersTo(m.Properties.FunctionName, functionId!))![1].Properties;
    };

    it("feeds send-callback 10 messages at a time; one event source per queue function of the stage, and the demo provider's in demo", () => {
      expect(mappingOf('send-callback')).toMatchObject({ EventSourceArn: { 'Fn::GetAtt': [queues().queue, 'Arn'] }, BatchSize: 10 });
      v().template.resourceCountIs('AWS::Lambda::EventSourceMapping', definitions.filter((f) => f.kind === 'queue').length + (stage === 'demo' ? 1 : 0));
    });

    it("waits for no batch to fill: a merchant's callback goes as soon as it is queued", () => {
      expect(mappingOf('send-callback').MaximumBatchingWindowInSeconds ?? 0).toBe(0);
    });

    it("has a visibility timeout of 180 s: six times send-callback's 30 s, with no batching window", () => {
      expect(v().json.Resources[queues().queue]!.Properties.VisibilityTimeout).toBe(180);
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

  describe('schedules', () => {
    // The chain watcher's rules come with the networks a stage watches, the rates schedule with
    // live rates, prod's default (both below).
    const scheduled = definitions.flatMap((f) => (f.kind === 'schedule' && !f.perNetwork && (stage === 'prod' || !f.onlyWithLiveRates) ? [f] : []));

    /** EventBridge's rate of a period, in the largest whole unit, as CDK writes it. */
    const rateOf = (seconds: number) => {
      const [amount, unit] = seconds % 86_400 === 0 ? [seconds / 86_400, 'day'] : seconds % 3600 === 0 ? [seconds / 3600, 'hour'] : [seconds / 60, 'minute'];
      return `rate(${amount} ${unit}${amount === 1 ? '' : 's'})`;
    };

    it.each(scheduled.map((f) => [f.name, f] as const))('%s runs on its EventBridge rate', (name, definition) => {
      v().template.hasResourceProperties('AWS::Events::Rule', {
        ScheduleExpression: rateOf(definition.everySeconds),
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

    it('runs reconcile-provider-payments every 5 minutes, one run at a time, reading what waits on a provider by its indexes', () => {
      const functionId = v().functionIds().get('reconcile-provider-payments')!;
      const rules = v()
        .resources('AWS::Events::Rule')
        .filter(([, rule]) => refersTo(rule.Properties.Targets, functionId));
      expect(rules.map(([, rule]) => rule.Properties)).toEqual([
        expect.objectContaining({ ScheduleExpression: 'rate(5 minutes)', State: 'ENABLED', Targets: [expect.objectContaining({ Arn: { 'Fn::GetAtt': [functionId, 'Arn'] } })] }),
      ]);
      // EventBridge may invoke it.
      v().template.hasResourceProperties('AWS::Lambda::Permission', {
        Action: 'lambda:InvokeFunction',
        FunctionName: { 'Fn::GetAtt': [functionId, 'Arn'] },
        Principal: 'events.amazonaws.com',
        SourceArn: { 'Fn::GetAtt': [rules[0]![0], 'Arn'] },
      });
      expect(v().functionNamed('reconcile-provider-payments').Properties).toMatchObject({ Timeout: 300, ReservedConcurrentExecutions: 1 });
      expect(v().grantsOf('reconcile-provider-payments')).toEqual(
        expect.arrayContaining([`dynamodb:Query ${v().tableId('invoices')}/index/awaitingProvider`, `dynamodb:Query ${v().tableId('transactions')}/index/awaitingProvider`]),
      );
      expect(v().queueActionsOf('reconcile-provider-payments')).toEqual(new Map([[v().queueIds().queue, sorted(SQS_SEND)]]));
    });

    it('runs publish-callbacks every minute, with the outbox and the callbacks queue and nothing more', () => {
      v().template.hasResourceProperties('AWS::Events::Rule', {
        ScheduleExpression: 'rate(1 minute)',
        Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [v().functionIds().get('publish-callbacks'), 'Arn'] } })],
      });
      const granted = v().tableActionsOf('publish-callbacks');
      expect([...granted.keys()]).toEqual(['outbox']);
      // Reads the sparse index of unpublished entries and marks each published; never scans the table.
      expect(v().grantsOf('publish-callbacks')).toContain(`dynamodb:Query ${v().tableId('outbox')}/index/unpublished`);
      expect([...granted.get('outbox')!]).toContain('dynamodb:UpdateItem');
      expect([...granted.get('outbox')!].filter((action) => /Scan|Delete/.test(action))).toEqual([]);
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
      // Plus the authorizer's throttles and latency, prod's stale-rates alarm (prod prices live), the overdue provider
      // transactions', the books' differences, and in demo the demo provider's two functions' errors and its dead-letter queue's.
      v().template.resourceCountIs('AWS::CloudWatch::Alarm', definitions.length + 2 + queuesOf(stage).length + 2 + (stage === 'prod' ? 1 : 0) + 1 + 1 + (stage === 'demo' ? 3 : 0));
    });

    it('alarms when a provider transaction has been processing over a day, as the reconciliation counts them', () => {
      const overdue = v()
        .resources('AWS::CloudWatch::Alarm')
        .filter(([, alarm]) => alarm.Properties.MetricName === BUSINESS_METRICS.providerOverdue.name);
      expect(overdue.map(([id]) => id)).toEqual([expect.stringMatching(/^ProviderTransactionsOverdueAlarm/)]);
      expect(overdue[0]![1].Properties).toMatchObject({
        Namespace: 'PaymentGateway',
        MetricName: 'ProviderTransactionsOverdue',
        Dimensions: [
          { Name: 'service', Value: 'payment-gateway' },
          { Name: 'stage', Value: stage },
        ],
        Statistic: 'Maximum',
        Period: 300,
        EvaluationPeriods: 1,
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
        AlarmActions: [{ Ref: v().json.Outputs.AlarmTopicArn.Value.Ref }],
      });
    });

    it('alarms when an hourly books check finds a difference, and leaves a check that failed to the errors alarm of check-books', () => {
      const differences = v()
        .resources('AWS::CloudWatch::Alarm')
        .filter(([, alarm]) => alarm.Properties.MetricName === BUSINESS_METRICS.booksDifferences.name);
      expect(differences.map(([id]) => id)).toEqual([expect.stringMatching(/^BooksDifferencesAlarm/)]);
      expect(differences[0]![1].Properties).toMatchObject({
        Namespace: 'PaymentGateway',
        MetricName: 'BooksDifferences',
        Dimensions: [
          { Name: 'service', Value: 'payment-gateway' },
          { Name: 'stage', Value: stage },
        ],
        Statistic: 'Maximum',
        Period: 3600,
        EvaluationPeriods: 1,
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        TreatMissingData: 'notBreaching',
        AlarmActions: [{ Ref: v().json.Outputs.AlarmTopicArn.Value.Ref }],
        OKActions: [{ Ref: v().json.Outputs.AlarmTopicArn.Value.Ref }],
      });
      // Whoever gets the mail learns that payouts stay held after the alarm clears, and how to release them.
      expect(differences[0]![1].Properties.AlarmDescription).toContain('payouts are held (withdrawals answer 423 locked) until an operator clears the hold, also once the alarm clears');
      expect(differences[0]![1].Properties.AlarmDescription).toContain('npm run merchant -- clear-books-hold --merchant ID --reason TEXT');
      // The check's period is the alarm's: one report per run.
      expect((FUNCTIONS.find((f) => f.name === 'check-books') as { everySeconds: number }).everySeconds).toBe(3600);
      v().template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/Lambda',
        MetricName: 'Errors',
        Dimensions: [{ Name: 'FunctionName', Value: { Ref: v().functionIds().get('check-books') } }],
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      });
    });

    it("plots the books check's differences hourly, marked where they alarm", () => {
      const parts = v().resources('AWS::CloudWatch::Dashboard')[0]![1].Properties.DashboardBody['Fn::Join'][1] as unknown[];
      const body = JSON.parse(parts.map((part) => (typeof part === 'string' ? part : '<ref>')).join('')) as {
        widgets: Array<{ properties: { title?: string; metrics?: unknown[][]; annotations?: { horizontal?: Array<{ value: number }> } } }>;
      };
      const widget = body.widgets.find(({ properties }) => properties.metrics?.some((line) => line.includes('BooksDifferences')))!;
      expect(widget.properties.title).toBe('Differences found by the books check');
      expect(widget.properties.metrics).toEqual([['PaymentGateway', 'BooksDifferences', 'service', 'payment-gateway', 'stage', stage, { label: 'Differences', period: 3600, stat: 'Maximum' }]]);
      expect(widget.properties.annotations?.horizontal).toEqual([expect.objectContaining({ value: 1 })]);
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
      const subscriptions = v()
        .resources('AWS::SNS::Subscription')
        .map(([, subscription]) => subscription.Properties);
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
        'ReportQueueUrl',
        'ReportDlqUrl',
        'ReportQueueArn',
        'ReportDlqArn',
        'ReportsBucketName',
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

describe("the operations guide's concurrency figures", () => {
  const guide = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
  const reservedBy = (view: StackView) => view.resources('AWS::Lambda::Function').reduce((sum, [, fn]) => sum + (fn.Properties.ReservedConcurrentExecutions ?? 0), 0);
  const figure = (pattern: RegExp) => Number(pattern.exec(guide)?.[1]?.replace(',', ''));
  /** What a stage watching every network reserves: one watcher instance a network. */
  const watchingEvery = (stage: Stage) => reservedBy(views[stage]) + CRYPTO_NETWORKS.length - 1;

  it('are what the templates reserve, so that an operator who sizes the account from them can deploy both stages', () => {
    expect(figure(/A prod stage reserves (\d+) and a demo stage \d+/)).toBe(reservedBy(views.prod));
    expect(figure(/A prod stage reserves \d+ and a demo stage (\d+)/)).toBe(reservedBy(views.demo));
    expect(figure(/reserves (\d+), a demo stage \d+ \(\[Prerequisites\]/)).toBe(reservedBy(views.prod));
    expect(figure(/a demo stage (\d+) \(\[Prerequisites\]/)).toBe(reservedBy(views.demo));
    // Each network watched beyond the first adds its own instance of the watcher.
    expect(reservedBy(watching) - reservedBy(views.demo)).toBe(Object.keys(watching.documentOf('chain-endpoints').rpc).length - 1);
    expect(figure(/both stages in one account take ([\d,]+) of it/)).toBe(reservedBy(views.prod) + reservedBy(views.demo) + 100);
    expect(figure(/or ([\d,]+) watching every network/)).toBe(watchingEvery('prod') + watchingEvery('demo') + 100);
  });

  it(`are within the budget of ${CONCURRENCY.stageBudget} a stage, which leaves room for ${CONCURRENCY.roomForRoutes} more routes with a key watching every network, two of them and AWS's 100 within the usual 1,000`, () => {
    expect(figure(/within a budget of (\d+)/)).toBe(CONCURRENCY.stageBudget);
    expect(guide).toContain(`leaves room for ${['', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'][CONCURRENCY.roomForRoutes]} more routes with a key`);
    for (const stage of STAGES) expect(watchingEvery(stage) + CONCURRENCY.roomForRoutes * CONCURRENCY.perFunction, stage).toBeLessThanOrEqual(CONCURRENCY.stageBudget);
    expect(2 * CONCURRENCY.stageBudget + 100).toBeLessThanOrEqual(1000);
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

  // docs/merchant-guide.md#the-demo-environment-and-the-simulation-api: the simulation API exists in demo and not at all in prod.
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
    // The demo provider's table too.
    for (const [id, table] of views.demo.resources('AWS::DynamoDB::Table')) {
      expect(table, id).toMatchObject({ DeletionPolicy: 'Delete' });
      expect(table.Properties.DeletionProtectionEnabled ?? false, id).toBe(false);
    }
    for (const [, logGroup] of views.prod.resources('AWS::Logs::LogGroup')) expect(logGroup.DeletionPolicy).toBe('Retain');
    for (const stack of views.prod.gatewayStage.stacks) expect(stack.terminationProtection, stack.stackName).toBe(true);
    for (const stack of views.demo.gatewayStage.stacks) expect(stack.terminationProtection, stack.stackName).toBe(false);
  });

  it('retains the prod vault key, buckets and queues (parked callbacks wait for an operator); demo empties and deletes them with its stack', () => {
    const kept = (view: StackView) => [...view.resources('AWS::KMS::Key'), ...view.resources('AWS::S3::Bucket'), ...view.resources('AWS::SQS::Queue')];
    expect(kept(views.prod).map(([, resource]) => resource.Type)).toEqual(expect.arrayContaining(['AWS::KMS::Key', 'AWS::S3::Bucket', 'AWS::SQS::Queue']));
    for (const [id, resource] of kept(views.prod)) expect(resource, id).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    views.prod.template.resourceCountIs('Custom::S3AutoDeleteObjects', 0);
    for (const [id, resource] of kept(views.demo)) expect(resource, id).toMatchObject({ DeletionPolicy: 'Delete' });
    for (const [bucketId] of views.demo.resources('AWS::S3::Bucket')) views.demo.template.hasResourceProperties('Custom::S3AutoDeleteObjects', { BucketName: { Ref: bucketId } });
  });

  it("has the callbacks and reports queues, each with its dead-letter queue, in both stages, and the demo provider's queue and dead-letter queue in demo only", () => {
    expect(Object.keys(QUEUES)).toEqual(['callbacks', 'reports']);
    for (const stage of STAGES) expect(queuesOf(stage).map(([name]) => name)).toEqual(['callbacks', 'reports']);
    const demoProviderQueues = views.demo.resources('AWS::SQS::Queue').filter(([id]) => id.startsWith('DemoProvider'));
    expect(sorted(demoProviderQueues.map(([id]) => id))).toEqual([expect.stringMatching(/^DemoProviderDeadLetterQueue/), expect.stringMatching(/^DemoProviderQueue/)]);
    views.demo.template.resourceCountIs('AWS::SQS::Queue', 6);
    views.prod.template.resourceCountIs('AWS::SQS::Queue', 4);
    for (const view of [views.demo, views.prod]) expect(Object.keys(view.json.Outputs).filter((id) => id.startsWith('FiatDecision'))).toEqual([]);
    // What an operator redrives the demo provider's jobs with, under stable names.
    const [deadLetterId, queueId] = sorted(demoProviderQueues.map(([id]) => id));
    expect(views.demo.json.Outputs.DemoProviderDlqArn.Value).toEqual({ 'Fn::GetAtt': [deadLetterId, 'Arn'] });
    expect(views.demo.json.Outputs.DemoProviderQueueArn.Value).toEqual({ 'Fn::GetAtt': [queueId, 'Arn'] });
    expect(views.demo.json.Outputs.DemoProviderUrl).toBeDefined();
    expect(Object.keys(views.prod.json.Outputs).filter((id) => id.startsWith('DemoProvider'))).toEqual([]);
  });

  it("hands a UTR to its provider over HTTP: confirm-deposit and the checkout's UTR form send to no queue", () => {
    for (const view of [views.demo, views.prod, partnerProd]) {
      for (const name of ['confirm-deposit', 'submit-checkout-utr']) {
        expect(view.queueActionsOf(name), `${view.stage} ${name}`).toEqual(new Map());
        expect(view.grantsOf(name), `${view.stage} ${name}`).toEqual(expect.arrayContaining(view.providerSecretIds().map((id) => `secretsmanager:GetSecretValue ${id}`)));
      }
    }
  });

  it('deploys the demo provider beside the demo stage only: its two functions, table, queues, secret and /demo-provider routes', () => {
    const demoProvider = (view: StackView) => Object.keys(view.json.Resources).filter((id) => id.startsWith('DemoProvider'));
    expect(demoProvider(views.prod)).toEqual([]);
    expect([...views.prod.resourcePaths().values()].filter((path) => path.includes('demo-provider'))).toEqual([]);
    views.prod.template.resourceCountIs('AWS::SecretsManager::Secret', 0);

    const types = demoProvider(views.demo).map((id) => views.demo.json.Resources[id]!.Type);
    for (const [type, count] of [
      ['AWS::Lambda::Function', 2],
      ['AWS::DynamoDB::Table', 1],
      ['AWS::SQS::Queue', 2],
      ['AWS::SecretsManager::Secret', 1],
      ['AWS::Lambda::EventSourceMapping', 1],
    ] as const) {
      expect(
        types.filter((t) => t === type),
        type,
      ).toHaveLength(count);
    }
    // Reached on the gateway's own API, any method, no key: the protocol's requests are signed, its pages public.
    const method = views.demo.methods().get('ANY /demo-provider/{proxy+}');
    expect(method).toMatchObject({ AuthorizationType: 'NONE', Integration: { Type: 'AWS_PROXY' } });
    expect(method!.ApiKeyRequired ?? false).toBe(false);
    const httpFunction = demoProvider(views.demo).find((id) => id.startsWith('DemoProviderHttpFunction') && views.demo.json.Resources[id]!.Type === 'AWS::Lambda::Function')!;
    expect(refersTo(method!.Integration.Uri, httpFunction)).toBe(true);
    // The demo provider decides UTRs after its own delay, 2 s in a demo stage.
    expect(views.demo.json.Resources[httpFunction]!.Properties.Environment.Variables.GATEWAY_PROVIDER_DELAY_S).toBe('2');
  });

  it('keeps prod logs longer than demo logs', () => {
    expect(views.prod.logRetentionOf('get-invoice')).toBeGreaterThan(views.demo.logRetentionOf('get-invoice'));
  });

  it('keeps the wallet keys in SSM String parameters: prod fills them from no-echo stack parameters without defaults, demo with the test keys', () => {
    const parameters = views.prod.json.Parameters!;
    const prodSsm = views.prod.walletKeyParameterIds();
    for (const [id, family] of [
      ['WalletEvmXpub', 'evm'],
      ['WalletBtcXpub', 'btc'],
      ['WalletTronXpub', 'tron'],
    ] as const) {
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
  const build = (stack: Stack, definition: QueueFunction, queues: Record<string, { queue: Queue; deadLetterQueue: Queue; visibilityTimeoutSeconds: number }>) =>
    new GatewayFunctionConstruct(stack, pascalCase(definition.name), {
      stage: 'demo',
      definition,
      environment: {},
      tables: Object.fromEntries(TABLE_KEYS.map((key) => [key, Table.fromTableName(stack, `${key}Table`, key)])) as Record<TableKey, ITable>,
      queues,
      vault: { key: new Key(stack, 'VaultKey'), receipts: new Bucket(stack, 'Receipts') },
      logRetention: RetentionDays.ONE_DAY,
      removalPolicy: RemovalPolicy.DESTROY,
      watchedNetworks: 0,
    });
  const queueWithDeadLetter = (stack: Stack, id: string, visibilityTimeoutSeconds: number) => ({
    queue: new Queue(stack, `${id}Queue`),
    deadLetterQueue: new Queue(stack, `${id}DeadLetterQueue`),
    visibilityTimeoutSeconds,
  });

  /** The longest timeout the six-times rule allows a consumer of a queue with this visibility timeout. */
  const longestTimeout = (visibilityTimeoutSeconds: number) => Math.floor((visibilityTimeoutSeconds - CALLBACK_QUEUE.batchingWindowSeconds) / 6);

  // Below one timeout AWS refuses the event source; below six the poller's retries can overlap. Synthesis refuses it first, saying what to change.
  it('fails synthesis below six timeouts plus the batching window, naming the function, the durations and where to change them', () => {
    const stack = new Stack(new App(), 'VisibilityCheck');
    const queues = { callbacks: queueWithDeadLetter(stack, 'Callbacks', CALLBACK_QUEUE.visibilityTimeoutSeconds) };
    const tooLong = longestTimeout(CALLBACK_QUEUE.visibilityTimeoutSeconds) + 1;
    expect(() => build(stack, { ...sendCallback, timeoutSeconds: tooLong }, queues)).toThrow(
      new RegExp(
        `send-callback may hold a message ${6 * tooLong + CALLBACK_QUEUE.batchingWindowSeconds} s \\(6 x its ${tooLong} s timeout .*` +
          `visibility timeout must be at least that, and it is ${CALLBACK_QUEUE.visibilityTimeoutSeconds} s: .*shared/platform\\.ts.*shared/routes\\.ts`,
      ),
    );
    // The longest timeout the rule allows passes (bundling skipped: only the check is under test).
    const fitting = new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'VisibilityFits');
    const fittingQueues = { callbacks: queueWithDeadLetter(fitting, 'Callbacks', CALLBACK_QUEUE.visibilityTimeoutSeconds) };
    expect(() => build(fitting, { ...sendCallback, timeoutSeconds: tooLong - 1 }, fittingQueues)).not.toThrow();
  });

  it('fails synthesis for a consumer of a queue its stage does not have', () => {
    const stack = new Stack(new App(), 'MissingQueue');
    expect(() => build(stack, sendCallback, {})).toThrow(/send-callback consumes the callbacks queue, which its stage does not have/);
  });
});

describe('a function with report files and no reports bucket', () => {
  it.each(['get-report', 'build-report'])('%s fails synthesis, saying what is missing', (name) => {
    const stack = new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'MissingReportsBucket');
    const definition = FUNCTIONS.find((f) => f.name === name)! as GatewayFunction;
    const queue = { queue: new Queue(stack, 'ReportsQueue'), deadLetterQueue: new Queue(stack, 'ReportsDeadLetterQueue'), visibilityTimeoutSeconds: QUEUES.reports.visibilityTimeoutSeconds };
    expect(
      () =>
        new GatewayFunctionConstruct(stack, pascalCase(name), {
          stage: 'demo',
          definition,
          environment: {},
          tables: Object.fromEntries(TABLE_KEYS.map((key) => [key, Table.fromTableName(stack, `${key}Table`, key)])) as Record<TableKey, ITable>,
          queues: { reports: queue },
          logRetention: RetentionDays.ONE_DAY,
          removalPolicy: RemovalPolicy.DESTROY,
          watchedNetworks: 0,
        }),
    ).toThrow(new RegExp(`^${name} (writes|links to) report files, and no reports bucket was given$`));
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

describe('an alarm added to the monitoring stack by any construct', () => {
  it('sends to the alarm topic too', () => {
    const stack = new GatewayStage(projectApp(), { stage: 'demo' }).monitoring;
    new Alarm(stack, 'ExtraAlarm', { metric: new Metric({ namespace: 'Custom', metricName: 'Anything' }), threshold: 1, evaluationPeriods: 1 });
    const json = Template.fromStack(stack).toJSON() as { Resources: Record<string, Resource>; Outputs: Record<string, any> };
    const topicId = json.Outputs.AlarmTopicArn.Value.Ref;
    const extra = Object.entries(json.Resources).find(([id]) => id.startsWith('ExtraAlarm'))![1];
    expect(extra.Properties.AlarmActions).toEqual([{ Ref: topicId }]);
    expect(extra.Properties.OKActions).toEqual([{ Ref: topicId }]);
  });
});
