/**
 * A stage as a whole as synthesized (infra/aws/gateway-stage.ts): the outputs the admin CLI reads,
 * and what differs between prod and demo. What each of its modules builds is tested in a file of
 * the module's name (gateway-api, gateway-data, gateway-function, gateway-jobs, gateway-monitoring,
 * gateway-queues, live-rates, payment-providers, stage-configuration, web-acl); what each stack
 * holds apart is stage-limits.test.ts's.
 *
 * Bundling is skipped (it changes nothing these assertions read); cdk-app.test.ts bundles every
 * function through the real CLI. Each stage is read as one template (test/support/stage-view.ts).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { TEST_WALLET_XPUBS } from '../../shared/domain/chains/test-wallet-keys.js';
import { QUEUES } from '../../shared/queue/queues.js';
import { FUNCTIONS, type GatewayFunction } from '../../shared/routes.js';
import { STAGES } from '../../shared/stage.js';
import { TABLE_KEYS } from '../../shared/store/tables.js';
import {
  CUSTOM_DOMAIN,
  EXPLICIT_BASE_URL,
  WALLET_FAMILIES,
  pascalCase,
  refersTo,
  sorted,
  queuesOf,
  type StackView,
  stageViews,
  customDomainView,
  explicitBaseUrlView,
  partnerProdView,
  describeEachStage,
} from '../support/stage-view.js';

let customDomain: StackView;
let explicitBaseUrl: StackView;
let partnerProd: StackView;

/** The stages read here, each synthesized once for this file (test/support/stage-view.ts). */
beforeAll(() => {
  customDomain = customDomainView();
  explicitBaseUrl = explicitBaseUrlView();
  partnerProd = partnerProdView();
}, 600_000);

