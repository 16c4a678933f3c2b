/**
 * A stage's jobs: the functions that run on a schedule or consume a queue (the queues are the
 * data stack's), the chain watcher's document of its networks' endpoints, and the EventBridge
 * rules that run the scheduled functions: one per function, a chain watcher one per watched
 * network (its event `{ network, watchForSeconds }`: it polls for most of its period, ending
 * before the next invocation), and the rates schedule only where rates are live.
 */
import { Duration, Stack, type StackProps } from 'aws-cdk-lib';
import { Rule, RuleTargetInput, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { CryptoNetwork } from '../../shared/domain/kernel/index.js';
import { chainWatchSecondsOf } from '../../shared/platform.js';
import type { Construct } from 'constructs';
import { functionsForStage, type GatewayFunction as FunctionDefinition } from '../../shared/routes.js';
import type { Stage } from '../../shared/stage.js';
import { pascalCase } from './construct-ids.js';
import type { GatewayApiStack } from './gateway-api.js';
import { GatewayFunction, type GatewayFunctionProps } from './gateway-function.js';
import { chainEndpointsParameter } from './stage-configuration.js';
import type { StageSettings } from './stage-settings.js';
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
  constructor(stack: Construct, { functions, watchedNetworks, chainPollSeconds, liveRates }: GatewaySchedulesProps) {
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

export interface GatewayJobsStackProps extends StackProps {
  stage: Stage;
  settings: StageSettings;
  /** The stage's API: its public URL, its providers and its configuration document, which the jobs read too. */
  api: GatewayApiStack;
  watchedNetworks: readonly CryptoNetwork[];
  /** GATEWAY_CHAIN_POLL_S as the chain watcher is given it. */
  chainPollSeconds: number;
  /** Whether the stage's rates are live: the rates schedule runs only then. */
  liveRates: boolean;
  /** What each of the stage's functions is made with but its public URL and its stage configuration, which this stack adds. */
  functionProps: (definition: FunctionDefinition) => Omit<GatewayFunctionProps, 'stageConfiguration' | 'apiKeyRegistration' | 'providerSecrets'>;
}

export class GatewayJobsStack extends Stack {
  /** The scheduled and queue functions of the stage. */
  readonly functions: GatewayFunction[];

  constructor(scope: Construct, id: string, { stage, settings, api, watchedNetworks, chainPollSeconds, liveRates, functionProps, ...stackProps }: GatewayJobsStackProps) {
    super(scope, id, { description: `Payment gateway ${stage}: its schedules and queue consumers`, terminationProtection: settings.protectData, ...stackProps });
    // Its functions read the API's configuration document, and run only once the API is there to take what they hand it.
    this.addStackDependency(api);
    const chainEndpoints = chainEndpointsParameter(this, stage, watchedNetworks);
    this.functions = functionsForStage(stage)
      .filter((definition) => definition.kind === 'schedule' || definition.kind === 'queue')
      .map((definition) => {
        const props = functionProps(definition);
        return new GatewayFunction(this, pascalCase(definition.name), {
          ...props,
          environment: { ...props.environment, PUBLIC_BASE_URL: api.publicBaseUrl },
          providerSecrets: api.providers.map(({ secret }) => secret),
          stageConfiguration: { configuration: api.stageConfiguration, chainEndpoints },
        });
      });
    new GatewaySchedules(this, { functions: this.functions, watchedNetworks, chainPollSeconds, liveRates });
  }
}
