/**
 * A stage watching networks as synthesized (infra/aws/stage-configuration.ts): the chain
 * watcher's schedules and timeouts, the nodes' endpoints in a document only the watcher and the
 * payouts' functions read, its alarms and reserved instances; the payout fees a deployment gives,
 * written into the stage's configuration document and checked as the functions check them.
 *
 * Bundling is skipped (it changes nothing these assertions read); cdk-app.test.ts bundles every
 * function through the real CLI. Each stage is read as one template (test/support/stage-view.ts).
 */
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { GatewayStage } from '../../infra/aws/gateway-stage.js';
import { stageConfigurationParameter } from '../../infra/aws/stage-configuration.js';
import { defaultStageConfiguration, parseChainsConfig, stageConfigurationOf } from '../../shared/config.js';
import { DEFAULT_PAYOUT_FEES } from '../../shared/domain/payouts/index.js';
import { DEFAULTS } from '../../shared/defaults.js';
import { CHAIN_RUN_ALLOWANCE_SECONDS, CONCURRENCY, chainWatchSecondsOf } from '../../shared/platform.js';
import { CHAIN_RPC_METRICS } from '../../shared/observability/catalogue.js';
import { FUNCTIONS, functionsForStage, readsChainEndpoints, readsStageConfiguration } from '../../shared/routes.js';
import { NETWORK_EXPLORERS } from '../../shared/domain/chains/index.js';
import type { Stage } from '../../shared/stage.js';
import { type StackView, WATCHED_TOKEN, WATCHED_TRON_TOKEN, projectApp, stageViews, watchingView } from '../support/stage-view.js';

let views: Record<Stage, StackView>;
let watching: StackView;

/** The stages read here, each synthesized once for this file (test/support/stage-view.ts). */
beforeAll(() => {
  views = stageViews();
  watching = watchingView();
}, 600_000);

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

  it("takes each node's URL, and Tron's API key, as NoEcho parameters, into a document only the watcher and the payouts' functions read", () => {
    // The watcher reads the nodes; create-payout, create-refund and the dashboard's payout form quote a network fee, send-payout sends it.
    const readers = ['create-payout', 'create-refund', 'send-payout', 'submit-dashboard-form', watcher];
    expect(
      functionsForStage('demo')
        .filter(readsChainEndpoints)
        .map(({ name }) => name)
        .sort(),
    ).toEqual(readers);
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
      expect(variables.GATEWAY_CHAIN_ENDPOINTS_PARAMETER, name).toBe(readers.includes(name) ? '/payment-gateway/demo/chain-endpoints' : undefined);
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

/** The configuration document a prod stage without providers writes, with the parts the deployment gives. */
function configurationDocumentOf(parts: { payoutFees?: Record<string, string>; explorers?: Record<string, string> }) {
  const stack = new Stack(new App(), 'Configuration');
  stageConfigurationParameter(stack, 'Configuration', { stage: 'prod', providers: [], watchedNetworks: {}, ...parts });
  const [parameter] = Object.values(Template.fromStack(stack).findResources('AWS::SSM::Parameter')) as Array<{ Properties: { Value: string } }>;
  return JSON.parse(parameter!.Properties.Value);
}

describe("the stage's payout fees", () => {
  const documentOf = (payoutFees?: Record<string, string>) => configurationDocumentOf({ payoutFees });

  it('writes the fees the deployment gives into the configuration document, which the functions lay over the defaults', () => {
    expect(documentOf({ USDT: '1.5', BTC: '0.0002' }).payoutFees).toEqual({ USDT: '1.5', BTC: '0.0002' });
    expect(stageConfigurationOf(defaultStageConfiguration('prod'), { configuration: JSON.stringify(documentOf({ USDT: '1.5' })) }).payoutFees).toEqual({
      ...DEFAULT_PAYOUT_FEES,
      USDT: '1.5',
    });
    expect(documentOf()).not.toHaveProperty('payoutFees');
  });

  it('refuses a fee the functions would refuse, at synthesis', () => {
    expect(() => documentOf({ USDT: 'one' })).toThrow(/Invalid stage configuration: configuration\.payoutFees\.USDT: must be a decimal string/);
    expect(() => documentOf({ EUR: '1' })).toThrow(/Invalid stage configuration: configuration\.payoutFees: Unrecognized key: "EUR"/);
  });
});

describe("the stage's block explorers", () => {
  const documentOf = (explorers?: Record<string, string>) => configurationDocumentOf({ explorers });

  it("writes the explorers the deployment gives into the configuration document, which the dashboard's functions lay over the stage's own", () => {
    const explorers = { ethereum: 'https://explorer.example/eth/tx/{hash}' };
    expect(documentOf(explorers).explorers).toEqual(explorers);
    expect(stageConfigurationOf(defaultStageConfiguration('prod'), { configuration: JSON.stringify(documentOf(explorers)) }).explorers).toEqual({
      ...NETWORK_EXPLORERS.prod,
      ethereum: 'https://explorer.example/eth/tx/{hash}',
    });
    expect(documentOf()).not.toHaveProperty('explorers');
  });

  it('refuses an explorer the functions would refuse, at synthesis', () => {
    expect(() => documentOf({ ethereum: 'javascript:alert({hash})' })).toThrow(/Invalid stage configuration: configuration\.explorers\.ethereum: must be an http\(s\) URL with \{hash\} in it/);
    expect(() => documentOf({ solana: 'https://solscan.io/tx/{hash}' })).toThrow(/Invalid stage configuration: configuration\.explorers: Unrecognized key: "solana"/);
  });

  it("are read by the functions that draw the dashboard's pages, and not by the receipt download, which draws none", () => {
    const byName = new Map(FUNCTIONS.map((definition) => [definition.name, definition]));
    expect(readsStageConfiguration(byName.get('get-dashboard-page')!)).toBe(true);
    expect(readsStageConfiguration(byName.get('submit-dashboard-form')!)).toBe(true);
    expect(readsStageConfiguration(byName.get('get-dashboard-receipt')!)).toBe(false);
  });
});
