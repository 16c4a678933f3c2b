/**
 * A stage as its synthesized CloudFormation, for the infra tests of infra/aws's modules. A
 * stage is several stacks (infra/aws/gateway-stage.ts): StackView reads them as one template, their
 * references to each other's outputs made references within it (test/support/template.ts
 * linkedStageTemplate). Expectations are computed from shared/routes.ts and shared/store/tables.ts,
 * so they stay true as routes and tables are added.
 *
 * The stages the tests read are synthesized when a test file first asks for one, once per file,
 * in an app of their own with the project's feature flags (cdk.json) and no bundling.
 */
import { readFileSync } from 'node:fs';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe } from 'vitest';
import { GatewayStage, type GatewayStageProps } from '../../infra/aws/gateway-stage.js';
import type { ProviderDeployment } from '../../infra/aws/payment-providers.js';
import { QUEUES, type QueueDefinition, type QueueName } from '../../shared/queue/queues.js';
import { FUNCTIONS, readsChainEndpoints, readsStageConfiguration, type GatewayFunction } from '../../shared/routes.js';
import { STAGES, type Stage } from '../../shared/stage.js';
import { TABLE_KEYS, type TableKey } from '../../shared/store/tables.js';
import { linkedStageTemplate, resolveText } from './template.js';

export type Resource = { Type: string; Properties: Record<string, any>; DeletionPolicy?: string; UpdateReplacePolicy?: string };
export type Statement = { Sid?: string; Effect: string; Action: string | string[]; Resource: unknown; Principal?: unknown; Condition?: unknown };

