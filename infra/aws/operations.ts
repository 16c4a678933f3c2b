/**
 * What the stage's operators get besides the stack's own alarms: the alarm topic's email
 * subscription (the `AlarmEmail` stack parameter), every CloudWatch alarm of the stack sending to
 * the topic whoever created it, the alarms on stale live rates, on overdue provider transactions,
 * on differences in the books and on the treasury's shortfalls, and the business metrics
 * (shared/observability/catalogue.ts BUSINESS_METRICS) on the dashboard.
 */
import { Aspects, CfnParameter, Duration, type IAspect, type Stack } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, GraphWidget, MathExpression, Metric, Stats, TreatMissingData, type IWidget } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { ITopic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IConstruct } from 'constructs';
import { BUSINESS_METRICS, METRICS_NAMESPACE, SERVICE_NAME, type BusinessMetricDefinition } from '../../shared/observability/catalogue.js';
import { QUEUES } from '../../shared/queue/queues.js';
import { FUNCTIONS } from '../../shared/routes.js';
import type { Stage } from '../../shared/stage.js';
import type { LiveRates } from './live-rates.js';
import { acknowledge } from './nag.js';

/** An address SNS can send to; SNS itself asks the recipient to confirm the subscription. */
const EMAIL_PATTERN = '^[^@\\s]+@[^@\\s]+\\.[^@\\s]+$';

const PERIOD = Duration.minutes(5);

/** The books check runs hourly (shared/routes.ts check-books), reporting once per run. */
const BOOKS_CHECK_PERIOD = Duration.hours(1);

/** The recipient of the stage's alarms: asked for at every deploy, with no default, so no stage alarms into the void. */
export function subscribeAlarmEmail(stack: Stack, topic: ITopic): CfnParameter {
  const email = new CfnParameter(stack, 'AlarmEmail', {
    type: 'String',
    description: "Email address that receives the stage's alarms (SNS sends a confirmation link first)",
    allowedPattern: EMAIL_PATTERN,
    constraintDescription: 'must be an email address',
  });
  const subscription = topic.addSubscription(new EmailSubscription(email.valueAsString));
  acknowledge(
    subscription,
    ['Serverless-SNSRedrivePolicy'],
    'An alarm mail SNS could not deliver loses nothing: the alarm stays in its state in CloudWatch and on the dashboard, and notifies again when it clears or fires anew.',
  );
  return email;
}

/** Every alarm of the scope, made here or anywhere else, notifies the topic when it fires and when it clears. */
export function notifyOnEveryAlarm(scope: IConstruct, topic: ITopic): void {
  const action = new SnsAction(topic);
  const aspect: IAspect = {
    visit(node) {
      if (!(node instanceof Alarm)) return;
      node.addAlarmAction(action);
      node.addOkAction(action);
    },
  };
  Aspects.of(scope).add(aspect);
}

/** A business metric of the stage: `service` and `stage` are the dimensions every one carries. */
function businessMetric(stage: Stage, metric: BusinessMetricDefinition, statistic: string, label?: string, period = PERIOD): Metric {
  return new Metric({ namespace: METRICS_NAMESPACE, metricName: metric.name, dimensionsMap: { service: SERVICE_NAME, stage }, statistic, period, label });
}

/**
 * One line per value of the metric's dimension (a payment method, a deposit source, a treasury's
 * asset), as they appear: counts summed over the period; an amount each report states whole (a
 * shortfall) at its largest.
 */
function perDimensionValue(stage: Stage, metric: BusinessMetricDefinition & { dimension: string }, statistic: 'Sum' | 'Maximum' = 'Sum'): MathExpression {
  return new MathExpression({
    expression: `SEARCH('{${METRICS_NAMESPACE},service,stage,${metric.dimension}} MetricName="${metric.name}" service="${SERVICE_NAME}" stage="${stage}"', '${statistic}', ${PERIOD.toSeconds()})`,
    label: '',
    period: PERIOD,
  });
}

