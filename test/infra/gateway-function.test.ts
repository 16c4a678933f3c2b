/**
 * Each function of a stage as synthesized (infra/aws/gateway-function.ts), checked against its
 * entry in the route table: runtime and sizing, environment, log group, least privilege, reserved
 * concurrency, and what synthesis refuses.
 *
 * Bundling is skipped (it changes nothing these assertions read); cdk-app.test.ts bundles every
 * function through the real CLI. Each stage is read as one template (test/support/stage-view.ts).
 */
import { readFileSync } from 'node:fs';
import { App, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Table, type ITable } from 'aws-cdk-lib/aws-dynamodb';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { beforeAll, describe, expect, it } from 'vitest';
import { GatewayFunction as GatewayFunctionConstruct, usesVaultKey } from '../../infra/aws/gateway-function.js';
import { CRYPTO_NETWORKS } from '../../shared/domain/kernel/currencies.js';
import { CONCURRENCY, methodThrottleOf, reservedConcurrencyOf, TABLE_CAPACITY_BASIS } from '../../shared/platform.js';
import { CALLBACK_QUEUE, QUEUES, type QueueDefinition, type QueueName } from '../../shared/queue/queues.js';
import { FUNCTIONS, functionsForStage, readsChainEndpoints, readsStageConfiguration, replaysIdempotencyKey, type GatewayFunction, type HttpRoute, type QueueFunction } from '../../shared/routes.js';
import { STAGES, type Stage } from '../../shared/stage.js';
import { namedEverywhere, TABLE_KEYS, tableEnvVar, type TableKey } from '../../shared/store/tables.js';
import { tableGrantsOf } from '../../shared/store/table-access.js';
import {
  WALLET_FAMILIES,
  SQS_SEND,
  SQS_CONSUME,
  SQS_DELAY,
  pascalCase,
  refersTo,
  actionsOf,
  sorted,
  routeTableNames,
  type StackView,
  stageViews,
  watchingView,
  describeEachStage,
} from '../support/stage-view.js';

let watching: StackView;

/** The stages read here, each synthesized once for this file (test/support/stage-view.ts). */
beforeAll(() => {
  watching = watchingView();
}, 600_000);

