/**
 * The EventBridge rules that run the stage's scheduled functions: one per function, a chain
 * watcher one per watched network (its event `{ network, watchForSeconds }`: it polls for most of
 * its period, ending before the next invocation), and the rates schedule only where rates are live.
 *
 * Made in the stack itself (gateway-stack.ts says why).
 */
import { Duration, type Stack } from 'aws-cdk-lib';
import { Rule, RuleTargetInput, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { CryptoNetwork } from '../../shared/domain/currencies.js';
import { chainWatchSecondsOf } from '../../shared/platform.js';
import { pascalCase } from './construct-ids.js';
import type { GatewayFunction } from './gateway-function.js';
import { acknowledge } from './nag.js';

export interface GatewaySchedulesProps {
  /** The stage's functions; those of kind `schedule` are scheduled. */
  functions: readonly GatewayFunction[];
  watchedNetworks: readonly CryptoNetwork[];
  /** GATEWAY_CHAIN_POLL_S as the watchers are given it: their invocations poll until one interval before the next. */
  chainPollSeconds: number;
  /** Whether the stage's rates are live, which a function `onlyWithLiveRates` needs. */
  liveRates: boolean;
}

export class GatewaySchedules {
  constructor(stack: Stack, { functions, watchedNetworks, chainPollSeconds, liveRates }: GatewaySchedulesProps) {
    for (const fn of functions) {
      const { definition } = fn;
      if (definition.kind !== 'schedule' || (definition.onlyWithLiveRates && !liveRates)) continue;
      const runs = definition.perNetwork
        ? watchedNetworks.map((network) => ({ id: pascalCase(network), input: { network, watchForSeconds: chainWatchSecondsOf(definition.everySeconds, chainPollSeconds) } }))
        : [{ id: '', input: undefined }];
      for (const { id, input } of runs) {
        const rule = new Rule(stack, `${pascalCase(definition.name)}${id}Schedule`, {
          description: `Runs ${definition.name}${input ? ` for ${input.network}` : ''} every ${definition.everySeconds} s`,
          schedule: Schedule.rate(Duration.seconds(definition.everySeconds)),
          targets: [new LambdaFunction(fn, input ? { event: RuleTargetInput.fromObject(input) } : {})],
        });
        acknowledge(
          rule,
          ['Serverless-EventBusDLQ'],
          'A run EventBridge could not hand to Lambda is not worth keeping: the next one, a period later, does the same work. Lambda queues a throttled run itself.',
        );
      }
    }
  }
}