export const CUSTOM_DOMAIN = { domainName: 'pay.example.com', certificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/0a1b2c3d-4e5f-6789-abcd-ef0123456789' };
export const EXPLICIT_BASE_URL = 'https://checkout.example.com';
export const WALLET_FAMILIES = ['evm', 'btc', 'tron'] as const;
/** What reading the wallet keys takes: their one GetParameters call. */
const SSM_READ = ['ssm:GetParameters'];
/** What reading a provider's secret takes: its value, nothing else of it. */
const SECRET_READ = ['secretsmanager:GetSecretValue'];
/** What active tracing and writing to its log group take: every function has them. */
const TRACING = ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'];
const LOGGING = ['logs:CreateLogStream', 'logs:PutLogEvents'];
/** What sending to an SQS queue takes, and what its event source polls with; nothing more. */
export const SQS_SEND = ['sqs:SendMessage'];
export const SQS_CONSUME = ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'];
/** What writing a report's file takes (a multipart upload, abandoned when it fails), and what a link to one takes of its signer. */
export const REPORT_WRITE = ['s3:PutObject', 's3:AbortMultipartUpload'];
const REPORT_LINK = ['s3:GetObject'];
/** What a consumer that schedules its own retries adds: hiding a message until its next attempt. */
export const SQS_DELAY = 'sqs:ChangeMessageVisibility';

export const envelope = (code: string, message: string) => JSON.stringify({ success: false, errors: [{ code, message }] });
export const pascalCase = (name: string) => name.replace(/(?:^|-)(\w)/g, (_, first: string) => first.toUpperCase());
export const refersTo = (value: unknown, logicalId: string) => JSON.stringify(value).includes(`"${logicalId}"`);
export const actionsOf = (statement: Statement) => [statement.Action].flat();
export const sorted = (values: Iterable<string>) => [...values].sort();
/** `CALLBACK_QUEUE_URL` -> `CallbackQueueUrl`: the stack output of a queue URL is named after its variable. */
export const outputName = (variable: string) => variable.toLowerCase().replace(/(?:^|_)(\w)/g, (_, first: string) => first.toUpperCase());
export const queuesOf = (stage: Stage) => (Object.entries(QUEUES) as Array<[QueueName, QueueDefinition]>).filter(([, q]) => q.stages.includes(stage));
export const routeTableNames = new Set<string>(FUNCTIONS.map((f) => f.name));

/** Read helpers over a stage's templates, linked as one. */
export class StackView {
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
    // The stage's configuration where it is read, the networks' endpoints beside it for what talks to their nodes.
    if (readsStageConfiguration(definition)) {
      grant(['ssm:GetParameters'], this.parameterNamed('configuration'));
      if (readsChainEndpoints(definition)) grant(['ssm:GetParameters'], this.chainEndpointsGrantKey(definition));
    }
    return sorted(new Set(pairs));
  }

  /**
   * The chain-endpoints parameter as a grant to the function names it (`resourceKey`): the jobs
   * stack makes it, and its functions (the watcher, the payouts' sender) refer to it by logical id;
   * the API stack, deployed before the jobs stack, refers to it by the ARN of its name alone
   * (`:parameter/payment-gateway/{stage}/chain-endpoints`), the name the parameter has.
   */
  chainEndpointsGrantKey(definition: GatewayFunction): string {
    const id = this.parameterNamed('chain-endpoints');
    const inJobsStack = definition.kind === 'schedule' || definition.kind === 'queue';
    return inJobsStack ? id : `:parameter${resolveText(this.json.Resources[id]!.Properties.Name)}`;
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

/** A partner of the stage's context: INR P2P payments from 300 to 49,000. */
export const PSP_ONE: ProviderDeployment = {
  id: 'psp-one',
  name: 'PSP One',
  url: 'https://psp-one.example/gw',
  priority: 1,
  methods: [{ currency: 'INR', method: 'p2p', min: '300', max: '49000' }],
};

export const LIVE_DEMO_RATES = { url: 'https://ticker.example/api/v3/ticker/price', pairs: { BTC: { symbol: 'BTCUSDT', inverse: false }, USDT: { fixed: '1' } }, maxAgeSeconds: 120 };

export const WATCHED_TOKEN = '0x1111111111111111111111111111111111111111';
export const WATCHED_TRON_TOKEN = 'TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf';

/** An app with the project's feature flags (cdk.json), bundling nothing. */
export function projectApp(): App {
  const { context } = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8'));
  return new App({ context: { ...context, 'aws:cdk:bundling-stacks': [] } });
}

/** A stage of `props` in an app of its own (a stage's stacks are named after it), read as one template. */
const view = (props: GatewayStageProps) => new StackView(props.stage, new GatewayStage(projectApp(), props));

/** What `make` makes, made on the first call only. */
const once = <T>(make: () => T): (() => T) => {
  let made: T | undefined;
  return () => (made ??= make());
};

export const stageViews = once(() => Object.fromEntries(STAGES.map((stage) => [stage, view({ stage })])) as Record<Stage, StackView>);
/**
 * A \`describe\` per stage, over the stage's view: the stages are synthesized once per worker
 * (stageViews), before the file's first test, with the time synthesis takes.
 */
export function describeEachStage(body: (stage: Stage, view: () => StackView) => void): void {
  beforeAll(() => void stageViews(), 600_000);
  describe.each(STAGES)('%s stack', (stage) => body(stage, () => stageViews()[stage]));
}

export const customDomainView = once(() => view({ stage: 'prod', customDomain: CUSTOM_DOMAIN }));
export const explicitBaseUrlView = once(() => view({ stage: 'demo', customDomain: CUSTOM_DOMAIN, publicBaseUrl: EXPLICIT_BASE_URL }));
export const watchingView = once(() =>
  view({
    stage: 'demo',
    watchedNetworks: { ethereum: { tokens: { USDT: WATCHED_TOKEN } }, polygon: {}, bitcoin: {}, tron: { tokens: { USDT: WATCHED_TRON_TOKEN } } },
  }),
);
export const liveDemoView = once(() => view({ stage: 'demo', liveRates: LIVE_DEMO_RATES }));
export const partnerProdView = once(() => view({ stage: 'prod', providers: [PSP_ONE] }));
export const partnerDemoView = once(() => view({ stage: 'demo', providers: [PSP_ONE] }));
