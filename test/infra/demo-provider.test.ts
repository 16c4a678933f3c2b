/**
 * The demo provider's construct, synthesized alone in a bare stack with a REST API: what it
 * deploys, what each function may do, how it is reached, and that the cdk-nag packs the app runs
 * find nothing unacknowledged in it. Bundling is skipped (it changes nothing read here).
 */
import { randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { beforeAll, describe, expect, it } from 'vitest';
import { DemoProvider } from '../../infra/aws/demo-provider.js';
import { nagPacks } from '../../infra/aws/nag.js';
import { GENERATED_SECRET } from '../../infra/aws/payment-providers.js';
import { isProviderSecret } from '../../shared/connectors/protocol/messages.js';

type Resource = { Type: string; Properties: Record<string, any>; DeletionPolicy?: string };
type Statement = { Effect: string; Action: string | string[]; Resource: unknown };

const PUBLIC_BASE_URL = 'https://pay.example.com';

let stack: Stack;
let provider: DemoProvider;
let template: Template;
let resources: Record<string, Resource>;

beforeAll(() => {
  const { context } = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8'));
  const app = new App({ context: { ...context, 'aws:cdk:bundling-stacks': [] } });
  stack = new Stack(app, 'DemoProviderTest');
  const api = new RestApi(stack, 'Api', { deployOptions: { stageName: 'demo' } });
  api.root.addMethod('GET');
  provider = new DemoProvider(stack, 'DemoProvider', { api, publicBaseUrl: PUBLIC_BASE_URL, utrDecisionDelaySeconds: 3 });
  // The stage makes them in its monitoring stack; here beside the provider.
  provider.alarmsIn(stack);
  template = Template.fromStack(stack);
  resources = template.toJSON().Resources as Record<string, Resource>;
});

const ofType = (type: string): Array<[string, Resource]> => Object.entries(resources).filter(([, resource]) => resource.Type === type);
const idOf = (type: string, predicate: (resource: Resource) => boolean = () => true): string => {
  const found = ofType(type).filter(([, resource]) => predicate(resource));
  if (found.length !== 1) throw new Error(`${found.length} resources of ${type} match`);
  return found[0]![0];
};
const functionId = (handler: string) => idOf('AWS::Lambda::Function', (fn) => fn.Properties.Handler === `index.${handler}`);
const refersTo = (value: unknown, id: string): boolean => JSON.stringify(value).includes(`"${id}"`);

/** `action resource-id` for every statement of the function's role, the role's own log group and X-Ray aside. */
function grantsOf(handler: string): string[] {
  const roleId = resources[functionId(handler)]!.Properties.Role['Fn::GetAtt'][0] as string;
  const statements = ofType('AWS::IAM::Policy')
    .filter(([, policy]) => refersTo(policy.Properties.Roles, roleId))
    .flatMap(([, policy]) => policy.Properties.PolicyDocument.Statement as Statement[]);
  const named = (resource: unknown) => Object.keys(resources).find((id) => refersTo(resource, id)) ?? String(resource);
  return statements
    .flatMap((statement) => [statement.Action].flat().map((action) => `${action} ${[statement.Resource].flat().map(named).join(',')}`))
    .filter((grant) => !grant.startsWith('xray:') && !grant.startsWith('logs:'))
    .sort();
}

describe('the demo provider construct', () => {
  it('keeps its payments and payouts in a table of its own: on demand, recoverable, purged by TTL', () => {
    template.resourceCountIs('AWS::DynamoDB::Table', 1);
    template.hasResourceProperties('AWS::DynamoDB::Table', {
      KeySchema: [{ AttributeName: 'providerReference', KeyType: 'HASH' }],
      AttributeDefinitions: [{ AttributeName: 'providerReference', AttributeType: 'S' }],
      BillingMode: 'PAY_PER_REQUEST',
      PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
      TimeToLiveSpecification: { AttributeName: 'purgeAt', Enabled: true },
    });
    // A demo keeps nothing when it goes.
    expect(resources[idOf('AWS::DynamoDB::Table')]!.DeletionPolicy).toBe('Delete');
  });

  it('holds waiting work on an encrypted, TLS-only queue whose failures end in a dead-letter queue', () => {
    template.resourceCountIs('AWS::SQS::Queue', 2);
    const deadLetterId = idOf('AWS::SQS::Queue', (queue) => queue.Properties.RedrivePolicy === undefined);
    const queue = resources[idOf('AWS::SQS::Queue', (q) => q.Properties.RedrivePolicy !== undefined)]!;
    expect(queue.Properties).toMatchObject({ SqsManagedSseEnabled: true, VisibilityTimeout: 180, RedrivePolicy: { maxReceiveCount: 5 } });
    expect(refersTo(queue.Properties.RedrivePolicy.deadLetterTargetArn, deadLetterId)).toBe(true);
    expect(resources[deadLetterId]!.Properties).toMatchObject({ SqsManagedSseEnabled: true });
    template.resourceCountIs('AWS::SQS::QueuePolicy', 2);
  });

  it('generates its secret in Secrets Manager in a form the protocol takes, and exposes it', () => {
    template.hasResourceProperties('AWS::SecretsManager::Secret', { GenerateSecretString: { ExcludePunctuation: true, PasswordLength: 64 } });
    expect(refersTo(stack.resolve(provider.secret.secretArn), idOf('AWS::SecretsManager::Secret'))).toBe(true);
    // What such a generation yields: 64 letters and digits, the base64 of 48 bytes.
    const alphanumerics = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
    for (let i = 0; i < 20; i++) {
      const generated = Array.from({ length: GENERATED_SECRET.passwordLength }, () => alphanumerics[randomInt(alphanumerics.length)]).join('');
      expect(isProviderSecret(generated), generated).toBe(true);
    }
  });

  it('is reached at {publicBaseUrl}/demo-provider', () => {
    expect(provider.url).toBe(`${PUBLIC_BASE_URL}/demo-provider`);
  });

  it('serves /demo-provider/{proxy+}, any method, with no key and no authorizer, through its HTTP function', () => {
    const demoResource = idOf('AWS::ApiGateway::Resource', (resource) => resource.Properties.PathPart === 'demo-provider');
    const proxy = idOf('AWS::ApiGateway::Resource', (resource) => resource.Properties.PathPart === '{proxy+}');
    expect(refersTo(resources[proxy]!.Properties.ParentId, demoResource)).toBe(true);
    const method = resources[idOf('AWS::ApiGateway::Method', (m) => refersTo(m.Properties.ResourceId, proxy))]!;
    expect(method.Properties).toMatchObject({ HttpMethod: 'ANY', AuthorizationType: 'NONE', Integration: { Type: 'AWS_PROXY' } });
    expect(method.Properties.ApiKeyRequired ?? false).toBe(false);
    expect(refersTo(method.Properties.Integration.Uri, functionId('handler'))).toBe(true);
  });

  it('runs two functions from demo-provider/lambda.ts, nodejs22.x on arm64, traced, configured for AWS', () => {
    for (const handler of ['handler', 'queueHandler']) {
      const { Properties } = resources[functionId(handler)]!;
      expect(Properties).toMatchObject({ Runtime: 'nodejs22.x', Architectures: ['arm64'], TracingConfig: { Mode: 'Active' } });
      const variables = Properties.Environment.Variables;
      expect(variables).toMatchObject({ DEMO_PROVIDER_PUBLIC_URL: `${PUBLIC_BASE_URL}/demo-provider`, GATEWAY_PROVIDER_DELAY_S: '3' });
      expect(refersTo(variables.DEMO_PROVIDER_SECRET_ARN, idOf('AWS::SecretsManager::Secret'))).toBe(true);
      expect(refersTo(variables.DEMO_PROVIDER_TABLE, idOf('AWS::DynamoDB::Table'))).toBe(true);
      expect(
        refersTo(
          variables.DEMO_PROVIDER_QUEUE_URL,
          idOf('AWS::SQS::Queue', (q) => q.Properties.RedrivePolicy !== undefined),
        ),
      ).toBe(true);
      // The secret itself never is in the template or the environment.
      expect(Object.keys(variables)).not.toContain('DEMO_PROVIDER_SECRET');
    }
  });

  it('feeds the queue to the queue function, reporting failed jobs one by one', () => {
    const queueId = idOf('AWS::SQS::Queue', (q) => q.Properties.RedrivePolicy !== undefined);
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      EventSourceArn: { 'Fn::GetAtt': [queueId, 'Arn'] },
      FunctionName: { Ref: functionId('queueHandler') },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      ScalingConfig: { MaximumConcurrency: 2 },
    });
  });

  it('grants each function only what it does', () => {
    const table = idOf('AWS::DynamoDB::Table');
    const secret = idOf('AWS::SecretsManager::Secret');
    const queue = idOf('AWS::SQS::Queue', (q) => q.Properties.RedrivePolicy !== undefined);
    expect(grantsOf('handler')).toEqual(
      [`dynamodb:GetItem ${table}`, `dynamodb:PutItem ${table}`, `dynamodb:UpdateItem ${table}`, `secretsmanager:GetSecretValue ${secret}`, `sqs:SendMessage ${queue}`].sort(),
    );
    expect(grantsOf('queueHandler')).toEqual(
      [
        `dynamodb:GetItem ${table}`,
        `dynamodb:UpdateItem ${table}`,
        `secretsmanager:GetSecretValue ${secret}`,
        `sqs:SendMessage ${queue}`,
        `sqs:ReceiveMessage ${queue}`,
        `sqs:DeleteMessage ${queue}`,
        `sqs:GetQueueAttributes ${queue}`,
      ].sort(),
    );
    // No managed policies: each role has only the statements above, its log group's and X-Ray's.
    for (const [, role] of ofType('AWS::IAM::Role').filter(([id]) => id.startsWith('DemoProvider'))) expect(role.Properties.ManagedPolicyArns).toBeUndefined();
  });

  it("keeps each function's logs in a log group of its own, with a retention", () => {
    for (const handler of ['handler', 'queueHandler']) {
      const logGroup = resources[functionId(handler)]!.Properties.LoggingConfig.LogGroup.Ref as string;
      expect(resources[logGroup]!.Properties).toMatchObject({ RetentionInDays: 14 });
    }
  });

  it("gives the stage's monitoring an alarm on each function's errors and on a job in its dead-letter queue (the stage mails every alarm)", () => {
    const alarms = ofType('AWS::CloudWatch::Alarm').map(([, alarm]) => alarm.Properties);
    expect(alarms).toHaveLength(3);
    for (const handler of ['handler', 'queueHandler']) {
      const fn = functionId(handler);
      const errors = alarms.filter((alarm) => alarm.MetricName === 'Errors' && refersTo(alarm.Dimensions, fn));
      expect(errors, handler).toEqual([expect.objectContaining({ Namespace: 'AWS/Lambda', Statistic: 'Sum', Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold' })]);
    }
    const deadLetterQueue = idOf('AWS::SQS::Queue', (queue) => queue.Properties.RedrivePolicy === undefined);
    const deadLetters = alarms.filter((alarm) => alarm.MetricName === 'ApproximateNumberOfMessagesVisible');
    expect(deadLetters).toEqual([expect.objectContaining({ Namespace: 'AWS/SQS', Statistic: 'Maximum', Threshold: 1 })]);
    expect(refersTo(deadLetters[0]!.Dimensions, deadLetterQueue)).toBe(true);
  });

  it('has no finding of the AwsSolutions or Serverless packs that is not acknowledged, its method on the API included', () => {
    const findings = nagPacks().flatMap((pack) =>
      pack.validateScope(stack).violations.flatMap((violation) => violation.violatingResources.map((resource) => `${violation.ruleName}: ${resource.constructPath}`)),
    );
    // The bare API's own findings are the gateway stack's to settle; the construct's resources and the API's /demo-provider ones are its.
    expect(findings.some((finding) => finding.includes('/Api/'))).toBe(true);
    expect(findings.filter((finding) => /\/DemoProvider|\/demo-provider\//.test(finding))).toEqual([]);
  });
});