describeEachStage((stage, v) => {
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

describe('stage differences', () => {
  const demoOnly = FUNCTIONS.filter((f: GatewayFunction) => !f.stages.includes('prod')).map((f) => f.name);

  it('deploys demo-only functions in demo and never in prod', () => {
    const prod = stageViews().prod.functionIds();
    const demo = stageViews().demo.functionIds();
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
    expect(stageViews().demo.functionIds().has(name)).toBe(true);
    expect(stageViews().prod.functionIds().has(name)).toBe(false);
    expect(stageViews().demo.methods().has(`${route.method} ${route.path}`)).toBe(true);
    expect(stageViews().prod.methods().has(`${route.method} ${route.path}`)).toBe(false);
  });

  // By path as well, whatever the route table says: prod must not even know the resource.
  it('exposes no simulation path in prod', () => {
    expect([...stageViews().prod.resourcePaths().values()].filter((path) => path.includes('/simulate'))).toEqual([]);
  });

  it('retains and protects prod data; demo data goes with its stack', () => {
    for (const [, table] of stageViews().prod.resources('AWS::DynamoDB::Table')) {
      expect(table).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain', Properties: { DeletionProtectionEnabled: true } });
    }
    // The demo provider's table too.
    for (const [id, table] of stageViews().demo.resources('AWS::DynamoDB::Table')) {
      expect(table, id).toMatchObject({ DeletionPolicy: 'Delete' });
      expect(table.Properties.DeletionProtectionEnabled ?? false, id).toBe(false);
    }
    for (const [, logGroup] of stageViews().prod.resources('AWS::Logs::LogGroup')) expect(logGroup.DeletionPolicy).toBe('Retain');
    for (const stack of stageViews().prod.gatewayStage.stacks) expect(stack.terminationProtection, stack.stackName).toBe(true);
    for (const stack of stageViews().demo.gatewayStage.stacks) expect(stack.terminationProtection, stack.stackName).toBe(false);
  });

  it('retains the prod vault key, buckets and queues (parked callbacks wait for an operator); demo empties and deletes them with its stack, but its receipt key', () => {
    const kept = (view: StackView) => [...view.resources('AWS::KMS::Key'), ...view.resources('AWS::S3::Bucket'), ...view.resources('AWS::SQS::Queue')];
    expect(kept(stageViews().prod).map(([, resource]) => resource.Type)).toEqual(expect.arrayContaining(['AWS::KMS::Key', 'AWS::S3::Bucket', 'AWS::SQS::Queue']));
    for (const [id, resource] of kept(stageViews().prod)) expect(resource, id).toMatchObject({ DeletionPolicy: 'Retain', UpdateReplacePolicy: 'Retain' });
    stageViews().prod.template.resourceCountIs('Custom::S3AutoDeleteObjects', 0);
    // Every stage keeps a receipt key a rotation retires: the receipts it signed must still verify (infra/aws/gateway-data.ts GatewayReceiptKey).
    const isReceiptKey = (id: string) => id.startsWith('ReceiptKey');
    expect(kept(stageViews().demo).filter(([id]) => isReceiptKey(id))).toEqual([[expect.any(String), expect.objectContaining({ DeletionPolicy: 'Retain' })]]);
    for (const [id, resource] of kept(stageViews().demo).filter(([id]) => !isReceiptKey(id))) expect(resource, id).toMatchObject({ DeletionPolicy: 'Delete' });
    for (const [bucketId] of stageViews().demo.resources('AWS::S3::Bucket')) stageViews().demo.template.hasResourceProperties('Custom::S3AutoDeleteObjects', { BucketName: { Ref: bucketId } });
  });

  it("has the callbacks, reports and payouts queues, each with its dead-letter queue, in both stages, and the demo provider's queue and dead-letter queue in demo only", () => {
    expect(Object.keys(QUEUES)).toEqual(['callbacks', 'reports', 'payouts']);
    for (const stage of STAGES) expect(queuesOf(stage).map(([name]) => name)).toEqual(['callbacks', 'reports', 'payouts']);
    const demoProviderQueues = stageViews()
      .demo.resources('AWS::SQS::Queue')
      .filter(([id]) => id.startsWith('DemoProvider'));
    expect(sorted(demoProviderQueues.map(([id]) => id))).toEqual([expect.stringMatching(/^DemoProviderDeadLetterQueue/), expect.stringMatching(/^DemoProviderQueue/)]);
    stageViews().demo.template.resourceCountIs('AWS::SQS::Queue', 8);
    stageViews().prod.template.resourceCountIs('AWS::SQS::Queue', 6);
    for (const view of [stageViews().demo, stageViews().prod]) expect(Object.keys(view.json.Outputs).filter((id) => id.startsWith('FiatDecision'))).toEqual([]);
    // What an operator redrives the demo provider's jobs with, under stable names.
    const [deadLetterId, queueId] = sorted(demoProviderQueues.map(([id]) => id));
    expect(stageViews().demo.json.Outputs.DemoProviderDlqArn.Value).toEqual({ 'Fn::GetAtt': [deadLetterId, 'Arn'] });
    expect(stageViews().demo.json.Outputs.DemoProviderQueueArn.Value).toEqual({ 'Fn::GetAtt': [queueId, 'Arn'] });
    expect(stageViews().demo.json.Outputs.DemoProviderUrl).toBeDefined();
    expect(Object.keys(stageViews().prod.json.Outputs).filter((id) => id.startsWith('DemoProvider'))).toEqual([]);
  });

  it("hands a UTR to its provider over HTTP: confirm-deposit and the checkout's UTR form send to no queue", () => {
    for (const view of [stageViews().demo, stageViews().prod, partnerProd]) {
      for (const name of ['confirm-deposit', 'submit-checkout-utr']) {
        expect(view.queueActionsOf(name), `${view.stage} ${name}`).toEqual(new Map());
        expect(view.grantsOf(name), `${view.stage} ${name}`).toEqual(expect.arrayContaining(view.providerSecretIds().map((id) => `secretsmanager:GetSecretValue ${id}`)));
      }
    }
  });

  it('deploys the demo provider beside the demo stage only: its two functions, table, queues, secret and /demo-provider routes', () => {
    const demoProvider = (view: StackView) => Object.keys(view.json.Resources).filter((id) => id.startsWith('DemoProvider'));
    expect(demoProvider(stageViews().prod)).toEqual([]);
    expect([...stageViews().prod.resourcePaths().values()].filter((path) => path.includes('demo-provider'))).toEqual([]);
    stageViews().prod.template.resourceCountIs('AWS::SecretsManager::Secret', 0);

    const types = demoProvider(stageViews().demo).map((id) => stageViews().demo.json.Resources[id]!.Type);
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
    const method = stageViews().demo.methods().get('ANY /demo-provider/{proxy+}');
    expect(method).toMatchObject({ AuthorizationType: 'NONE', Integration: { Type: 'AWS_PROXY' } });
    expect(method!.ApiKeyRequired ?? false).toBe(false);
    const httpFunction = demoProvider(stageViews().demo).find((id) => id.startsWith('DemoProviderHttpFunction') && stageViews().demo.json.Resources[id]!.Type === 'AWS::Lambda::Function')!;
    expect(refersTo(method!.Integration.Uri, httpFunction)).toBe(true);
    // The demo provider decides UTRs after its own delay, 2 s in a demo stage.
    expect(stageViews().demo.json.Resources[httpFunction]!.Properties.Environment.Variables.GATEWAY_PROVIDER_DELAY_S).toBe('2');
  });

  it('keeps prod logs longer than demo logs', () => {
    expect(stageViews().prod.logRetentionOf('get-invoice')).toBeGreaterThan(stageViews().demo.logRetentionOf('get-invoice'));
  });

  it('keeps the wallet keys in SSM String parameters: prod fills them from no-echo stack parameters without defaults, demo with the test keys', () => {
    const parameters = stageViews().prod.json.Parameters!;
    const prodSsm = stageViews().prod.walletKeyParameterIds();
    for (const [id, family] of [
      ['WalletEvmXpub', 'evm'],
      ['WalletBtcXpub', 'btc'],
      ['WalletTronXpub', 'tron'],
    ] as const) {
      expect(parameters[id]).toMatchObject({ Type: 'String', NoEcho: true });
      expect(parameters[id].Default).toBeUndefined();
      expect(stageViews().prod.json.Resources[prodSsm[family]]!.Properties).toMatchObject({ Type: 'String', Value: { Ref: id } });
    }
    expect(Object.keys(stageViews().demo.json.Parameters ?? {}).filter((id) => id.startsWith('Wallet'))).toEqual([]);
    const demoSsm = stageViews().demo.walletKeyParameterIds();
    for (const family of WALLET_FAMILIES) {
      expect(stageViews().demo.json.Resources[demoSsm[family]]!.Properties).toMatchObject({ Type: 'String', Value: TEST_WALLET_XPUBS[family] });
    }
    // Nowhere else in the template: not in any function's environment.
    for (const view of [stageViews().prod, stageViews().demo]) {
      for (const [, fn] of view.resources('AWS::Lambda::Function')) {
        for (const xpub of Object.values(TEST_WALLET_XPUBS)) expect(JSON.stringify(fn.Properties.Environment ?? {})).not.toContain(xpub);
      }
    }
  });

  it('builds PUBLIC_BASE_URL from the API id and stage, or takes the custom domain, or an explicit base URL', () => {
    const apiId = stageViews().demo.resources('AWS::ApiGateway::RestApi')[0]![0];
    const builtUrl = stageViews().demo.functionNamed('create-invoice').Properties.Environment.Variables.PUBLIC_BASE_URL;
    expect(refersTo(builtUrl, apiId)).toBe(true);
    expect(JSON.stringify(builtUrl)).toMatch(/\/demo"/);
    expect(customDomain.functionNamed('create-invoice').Properties.Environment.Variables.PUBLIC_BASE_URL).toBe(`https://${CUSTOM_DOMAIN.domainName}`);
    expect(explicitBaseUrl.functionNamed('create-invoice').Properties.Environment.Variables.PUBLIC_BASE_URL).toBe(EXPLICIT_BASE_URL);
  });
});
