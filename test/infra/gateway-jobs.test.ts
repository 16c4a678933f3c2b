/**
 * A stage's schedules as synthesized (infra/aws/gateway-jobs.ts): each scheduled function on its
 * EventBridge rate, with what it may read and write.
 *
 * Bundling is skipped (it changes nothing these assertions read); cdk-app.test.ts bundles every
 * function through the real CLI. Each stage is read as one template (test/support/stage-view.ts).
 */
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { functionsForStage } from '../../shared/routes.js';
import { SQS_SEND, refersTo, sorted, describeEachStage } from '../support/stage-view.js';

describeEachStage((stage, v) => {
  const definitions = functionsForStage(stage);

  describe('schedules', () => {
    // The chain watcher's rules come with the networks a stage watches, the rates schedule with
    // live rates, prod's default (both below).
    const scheduled = definitions.flatMap((f) => (f.kind === 'schedule' && !f.perNetwork && (stage === 'prod' || !f.onlyWithLiveRates) ? [f] : []));

    /** EventBridge's rate of a period, in the largest whole unit, as CDK writes it. */
    const rateOf = (seconds: number) => {
      const [amount, unit] = seconds % 86_400 === 0 ? [seconds / 86_400, 'day'] : seconds % 3600 === 0 ? [seconds / 3600, 'hour'] : [seconds / 60, 'minute'];
      return `rate(${amount} ${unit}${amount === 1 ? '' : 's'})`;
    };

    it.each(scheduled.map((f) => [f.name, f] as const))('%s runs on its EventBridge rate', (name, definition) => {
      v().template.hasResourceProperties('AWS::Events::Rule', {
        ScheduleExpression: rateOf(definition.everySeconds),
        Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [v().functionIds().get(name), 'Arn'] } })],
      });
    });

    it('targets expire-invoices every minute', () => {
      v().template.hasResourceProperties('AWS::Events::Rule', {
        ScheduleExpression: 'rate(1 minute)',
        Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [v().functionIds().get('expire-invoices'), 'Arn'] } })],
      });
      v().template.resourceCountIs('AWS::Events::Rule', scheduled.length);
    });

    it('runs reconcile-provider-payments every 5 minutes, one run at a time, reading what waits on a provider by its indexes', () => {
      const functionId = v().functionIds().get('reconcile-provider-payments')!;
      const rules = v()
        .resources('AWS::Events::Rule')
        .filter(([, rule]) => refersTo(rule.Properties.Targets, functionId));
      expect(rules.map(([, rule]) => rule.Properties)).toEqual([
        expect.objectContaining({ ScheduleExpression: 'rate(5 minutes)', State: 'ENABLED', Targets: [expect.objectContaining({ Arn: { 'Fn::GetAtt': [functionId, 'Arn'] } })] }),
      ]);
      // EventBridge may invoke it.
      v().template.hasResourceProperties('AWS::Lambda::Permission', {
        Action: 'lambda:InvokeFunction',
        FunctionName: { 'Fn::GetAtt': [functionId, 'Arn'] },
        Principal: 'events.amazonaws.com',
        SourceArn: { 'Fn::GetAtt': [rules[0]![0], 'Arn'] },
      });
      expect(v().functionNamed('reconcile-provider-payments').Properties).toMatchObject({ Timeout: 300, ReservedConcurrentExecutions: 1 });
      expect(v().grantsOf('reconcile-provider-payments')).toEqual(
        expect.arrayContaining([`dynamodb:Query ${v().tableId('invoices')}/index/awaitingProvider`, `dynamodb:Query ${v().tableId('transactions')}/index/awaitingProvider`]),
      );
      expect(v().queueActionsOf('reconcile-provider-payments')).toEqual(new Map([[v().queueIds().queue, sorted(SQS_SEND)]]));
    });

    it('runs publish-callbacks every minute, with the outbox and the callbacks queue and nothing more', () => {
      v().template.hasResourceProperties('AWS::Events::Rule', {
        ScheduleExpression: 'rate(1 minute)',
        Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [v().functionIds().get('publish-callbacks'), 'Arn'] } })],
      });
      const granted = v().tableActionsOf('publish-callbacks');
      expect([...granted.keys()]).toEqual(['outbox']);
      // Reads the sparse index of unpublished entries and marks each published; never scans the table.
      expect(v().grantsOf('publish-callbacks')).toContain(`dynamodb:Query ${v().tableId('outbox')}/index/unpublished`);
      expect([...granted.get('outbox')!]).toContain('dynamodb:UpdateItem');
      expect([...granted.get('outbox')!].filter((action) => /Scan|Delete/.test(action))).toEqual([]);
      expect(v().queueActionsOf('publish-callbacks')).toEqual(new Map([[v().queueIds().queue, sorted(SQS_SEND)]]));
    });
  });
});