/**
 * Live prices older than the stage allows: invoices through them answer 503. A run that reports
 * no age (a price never fetched) or no run at all breaches too.
 */
export function ratesStaleAlarm(stack: Stack, stage: Stage, rates: LiveRates): Alarm {
  return new Alarm(stack, 'RatesStaleAlarm', {
    metric: businessMetric(stage, BUSINESS_METRICS.rateAge, Stats.MAXIMUM),
    threshold: rates.maxAgeSeconds,
    comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
    evaluationPeriods: 1,
    treatMissingData: TreatMissingData.BREACHING,
    alarmDescription: `A live price is older than ${rates.maxAgeSeconds} s, or was never fetched: invoices converting through it answer 503 until fetch-rates stores a new one`,
  });
}

/**
 * A provider transaction (a UTR deposit, a payout) still processing a day after it was made,
 * counted by each reconciliation run (docs/operations.md#payment-providers): its provider neither decided it nor answered.
 */
export function providersOverdueAlarm(stack: Stack, stage: Stage): Alarm {
  return new Alarm(stack, 'ProviderTransactionsOverdueAlarm', {
    metric: businessMetric(stage, BUSINESS_METRICS.providerOverdue, Stats.MAXIMUM),
    threshold: 0,
    comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
    evaluationPeriods: 1,
    treatMissingData: TreatMissingData.NOT_BREACHING,
    alarmDescription: 'A UTR deposit or a payout has been processing for over 24 hours: its provider has not decided it, or does not answer the reconciliation',
  });
}

/**
 * A difference the hourly books check found (docs/operations.md#the-books): entries that do not
 * sum to their balance, or a settled transaction without its entries. Each run reports how many it
 * found, zero included, so the alarm clears with the first run that finds none; the hold the run
 * put on the merchant's payouts stays until an operator clears it. A run that fails reports
 * nothing and raises check-books' Errors alarm instead.
 */
export function booksDifferencesAlarm(stack: Stack, stage: Stage): Alarm {
  return new Alarm(stack, 'BooksDifferencesAlarm', {
    metric: businessMetric(stage, BUSINESS_METRICS.booksDifferences, Stats.MAXIMUM, undefined, BOOKS_CHECK_PERIOD),
    threshold: 1,
    comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    evaluationPeriods: 1,
    treatMissingData: TreatMissingData.NOT_BREACHING,
    alarmDescription:
      "The books check found differences: a merchant's balance entries do not sum to its balance in a currency, or a settled transaction has no entries. " +
      "The merchant's payouts are held (withdrawals answer 423 locked) until an operator clears the hold, also once the alarm clears: " +
      'npm run merchant -- clear-books-hold --merchant ID --reason TEXT (docs/operations.md#the-hourly-check)',
  });
}

/**
 * The periods the shortfall alarm looks at: the sender tries a payout the treasury cannot pay again
 * once the payouts queue's visibility timeout has passed (6 minutes, longer than a period), so two
 * of its reports can be as far apart as that timeout and a run of the sender. Enough periods to
 * hold that gap keep the alarm from clearing between two tries that still find the treasury short.
 */
export const TREASURY_SHORTFALL_PERIODS = Math.ceil(
  (QUEUES.payouts.visibilityTimeoutSeconds + (FUNCTIONS.find((definition) => definition.name === 'send-payout')?.timeoutSeconds ?? 0)) / PERIOD.toSeconds(),
);

/**
 * A payout waiting for the treasury (decisions on crypto payouts): the sender found the treasury
 * short of an asset. Each attempt reports how much is missing; the dashboard's widget, by asset,
 * says which asset and how much. It fires on any report of a shortfall, and clears once
 * `TREASURY_SHORTFALL_PERIODS` pass with none: a try found the treasury funded, or none was short.
 */
