/**
 * A stage's monitoring as synthesized (infra/aws/gateway-monitoring.ts): its alarms, their topic
 * and the dashboard.
 *
 * Bundling is skipped (it changes nothing these assertions read); cdk-app.test.ts bundles every
 * function through the real CLI. Each stage is read as one template (test/support/stage-view.ts).
 */
import { Template } from 'aws-cdk-lib/assertions';
import { Alarm, Metric } from 'aws-cdk-lib/aws-cloudwatch';
import { describe, expect, it } from 'vitest';
import { GatewayStage } from '../../infra/aws/gateway-stage.js';
import { TREASURY_SHORTFALL_PERIODS } from '../../infra/aws/operations.js';
import { QUEUES } from '../../shared/queue/queues.js';
import { BUSINESS_METRICS } from '../../shared/observability/catalogue.js';
import { FUNCTIONS, functionsForStage } from '../../shared/routes.js';
import { sorted, queuesOf, projectApp, type Resource, describeEachStage } from '../support/stage-view.js';

describeEachStage((stage, v) => {
  const definitions = functionsForStage(stage);
  const topic = () => [{ Ref: v().json.Outputs.AlarmTopicArn.Value.Ref }];

  /** The one alarm on a business metric, its id beginning with `id`, with what every such alarm has: the metric of this stage, the topic. Its properties. */
  const businessAlarm = (metric: { name: string }, id: string): Record<string, any> => {
    const alarms = v()
      .resources('AWS::CloudWatch::Alarm')
      .filter(([, alarm]) => alarm.Properties.MetricName === metric.name);
    expect(alarms.map(([alarmId]) => alarmId)).toEqual([expect.stringMatching(new RegExp(`^${id}`))]);
    const { Properties } = alarms[0]![1];
    expect(Properties).toMatchObject({
      Namespace: 'PaymentGateway',
      MetricName: metric.name,
      Dimensions: [
        { Name: 'service', Value: 'payment-gateway' },
        { Name: 'stage', Value: stage },
      ],
      AlarmActions: topic(),
    });
    return Properties;
  };

  /** The dashboard's body, each reference in it written as `reference`. */
  const dashboardBody = (reference: string): string =>
    (v().resources('AWS::CloudWatch::Dashboard')[0]![1].Properties.DashboardBody['Fn::Join'][1] as unknown[]).map((part) => (typeof part === 'string' ? part : reference)).join('');

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
      // One per dead-letter queue of the stage, the payouts' FIFO one included.
      for (const [name] of queuesOf(stage)) {
        v().template.hasResourceProperties('AWS::CloudWatch::Alarm', {
          Namespace: 'AWS/SQS',
          MetricName: 'ApproximateNumberOfMessagesVisible',
          Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [v().queueIds(name).deadLetter, 'QueueName'] } }],
          Threshold: 0,
          ComparisonOperator: 'GreaterThanThreshold',
        });
      }
      // Plus the authorizer's throttles and latency, prod's stale-rates alarm (prod prices live), the overdue provider
      // transactions', the books' differences, the treasury's shortfall, and in demo the demo provider's two functions'
      // errors and its dead-letter queue's.
      v().template.resourceCountIs('AWS::CloudWatch::Alarm', definitions.length + 2 + queuesOf(stage).length + 2 + (stage === 'prod' ? 1 : 0) + 1 + 1 + 1 + (stage === 'demo' ? 3 : 0));
    });

    it('alarms when a provider transaction has been processing over a day, as the reconciliation counts them', () => {
      expect(businessAlarm(BUSINESS_METRICS.providerOverdue, 'ProviderTransactionsOverdueAlarm')).toMatchObject({
        Statistic: 'Maximum',
        Period: 300,
        EvaluationPeriods: 1,
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
      });
    });

    it('alarms when an hourly books check finds a difference, and leaves a check that failed to the errors alarm of check-books', () => {
      const differences = businessAlarm(BUSINESS_METRICS.booksDifferences, 'BooksDifferencesAlarm');
      expect(differences).toMatchObject({
        Statistic: 'Maximum',
        Period: 3600,
        EvaluationPeriods: 1,
        Threshold: 1,
        ComparisonOperator: 'GreaterThanOrEqualToThreshold',
        TreatMissingData: 'notBreaching',
        OKActions: topic(),
      });
      // Whoever gets the mail learns that payouts stay held after the alarm clears, and how to release them.
      expect(differences.AlarmDescription).toContain('payouts are held (withdrawals answer 423 locked) until an operator clears the hold, also once the alarm clears');
      expect(differences.AlarmDescription).toContain('npm run merchant -- clear-books-hold --merchant ID --reason TEXT');
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

    it('alarms when the treasury is short of an asset for a queued payout, as the sender reports it, and plots the shortfall by network and asset', () => {
      const shortfall = businessAlarm(BUSINESS_METRICS.treasuryShortfall, 'TreasuryShortfallAlarm');
      // The sender tries a short payout again once the queue's visibility timeout has passed: the alarm
      // looks at enough periods to hold two of its tries, so that it stays up between them.
      const sendPayout = FUNCTIONS.find((f) => f.name === 'send-payout')!;
      expect(TREASURY_SHORTFALL_PERIODS).toBe(2);
      expect(TREASURY_SHORTFALL_PERIODS * 300).toBeGreaterThanOrEqual(QUEUES.payouts.visibilityTimeoutSeconds + sendPayout.timeoutSeconds!);
      // The metric without its asset (businessAlarm checks its dimensions): any shortfall, whichever the asset.
      expect(shortfall).toMatchObject({
        Statistic: 'Maximum',
        Period: 300,
        EvaluationPeriods: TREASURY_SHORTFALL_PERIODS,
        DatapointsToAlarm: 1,
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
        TreatMissingData: 'notBreaching',
        OKActions: topic(),
      });
      expect(shortfall.AlarmDescription).toContain('npm run merchant -- treasury');
      const body = JSON.parse(dashboardBody('<ref>')) as { widgets: Array<{ properties: { title?: string; metrics?: unknown[][] } }> };
      const widget = body.widgets.find(({ properties }) => JSON.stringify(properties.metrics ?? []).includes('TreasuryShortfall'))!;
      expect(widget.properties.title).toBe('Treasury shortfall, by network and asset (in its units)');
      expect(widget.properties.metrics).toEqual([
        [{ expression: `SEARCH('{PaymentGateway,service,stage,asset} MetricName="TreasuryShortfall" service="payment-gateway" stage="${stage}"', 'Maximum', 300)` }],
      ]);
    });

    it("plots the books check's differences hourly, marked where they alarm", () => {
      const body = JSON.parse(dashboardBody('<ref>')) as {
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
      const body = dashboardBody('');
      for (const metric of Object.values(BUSINESS_METRICS)) {
        if ('dimension' in metric) {
          // One line per method, source or asset, whichever appear: counts summed, the shortfall (an amount each report states whole) at its largest.
          const statistic = metric.name === BUSINESS_METRICS.treasuryShortfall.name ? 'Maximum' : 'Sum';
          expect(body).toContain(`SEARCH('{PaymentGateway,service,stage,${metric.dimension}} MetricName=\\"${metric.name}\\" service=\\"payment-gateway\\" stage=\\"${stage}\\"', '${statistic}', 300)`);
        } else {
          expect(body).toContain(`["PaymentGateway","${metric.name}","service","payment-gateway","stage","${stage}"`);
        }
      }
    });
  });
});

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
