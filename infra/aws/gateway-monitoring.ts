/**
 * What the stage's operators watch: the alarm topic and its email subscription, an alarm on each
 * function's errors, on the authorizer's throttles and latency, on the API's 5XX, on every
 * dead-letter queue, on the callbacks backlog, on stale live rates, on overdue provider
 * transactions, on differences in the books and on every RPC endpoint of a watched network
 * failing, the demo provider's alarms in demo, and the dashboard (operations.ts holds the parts
 * the stage's other alarms and the business metrics share). A stack of its own, made last: it
 * watches every other stack of the stage, and no other stack refers to it.
 */
import { Aws, CfnOutput, Duration, Stack, type CfnOutputProps, type StackProps } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { Alarm, AlarmStatusWidget, type AlarmProps, ComparisonOperator, Dashboard, GraphWidget, Metric, Stats, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { Topic } from 'aws-cdk-lib/aws-sns';
import type { CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import type { Construct } from 'constructs';
import type { CryptoNetwork } from '../../shared/domain/kernel/index.js';
import { CHAIN_RPC_METRICS, METRICS_NAMESPACE, SERVICE_NAME } from '../../shared/observability/catalogue.js';
import type { Stage } from '../../shared/stage.js';
import { pascalCase } from './construct-ids.js';
import type { DemoProvider } from './demo-provider.js';
import type { GatewayFunction, QueueWithDeadLetter, StageQueues } from './gateway-function.js';
import { queuesOfStage } from './gateway-queues.js';
import type { LiveRates } from './live-rates.js';
import { booksDifferencesAlarm, businessMetricRows, notifyOnEveryAlarm, providersOverdueAlarm, ratesStaleAlarm, subscribeAlarmEmail, treasuryShortfallAlarm } from './operations.js';
import { ruleMetricNames } from './web-acl.js';

/**
 * A callback nobody has received for this long means deliveries are not progressing. Messages
 * waiting out a retry do not trip it: SQS leaves a message received three times out of the age
 * metric, and a failing callback gets its third attempt within minutes.
 */
const CALLBACK_BACKLOG_AGE = Duration.hours(4);

const ALARM_PERIOD = Duration.minutes(5);

/**
 * The authorizer is one DynamoDB read: a p99 above this means its table or its network is
 * struggling, and every authenticated request waits on it. (Lambda's Duration leaves out cold
 * starts' initialisation.)
 */
const AUTHORIZER_P99_DURATION = Duration.seconds(1);

export interface GatewayMonitoringProps {
  stage: Stage;
  api: RestApi;
  functions: readonly GatewayFunction[];
  queues: StageQueues;
  webAcl: CfnWebACL;
  /** The stage's live rates, whose staleness alarms; none where the stage uses the fixed table. */
  liveRates?: LiveRates;
  /** The networks the chain watcher reads, each alarming when every one of its RPC endpoints fails. */
  watchedNetworks?: readonly CryptoNetwork[];
  /** The demo provider beside a demo stage, whose alarms are the stage's too. */
  demoProvider?: DemoProvider;
}

export class GatewayMonitoring {
  readonly outputs: Record<string, CfnOutputProps>;

  constructor(stack: Stack, { stage, api, functions, queues, webAcl, liveRates, watchedNetworks = [], demoProvider }: GatewayMonitoringProps) {
    const topic = new Topic(stack, 'AlarmTopic', { displayName: `Payment gateway ${stage} alarms`, enforceSSL: true });
    subscribeAlarmEmail(stack, topic);
    notifyOnEveryAlarm(stack, topic);
    const alarm = (id: string, props: Pick<AlarmProps, 'metric' | 'threshold' | 'comparisonOperator' | 'alarmDescription'>) =>
      new Alarm(stack, id, { evaluationPeriods: 1, treatMissingData: TreatMissingData.NOT_BREACHING, ...props });

    const errorsOf = (fn: GatewayFunction) => fn.metricErrors({ period: ALARM_PERIOD, statistic: Stats.SUM });
    const queueMetric = { period: ALARM_PERIOD, statistic: Stats.MAXIMUM };
    const stageQueues = queuesOfStage(stage).map(([name, definition]) => ({ definition, ...(queues[name] as QueueWithDeadLetter) }));
    const deadLettersOf = ({ deadLetterQueue }: QueueWithDeadLetter) => deadLetterQueue.metricApproximateNumberOfMessagesVisible(queueMetric);
    const oldestOf = ({ queue }: QueueWithDeadLetter) => queue.metricApproximateAgeOfOldestMessage(queueMetric);
    const callbacks = queues.callbacks;
    if (!callbacks) throw new Error(`Stage ${stage} has no callbacks queue`);
    const serverErrors = api.metricServerError({ period: ALARM_PERIOD, statistic: Stats.SUM });
    // WAF reports per rule (`Rule` is the rule's metric name) and for the whole web ACL (`ALL`).
    const wafMetric = (metricName: 'AllowedRequests' | 'BlockedRequests', rule: string, label: string) =>
      new Metric({
        namespace: 'AWS/WAFV2',
        metricName,
        dimensionsMap: { WebACL: webAcl.name!, Region: Aws.REGION, Rule: rule },
        statistic: Stats.SUM,
        label,
      });

    const atLeastOne = { threshold: 1, comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD };
    // A refused key is a Deny policy, not an error: the authorizer's errors are real failures.
    const authorizerAlarms = functions
      .filter((fn) => fn.definition.kind === 'authorizer')
      .flatMap((fn) => {
        const id = pascalCase(fn.definition.name);
        return [
          alarm(`${id}ThrottlesAlarm`, {
            metric: fn.metricThrottles({ period: ALARM_PERIOD, statistic: Stats.SUM }),
            ...atLeastOne,
            alarmDescription: `${fn.definition.name} was throttled: requests with a key could not be authorized`,
          }),
          alarm(`${id}LatencyAlarm`, {
            metric: fn.metricDuration({ period: ALARM_PERIOD, statistic: Stats.percentile(99) }),
            threshold: AUTHORIZER_P99_DURATION.toMilliseconds(),
            comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
            alarmDescription: `${fn.definition.name} took over ${AUTHORIZER_P99_DURATION.toMilliseconds()} ms at p99: every authenticated request waits on it`,
          }),
        ];
      });
    // The watcher returns a run that failed rather than throw (its Errors alarm stays quiet), and
    // reports per run whether a call failed on every endpoint (0 or 1): the minimum over the period
    // is 1 only when no run of it reached any endpoint, so a single run's blip does not page.
    const chainRpcAlarms = watchedNetworks.map((network) =>
      alarm(`ChainRpc${pascalCase(network)}AllFailedAlarm`, {
        metric: new Metric({
          namespace: METRICS_NAMESPACE,
          metricName: CHAIN_RPC_METRICS.allFailed.name,
          dimensionsMap: { service: SERVICE_NAME, stage, network },
          statistic: Stats.MINIMUM,
          period: ALARM_PERIOD,
        }),
        ...atLeastOne,
        alarmDescription: `Every RPC endpoint of ${network} failed in every chain watcher run for ${ALARM_PERIOD.toMinutes()} minutes: its deposits go unseen until one answers (the watcher's log names each endpoint and why)`,
      }),
    );
    const alarms = [
      ...functions.map((fn) => alarm(`${pascalCase(fn.definition.name)}ErrorsAlarm`, { metric: errorsOf(fn), ...atLeastOne, alarmDescription: `${fn.definition.name} failed` })),
      ...authorizerAlarms,
      alarm('Api5xxAlarm', { metric: serverErrors, ...atLeastOne, alarmDescription: 'The API answered 5XX' }),
      // One per queue: a message in any dead-letter queue was given up on.
      ...stageQueues.map((queue) =>
        alarm(`${pascalCase(queue.definition.name)}DeadLetterAlarm`, {
          metric: deadLettersOf(queue),
          threshold: 0,
          comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
          alarmDescription: `Messages of the ${queue.definition.name} queue were given up on and wait in its dead-letter queue for redrive`,
        }),
      ),
      alarm('CallbacksBacklogAlarm', {
        metric: oldestOf(callbacks),
        threshold: CALLBACK_BACKLOG_AGE.toSeconds(),
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        alarmDescription: `A merchant callback has waited over ${CALLBACK_BACKLOG_AGE.toHours()} hours without being received: deliveries are not progressing`,
      }),
      ...(liveRates ? [ratesStaleAlarm(stack, stage, liveRates)] : []),
      providersOverdueAlarm(stack, stage),
      booksDifferencesAlarm(stack, stage),
      treasuryShortfallAlarm(stack, stage),
      ...chainRpcAlarms,
      ...(demoProvider?.alarmsIn(stack) ?? []),
    ];

    // Dashboard rows are 24 units wide.
    const [third, half, full] = [8, 12, 24];
    const dashboard = new Dashboard(stack, 'Dashboard', {
      widgets: [
        [
          new GraphWidget({ title: 'API requests', width: third, left: [api.metricCount({ statistic: Stats.SUM, label: 'Requests' })] }),
          new GraphWidget({
            title: 'API latency (ms)',
            width: third,
            left: [
              api.metricLatency({ statistic: Stats.percentile(50), label: 'p50' }),
              api.metricLatency({ statistic: Stats.percentile(99), label: 'p99' }),
              api.metricIntegrationLatency({ statistic: Stats.percentile(99), label: 'integration p99' }),
            ],
          }),
          new GraphWidget({
            title: 'API errors',
            width: third,
            left: [api.metricClientError({ statistic: Stats.SUM, label: '4XX' }), serverErrors.with({ label: '5XX' })],
          }),
        ],
        [
          new GraphWidget({ title: 'Function errors', width: half, left: functions.map((fn) => errorsOf(fn).with({ label: fn.definition.name })) }),
          new GraphWidget({
            title: 'Function duration p99 (ms)',
            width: half,
            left: functions.map((fn) => fn.metricDuration({ statistic: Stats.percentile(99), label: fn.definition.name })),
          }),
        ],
        [
          new GraphWidget({
            title: 'Web ACL: allowed and blocked requests',
            width: half,
            left: [wafMetric('AllowedRequests', 'ALL', 'Allowed'), wafMetric('BlockedRequests', 'ALL', 'Blocked')],
          }),
          new GraphWidget({
            title: 'Web ACL: blocked by rule',
            width: half,
            left: ruleMetricNames(webAcl).map((rule) => wafMetric('BlockedRequests', rule, rule)),
          }),
        ],
        // A row per queue.
        ...stageQueues.map((queue) => [
          new GraphWidget({
            title: `${queue.definition.name} queue depth`,
            width: third,
            left: [
              queue.queue.metricApproximateNumberOfMessagesVisible({ ...queueMetric, label: 'Due' }),
              // Callback retries wait here too: the sender hides a message until its next attempt.
              queue.queue.metricApproximateNumberOfMessagesNotVisible({ ...queueMetric, label: 'Being handled or awaiting retry' }),
            ],
          }),
          new GraphWidget({ title: `Oldest ${queue.definition.name} message (s)`, width: third, left: [oldestOf(queue).with({ label: `${queue.definition.name} queue` })] }),
          new GraphWidget({ title: `${queue.definition.name} awaiting redrive`, width: third, left: [deadLettersOf(queue).with({ label: 'Dead-letter queue' })] }),
        ]),
        ...businessMetricRows(stage, liveRates),
        [new AlarmStatusWidget({ title: 'Alarms', width: full, alarms })],
      ],
    });

    this.outputs = {
      AlarmTopicArn: { value: topic.topicArn, description: 'Subscribe on-call here' },
      DashboardUrl: {
        value: `https://console.aws.amazon.com/cloudwatch/home?region=${Aws.REGION}#dashboards:name=${dashboard.dashboardName}`,
        description: 'The CloudWatch dashboard of the stage',
      },
    };
  }
}

export interface GatewayMonitoringStackProps extends StackProps, GatewayMonitoringProps {
  /** The stacks' termination protection. */
  protectData: boolean;
}

/** What a stage's operators watch, in a stack of its own (GatewayMonitoring). */
export class GatewayMonitoringStack extends Stack {
  constructor(scope: Construct, id: string, { stage, api, functions, queues, webAcl, liveRates, watchedNetworks, demoProvider, protectData, ...stackProps }: GatewayMonitoringStackProps) {
    super(scope, id, { description: `Payment gateway ${stage}: its alarms and dashboard`, terminationProtection: protectData, ...stackProps });
    const monitoring = new GatewayMonitoring(this, { stage, api, functions, queues, webAcl, liveRates, watchedNetworks, demoProvider });
    for (const [outputId, props] of Object.entries(monitoring.outputs)) new CfnOutput(this, outputId, props);
  }
}
