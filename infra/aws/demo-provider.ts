/**
 * The demo provider (docs/operations.md#payment-providers) deployed beside a demo stage's gateway, on the same REST API
 * under `/demo-provider`: its table, its queue of waiting work with a dead-letter queue, the
 * secret it shares with the gateway (generated, in Secrets Manager), and its two functions (the
 * HTTP routes, and the queue's consumer), each with its own role granting only what it does; and
 * the alarms an operator watches it by, which the stage's monitoring makes (`alarmsIn`).
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { AuthorizationType, LambdaIntegration, type RestApi } from 'aws-cdk-lib/aws-apigateway';
import { Alarm, ComparisonOperator, Stats, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { AttributeType, BillingMode, Table } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Secret, type ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { DEMO_PROVIDER_PATH } from '../../demo-provider/config.js';
import { DEMO_PROVIDER_TABLE } from '../../demo-provider/table.js';
import { DEFAULTS } from '../../shared/defaults.js';
import { FUNCTION_BUNDLING } from './gateway-function.js';
import { acknowledge } from './nag.js';
import { GENERATED_SECRET } from './payment-providers.js';

const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The logs' and the functions' service name. */
const SERVICE_NAME = 'demo-provider';

/** A request may wait on one attempt at an event (5 s) besides its reads and writes. */
const HTTP_TIMEOUT = Duration.seconds(15);
/** A batch of jobs runs at once: each is an event attempt (5 s) or a UTR decision and its event. */
const QUEUE_TIMEOUT = Duration.seconds(30);
const BATCH_SIZE = 10;
/** AWS's guidance for SQS event sources: a visibility timeout of at least six function timeouts. */
const VISIBILITY_TIMEOUT = Duration.seconds(6 * QUEUE_TIMEOUT.toSeconds());
/** Receives after which a job that keeps failing is parked in the dead-letter queue. */
const MAX_RECEIVE_COUNT = 5;
const QUEUE_RETENTION = Duration.days(4);
const DEAD_LETTER_RETENTION = Duration.days(14);
/** The least concurrency an SQS event source takes; the demo needs no more. */
const QUEUE_POLLERS = 2;

export interface DemoProviderProps {
  /** The gateway's API: the provider is served at `/demo-provider/{proxy+}` on it. */
  api: RestApi;
  /** Where the API is reached from outside (the gateway's PUBLIC_BASE_URL, without a trailing slash). */
  publicBaseUrl: string;
  /** How long a UTR waits for its decision (GATEWAY_PROVIDER_DELAY_S); the shared default unless given. */
  utrDecisionDelaySeconds?: number;
  /** TWO_WEEKS unless given. */
  logRetention?: RetentionDays;
  /** Of the table, the queues, the secret and the logs; DESTROY unless given (a demo keeps nothing). */
  removalPolicy?: RemovalPolicy;
}

export class DemoProvider extends Construct {
  /** The provider secret, for the gateway's configuration of this provider. */
  readonly secret: ISecret;
  /** The provider's base URL, for the gateway's configuration: `{publicBaseUrl}/demo-provider`. */
  readonly url: string;
  /** Its waiting work, and the jobs given up on, which an operator moves back to it. */
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  /** Its two functions: the HTTP routes, and the queue's consumer. */
  readonly httpFunction: NodejsFunction;
  readonly queueFunction: NodejsFunction;

