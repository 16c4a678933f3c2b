/**
 * A stage's queues as synthesized (infra/aws/gateway-queues.ts): each with its consumer,
 * dead-letter queue, encryption, alarms and outputs, and the callbacks queue's timing.
 *
 * Bundling is skipped (it changes nothing these assertions read); cdk-app.test.ts bundles every
 * function through the real CLI. Each stage is read as one template (test/support/stage-view.ts).
 */
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { functionsForStage, type QueueFunction } from '../../shared/routes.js';
import { refersTo, outputName, queuesOf, describeEachStage } from '../support/stage-view.js';

/** Four hours: past every retry's third attempt, so only a stalled queue gets there. */
const BACKLOG_AGE_SECONDS = 4 * 3600;

describeEachStage((stage, v) => {
  const definitions = functionsForStage(stage);

  describe.each(queuesOf(stage).map(([name, queue]) => [queue.name, name, queue] as const))('%s queue', (_, queueName, definition) => {
    const queues = () => v().queueIds(queueName);
    const consumers = definitions.filter((f): f is QueueFunction => f.kind === 'queue' && f.queue === queueName);
    const mappingOf = (name: string) => {
      const functionId = v().functionIds().get(name);
      const mappings = v()
        .resources('AWS::Lambda::EventSourceMapping')
        .filter(([, m]) => refersTo(m.Properties.FunctionName, functionId!));
      expect(mappings).toHaveLength(1);
      return mappings[0]![1].Properties;
    };

    it('has one consumer', () => {
      expect(consumers).toHaveLength(1);
    });

    it.each(consumers.map((f) => [f.name, f] as const))('%s: reads its own queue in batches of its route-table size, reporting partial failures', (name, consumer) => {
      expect(mappingOf(name)).toMatchObject({
        EventSourceArn: { 'Fn::GetAtt': [queues().queue, 'Arn'] },
        FunctionName: { Ref: v().functionIds().get(name) },
        BatchSize: consumer.batchSize,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
      });
      // Its queue's own batching window: none where a message should not wait for others to fill a batch.
      expect(mappingOf(name).MaximumBatchingWindowInSeconds ?? 0).toBe(definition.batchingWindowSeconds);
    });

    it.each(consumers.map((f) => [f.name] as const))('%s: the queue hides a message for six of its timeouts plus the batching window', (name) => {
      const mapping = mappingOf(name);
      const queue = v().json.Resources[mapping.EventSourceArn['Fn::GetAtt'][0]]!.Properties;
      const requiredSeconds = 6 * v().functionNamed(name).Properties.Timeout + (mapping.MaximumBatchingWindowInSeconds ?? 0);
      expect(queue.VisibilityTimeout).toBe(definition.visibilityTimeoutSeconds);
      expect(queue.VisibilityTimeout).toBeGreaterThanOrEqual(requiredSeconds);
    });

    it('redrives after its maxReceiveCount to a dead-letter queue kept 14 days, with its visibility timeout', () => {
      const { queue, deadLetter } = queues();
      expect(v().json.Resources[queue]!.Properties).toMatchObject({
        VisibilityTimeout: definition.visibilityTimeoutSeconds,
        RedrivePolicy: { maxReceiveCount: definition.maxReceiveCount },
      });
      expect(v().json.Resources[deadLetter]!.Properties.MessageRetentionPeriod).toBe(14 * 24 * 3600);
    });

    it('encrypts the queue and its dead-letter queue and refuses plain-HTTP access to them', () => {
      for (const id of Object.values(queues())) {
        expect(v().json.Resources[id]!.Properties.SqsManagedSseEnabled).toBe(true);
        v().template.hasResourceProperties('AWS::SQS::QueuePolicy', {
          Queues: [{ Ref: id }],
          PolicyDocument: {
            Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Action: 'sqs:*', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]),
          },
        });
      }
    });

    it('plots the queue depth, in flight included, the oldest message and the dead letters', () => {
      const { queue, deadLetter } = queues();
      expect(v().dashboardQueueMetrics()).toEqual(
        expect.arrayContaining([
          ['ApproximateNumberOfMessagesVisible', queue],
          ['ApproximateNumberOfMessagesNotVisible', queue],
          ['ApproximateAgeOfOldestMessage', queue],
          ['ApproximateNumberOfMessagesVisible', deadLetter],
        ]),
      );
    });

    it('alarms as soon as one message waits in the dead-letter queue', () => {
      const { deadLetter } = queues();
      v().template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [deadLetter, 'QueueName'] } }],
        Threshold: 0,
        ComparisonOperator: 'GreaterThanThreshold',
        AlarmActions: [Match.anyValue()],
      });
    });

    it('is exported with its dead-letter queue, URLs and ARNs, as outputs named after their variables', () => {
      const { queue, deadLetter } = queues();
      const arnOutput = (variable: string) => outputName(variable).replace(/Url$/, 'Arn');
      expect(v().json.Outputs[outputName(definition.urlVariable)].Value).toEqual({ Ref: queue });
      expect(v().json.Outputs[outputName(definition.deadLetterUrlVariable)].Value).toEqual({ Ref: deadLetter });
      // What `aws sqs start-message-move-task` takes to redrive the dead-letter queue.
      expect(v().json.Outputs[arnOutput(definition.urlVariable)].Value).toEqual({ 'Fn::GetAtt': [queue, 'Arn'] });
      expect(v().json.Outputs[arnOutput(definition.deadLetterUrlVariable)].Value).toEqual({ 'Fn::GetAtt': [deadLetter, 'Arn'] });
    });
  });

  describe('callbacks queue', () => {
    const queues = () => v().queueIds();
    const mappingOf = (name: string) => {
      const functionId = v().functionIds().get(name);
      return v()
        .resources('AWS::Lambda::EventSourceMapping')
        .find(([, m]) => refersTo(m.Properties.FunctionName, functionId!))![1].Properties;
    };

    it("feeds send-callback 10 messages at a time; one event source per queue function of the stage, and the demo provider's in demo", () => {
      expect(mappingOf('send-callback')).toMatchObject({ EventSourceArn: { 'Fn::GetAtt': [queues().queue, 'Arn'] }, BatchSize: 10 });
      v().template.resourceCountIs('AWS::Lambda::EventSourceMapping', definitions.filter((f) => f.kind === 'queue').length + (stage === 'demo' ? 1 : 0));
    });

    it("waits for no batch to fill: a merchant's callback goes as soon as it is queued", () => {
      expect(mappingOf('send-callback').MaximumBatchingWindowInSeconds ?? 0).toBe(0);
    });

    it("has a visibility timeout of 180 s: six times send-callback's 30 s, with no batching window", () => {
      expect(v().json.Resources[queues().queue]!.Properties.VisibilityTimeout).toBe(180);
      expect(v().functionNamed('send-callback').Properties.Timeout).toBe(30);
    });

    it('alarms when the oldest callback has waited over 4 hours: deliveries are not progressing', () => {
      v().template.hasResourceProperties('AWS::CloudWatch::Alarm', {
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateAgeOfOldestMessage',
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [queues().queue, 'QueueName'] } }],
        Statistic: 'Maximum',
        Threshold: BACKLOG_AGE_SECONDS,
        ComparisonOperator: 'GreaterThanThreshold',
        AlarmActions: [Match.anyValue()],
      });
    });
  });
});