export function treasuryShortfallAlarm(stack: Stack, stage: Stage): Alarm {
  return new Alarm(stack, 'TreasuryShortfallAlarm', {
    metric: businessMetric(stage, BUSINESS_METRICS.treasuryShortfall, Stats.MAXIMUM),
    threshold: 0,
    comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
    evaluationPeriods: TREASURY_SHORTFALL_PERIODS,
    datapointsToAlarm: 1,
    treatMissingData: TreatMissingData.NOT_BREACHING,
    alarmDescription:
      'The treasury holds too little of an asset for a queued payout, which waits in processing until it is funded: ' +
      'see the TreasuryShortfall metric by asset, and npm run merchant -- treasury for what queued payouts need (docs/operations.md#the-treasury)',
  });
}

/** Dashboard rows of the business metrics (24 units wide). */
export function businessMetricRows(stage: Stage, rates: LiveRates | undefined): IWidget[][] {
  const [third, half] = [8, 12];
  const metric = (definition: BusinessMetricDefinition, statistic: string, label: string) => businessMetric(stage, definition, statistic, label);
  return [
    [
      new GraphWidget({ title: 'Invoices created, by method', width: third, left: [perDimensionValue(stage, BUSINESS_METRICS.invoicesCreated)] }),
      new GraphWidget({ title: 'Deposits confirmed, by source', width: third, left: [perDimensionValue(stage, BUSINESS_METRICS.depositsConfirmed)] }),
      new GraphWidget({ title: 'Deposits failed, by source', width: third, left: [perDimensionValue(stage, BUSINESS_METRICS.depositsFailed)] }),
    ],
    [
      new GraphWidget({
        title: 'Callbacks',
        width: third,
        left: [
          metric(BUSINESS_METRICS.callbacksDelivered, Stats.SUM, 'Delivered'),
          metric(BUSINESS_METRICS.callbacksFailed, Stats.SUM, 'Failed attempts'),
          metric(BUSINESS_METRICS.callbacksParked, Stats.SUM, 'Parked'),
        ],
      }),
      new GraphWidget({
        title: 'Callback delivery latency (ms)',
        width: third,
        left: [metric(BUSINESS_METRICS.callbackDeliveryLatency, Stats.percentile(50), 'p50'), metric(BUSINESS_METRICS.callbackDeliveryLatency, Stats.percentile(99), 'p99')],
      }),
      new GraphWidget({
        title: 'Oldest live price (s)',
        width: third,
        left: [metric(BUSINESS_METRICS.rateAge, Stats.MAXIMUM, rates ? 'Rate age' : 'Rate age (this stage uses the fixed table)')],
        leftAnnotations: rates ? [{ value: rates.maxAgeSeconds, label: 'Stale: invoices answer 503' }] : [],
      }),
    ],
    // What each reconciliation run reports of the providers (docs/operations.md#payment-providers).
    [
      new GraphWidget({
        title: 'Provider transactions processing over 24 h',
        width: half,
        left: [metric(BUSINESS_METRICS.providerOverdue, Stats.MAXIMUM, 'Overdue')],
        leftAnnotations: [{ value: 1, label: 'Alarms from 1' }],
      }),
      new GraphWidget({
        title: 'Failed provider calls of the reconciliation',
        width: half,
        left: [metric(BUSINESS_METRICS.providerFailures, Stats.SUM, 'Failed calls')],
      }),
    ],
    // What each books check reports (docs/operations.md#the-books).
    [
      new GraphWidget({
        title: 'Differences found by the books check',
        width: half,
        left: [businessMetric(stage, BUSINESS_METRICS.booksDifferences, Stats.MAXIMUM, 'Differences', BOOKS_CHECK_PERIOD)],
        leftAnnotations: [{ value: 1, label: 'Alarms from 1' }],
      }),
      // What the payouts' sender reports when the treasury cannot pay a payout (docs/operations.md#the-treasury):
      // how much of which asset it lacks, on which network; any line above zero raises TreasuryShortfallAlarm.
      new GraphWidget({
        title: 'Treasury shortfall, by network and asset (in its units)',
        width: half,
        left: [perDimensionValue(stage, BUSINESS_METRICS.treasuryShortfall, Stats.MAXIMUM)],
      }),
    ],
  ];
}