  constructor(scope: Construct, id: string, props: DemoProviderProps) {
    super(scope, id);
    const removalPolicy = props.removalPolicy ?? RemovalPolicy.DESTROY;
    const logRetention = props.logRetention ?? RetentionDays.TWO_WEEKS;
    this.url = `${props.publicBaseUrl}${DEMO_PROVIDER_PATH}`;

    const table = new Table(this, 'Table', {
      partitionKey: { name: DEMO_PROVIDER_TABLE.partitionKey.name, type: AttributeType.STRING },
      timeToLiveAttribute: DEMO_PROVIDER_TABLE.ttlAttribute,
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      removalPolicy,
    });

    const deadLetterQueue = (this.deadLetterQueue = new Queue(this, 'DeadLetterQueue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: DEAD_LETTER_RETENTION,
      removalPolicy,
    }));
    acknowledge(deadLetterQueue, ['Serverless-SQSRedrivePolicy'], 'It is a dead-letter queue: an operator moves its messages back to their queue, never onward.');
    const queue = (this.queue = new Queue(this, 'Queue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      visibilityTimeout: VISIBILITY_TIMEOUT,
      retentionPeriod: QUEUE_RETENTION,
      deadLetterQueue: { queue: deadLetterQueue, maxReceiveCount: MAX_RECEIVE_COUNT },
      removalPolicy,
    }));

    const secret = new Secret(this, 'Secret', {
      description: "The demo payment provider's secret, shared with the gateway: it signs requests both ways (Standard Webhooks)",
      generateSecretString: GENERATED_SECRET,
      removalPolicy,
    });
    acknowledge(secret, ['AwsSolutions-SMG4'], 'The gateway and the demo provider both hold this secret; a rotation would have to change both at once, and the demo moves no money.');
    this.secret = secret;

    const environment = {
      POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
      NODE_OPTIONS: '--enable-source-maps',
      DEMO_PROVIDER_SECRET_ARN: secret.secretArn,
      DEMO_PROVIDER_PUBLIC_URL: this.url,
      DEMO_PROVIDER_TABLE: table.tableName,
      DEMO_PROVIDER_QUEUE_URL: queue.queueUrl,
      GATEWAY_PROVIDER_DELAY_S: String(props.utrDecisionDelaySeconds ?? DEFAULTS.demoProviderDelaySeconds),
    };
    const demoFunction = (name: string, handler: string, timeout: Duration, description: string, tableActions: string[]) => {
      // Its own role with no managed policy: its log group, and the grants below.
      const role = new Role(this, `${name}Role`, { assumedBy: new ServicePrincipal('lambda.amazonaws.com'), description });
      const logGroup = new LogGroup(this, `${name}Logs`, { retention: logRetention, removalPolicy });
      const fn = new NodejsFunction(this, name, {
        description,
        entry: join(PROJECT_ROOT, 'demo-provider', 'lambda.ts'),
        projectRoot: PROJECT_ROOT,
        depsLockFilePath: join(PROJECT_ROOT, 'package-lock.json'),
        handler,
        runtime: Runtime.NODEJS_22_X,
        architecture: Architecture.ARM_64,
        tracing: Tracing.ACTIVE,
        timeout,
        memorySize: 256,
        environment,
        role,
        logGroup,
        bundling: { ...FUNCTION_BUNDLING, mainFields: [...FUNCTION_BUNDLING.mainFields] },
      });
      logGroup.grantWrite(role);
      role.addToPolicy(new PolicyStatement({ actions: tableActions.map((action) => `dynamodb:${action}`), resources: [table.tableArn] }));
      // The secret's value, nothing else of it; it is encrypted with Secrets Manager's own key.
      role.addToPolicy(new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [secret.secretArn] }));
      // Waiting work is scheduled by sending it to the queue.
      role.addToPolicy(new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [queue.queueArn] }));
      acknowledge(role, ['AwsSolutions-IAM5[Resource::*]'], "X-Ray's PutTraceSegments and PutTelemetryRecords, which active tracing adds, take no resource-level permissions.");
      acknowledge(
        fn,
        ['AwsSolutions-L1', 'Serverless-LambdaLatestVersion'],
        "nodejs22.x is the runtime the gateway's functions are built (esbuild target node22) and tested for; the demo provider is bundled alike.",
      );
      return fn;
    };

    const httpFunction = (this.httpFunction = demoFunction('HttpFunction', 'handler', HTTP_TIMEOUT, 'demo-provider: the provider protocol and the payment page', ['GetItem', 'PutItem', 'UpdateItem']));
    acknowledge(httpFunction, ['Serverless-LambdaDLQ'], 'Invoked synchronously by API Gateway, which answers the failure to the caller; a dead-letter queue only ever holds asynchronous events.');
    const queueFunction = (this.queueFunction = demoFunction('QueueFunction', 'queueHandler', QUEUE_TIMEOUT, 'demo-provider: UTR decisions and event retries when due', ['GetItem', 'UpdateItem']));
    queueFunction.addEventSourceMapping('QueueEventSource', {
      eventSourceArn: queue.queueArn,
      batchSize: BATCH_SIZE,
      // Only the failed jobs of a batch come back, not the whole batch.
      reportBatchItemFailures: true,
      maxConcurrency: QUEUE_POLLERS,
    });
    queueFunction.addToRolePolicy(new PolicyStatement({ actions: ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'], resources: [queue.queueArn] }));
    acknowledge(
      queueFunction,
      ['Serverless-LambdaDLQ', 'Serverless-LambdaEventSourceMappingDestination'],
      "Invoked by its SQS event source, which takes no failure destination: a failed job's message returns to its queue, whose redrive policy moves it to the dead-letter queue.",
    );

    // No key and no authorizer: the gateway signs its requests, and customers have no credentials.
    const method = props.api.root
      .addResource(DEMO_PROVIDER_PATH.slice(1))
      .addResource('{proxy+}')
      .addMethod('ANY', new LambdaIntegration(httpFunction, { allowTestInvoke: false }), { authorizationType: AuthorizationType.NONE, apiKeyRequired: false });

    acknowledge(
      method,
      ['AwsSolutions-APIG4', 'AwsSolutions-COG4'],
      "The demo provider's routes: the protocol's requests are signed with the secret it shares with the gateway, which the function checks before anything else; its payment pages are public like the gateway's checkout, each at an address derived from the invoice id the checkout link carries.",
    );
  }

  /**
   * An alarm on each function's errors and on a job in its dead-letter queue, made in `scope` (the
   * stage's monitoring, which mails every alarm: infra/aws/operations.ts notifyOnEveryAlarm): a
   * demo customer's payment or a UTR decision that fails shows as it would at a real provider's desk.
   */
  alarmsIn(scope: Construct): Alarm[] {
    const alarmPeriod = Duration.minutes(5);
    const atLeastOne = { threshold: 1, comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD, evaluationPeriods: 1, treatMissingData: TreatMissingData.NOT_BREACHING };
    return [
      ...(
        [
          ['DemoProviderHttpErrorsAlarm', this.httpFunction],
          ['DemoProviderQueueErrorsAlarm', this.queueFunction],
        ] as const
      ).map(([id, fn]) => new Alarm(scope, id, { metric: fn.metricErrors({ period: alarmPeriod, statistic: Stats.SUM }), ...atLeastOne, alarmDescription: `${fn.node.id} of the demo provider failed` })),
      new Alarm(scope, 'DemoProviderDeadLetterAlarm', {
        metric: this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: alarmPeriod, statistic: Stats.MAXIMUM }),
        ...atLeastOne,
        alarmDescription: 'A demo provider job (a UTR decision, an event to the gateway) failed five times and waits in its dead-letter queue for redrive',
      }),
    ];
  }
}
