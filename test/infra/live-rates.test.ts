/**
 * The live exchange rates of a stage as synthesized (infra/aws/live-rates.ts): prod's ticker by
 * default, the fixed table in demo, fetch-rates's schedule, grants and alarm.
 *
 * Bundling is skipped (it changes nothing these assertions read); cdk-app.test.ts bundles every
 * function through the real CLI. Each stage is read as one template (test/support/stage-view.ts).
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { GatewayStage } from '../../infra/aws/gateway-stage.js';
import { DEFAULT_LIVE_RATES } from '../../infra/aws/live-rates.js';
import { parseRatesConfig } from '../../shared/config.js';
import type { Stage } from '../../shared/stage.js';
import { type StackView, LIVE_DEMO_RATES, projectApp, stageViews, liveDemoView } from '../support/stage-view.js';

let views: Record<Stage, StackView>;
let liveDemo: StackView;

/** The stages read here, each synthesized once for this file (test/support/stage-view.ts). */
beforeAll(() => {
  views = stageViews();
  liveDemo = liveDemoView();
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

  it('are written by fetch-rates alone and read where invoices, deposits, withdrawals and crypto payouts are priced', () => {
    // create-payout and the dashboard's payout form value a payout, and its network fee, at the current rates; create-refund a crypto refund's network fee.
    for (const [view, readers] of [
      [views.prod, ['create-invoice', 'create-payout', 'create-refund', 'create-withdrawal', 'submit-dashboard-form', 'watch-chain']],
      [views.demo, ['create-invoice', 'create-payout', 'create-refund', 'create-withdrawal', 'simulate-deposit', 'submit-dashboard-form', 'watch-chain']],
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