describeEachStage((stage, v) => {
  const definitions = functionsForStage(stage);
  const routes = definitions.filter((f): f is HttpRoute => f.kind === 'http');

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
      // Every queue's URL everywhere, whatever the grants: the config validates them at every cold
      // start. But a queue named where used only (Lambda's 4 KB, the payouts') goes to the functions
      // that send to it or consume it alone, and a dead-letter queue's to the consumer that parks
      // messages there itself alone.
      const consumes = (queueName: QueueName) => definition.kind === 'queue' && definition.queue === queueName;
      const uses = (queueName: QueueName) => (definition.sendsTo ?? []).includes(queueName) || consumes(queueName);
      for (const [queueName, queue] of Object.entries(QUEUES) as Array<[QueueName, QueueDefinition]>) {
        if (queue.stages.includes(stage) && (!queue.namedWhereUsed || uses(queueName))) {
          const { queue: queueId, deadLetter } = v().queueIds(queueName);
          expect(variables[queue.urlVariable]).toEqual({ Ref: queueId });
          const parks = consumes(queueName) && definition.kind === 'queue' && definition.parksMessages === true;
          expect(variables[queue.deadLetterUrlVariable]).toEqual(parks ? { Ref: deadLetter } : undefined);
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
      // The networks' endpoints by the name of theirs, where the nodes are read: the watcher, and the payouts' quote and sending.
      expect(variables.GATEWAY_CHAIN_ENDPOINTS_PARAMETER).toBe(readsChainEndpoints(definition) ? `/payment-gateway/${stage}/chain-endpoints` : undefined);
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
      // An index's Query where the entry names the index; a table's own key range where the entry's tables say Query (a merchant's day totals, its payout addresses).
      const readsRanges = (f: (typeof definitions)[number]) => Object.keys(f.queries ?? {}).length > 0 || Object.values(f.tables).some((actions) => actions?.includes('Query'));
      expect(sorted(queriers)).toEqual(sorted(definitions.filter(readsRanges).map((f) => f.name)));
    });

    it("grants deletes only where items are given up: idempotency records of failed requests, a chain deposit's claim, a held transfer, a rejected UTR's claim, a taken invitation, an ended session, a removed dashboard user or payout address", () => {
      const deleting = definitions.flatMap(({ name }) => [...v().tableActionsOf(name)].filter(([, actions]) => actions.has('dynamodb:DeleteItem')).map(([table]) => `${name} ${table}`));
      const idempotent = routes.filter(replaysIdempotencyKey).map((route) => `${route.name} idempotency`);
      // A provider rejects a UTR by its event, or in its answer to the reconciliation.
      const utrDecisions = ['receive-provider-event uniques', 'reconcile-provider-payments uniques'];
      const dashboard = ['submit-dashboard-form dashboardInvitations', 'submit-dashboard-form dashboardSessions', 'submit-dashboard-form dashboardUsers', 'submit-dashboard-form payoutAddresses'];
      expect(sorted(deleting)).toEqual(sorted([...idempotent, 'watch-chain chain', 'watch-chain uniques', ...utrDecisions, ...dashboard]));
      // Batch reads only where many items are looked up at once: the owners of a range's addresses, a transaction's callbacks,
      // a merchant's balance in every currency, the entries the books check asks for.
      const batchReading = definitions.flatMap(({ name }) => [...v().tableActionsOf(name)].filter(([, actions]) => actions.has('dynamodb:BatchGetItem')).map(([table]) => `${name} ${table}`));
      // And the live prices an amount is converted at.
      const priceReaders = definitions.filter(({ tables }) => tables.rates).map(({ name }) => `${name} rates`);
      // The dashboard's pages show callbacks and balances as those routes do; its forms resend callbacks and draw the payouts page again.
      const dashboardBatches = ['get-dashboard-page outbox', 'get-dashboard-page balances', 'submit-dashboard-form outbox', 'submit-dashboard-form balances'];
      expect(sorted(batchReading)).toEqual(
        sorted([
          'watch-chain wallets',
          'list-transaction-callbacks outbox',
          // A receipt, the API's and the dashboard's file, holds the transaction's callbacks as their log shows them.
          'get-transaction-receipt outbox',
          'get-dashboard-receipt outbox',
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
});

describe("the operations guide's concurrency figures", () => {
  const guide = readFileSync(new URL('../../docs/operations.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');
  const reservedBy = (view: StackView) => view.resources('AWS::Lambda::Function').reduce((sum, [, fn]) => sum + (fn.Properties.ReservedConcurrentExecutions ?? 0), 0);
  const figure = (pattern: RegExp) => Number(pattern.exec(guide)?.[1]?.replace(',', ''));
  /** What a stage watching every network reserves: one watcher instance a network. */
  const watchingEvery = (stage: Stage) => reservedBy(stageViews()[stage]) + CRYPTO_NETWORKS.length - 1;

  it('are what the templates reserve, so that an operator who sizes the account from them can deploy both stages', () => {
    expect(figure(/A prod stage reserves (\d+) and a demo stage \d+/)).toBe(reservedBy(stageViews().prod));
    expect(figure(/A prod stage reserves \d+ and a demo stage (\d+)/)).toBe(reservedBy(stageViews().demo));
    expect(figure(/reserves (\d+), a demo stage \d+ \(\[Prerequisites\]/)).toBe(reservedBy(stageViews().prod));
    expect(figure(/a demo stage (\d+) \(\[Prerequisites\]/)).toBe(reservedBy(stageViews().demo));
    // Each network watched beyond the first adds its own instance of the watcher.
    expect(reservedBy(watching) - reservedBy(stageViews().demo)).toBe(Object.keys(watching.documentOf('chain-endpoints').rpc).length - 1);
    expect(figure(/both stages in one account take ([\d,]+) of it/)).toBe(reservedBy(stageViews().prod) + reservedBy(stageViews().demo) + 100);
    expect(figure(/or ([\d,]+) watching every network/)).toBe(watchingEvery('prod') + watchingEvery('demo') + 100);
  });

  it(`are within the budget of ${CONCURRENCY.stageBudget} a stage, which leaves room for ${CONCURRENCY.roomForRoutes} more routes with a key watching every network, two of them and AWS's 100 within the usual 1,000`, () => {
    expect(figure(/within a budget of (\d+)/)).toBe(CONCURRENCY.stageBudget);
    expect(guide).toContain(`leaves room for ${['', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'][CONCURRENCY.roomForRoutes]} more routes with a key`);
    for (const stage of STAGES) expect(watchingEvery(stage) + CONCURRENCY.roomForRoutes * CONCURRENCY.perFunction, stage).toBeLessThanOrEqual(CONCURRENCY.stageBudget);
    expect(2 * CONCURRENCY.stageBudget + 100).toBeLessThanOrEqual(1000);
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
