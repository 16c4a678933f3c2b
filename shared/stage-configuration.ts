/**
 * The stage's configuration as a function uses it (docs/operations.md#stage-configuration): on one
 * machine what the environment gives; in AWS its documents in SSM Parameter Store, read when the
 * container loads and read again as the providers' secrets are (shared/refreshed.ts), a read that
 * fails leaving the last in use. Callers take `current()` when they use it, never once at load.
 */
import { GetParametersCommand, type SSMClient } from '@aws-sdk/client-ssm';
import { stageConfigurationOf, type StageConfiguration, type StageConfigurationSource } from './config.js';
import { refreshed, type RefreshOptions } from './refreshed.js';

export interface LiveStageConfiguration {
  /** The configuration last read; the same object until a read finds the documents changed. */
  current(): StageConfiguration;
}

/** Reads SSM parameters by name, answering each one's value by its name. */
export type ParametersReader = (names: readonly string[]) => Promise<Record<string, string>>;

/** Every parameter named, in one call; one that does not exist is left out of the answer. */
export const ssmParametersReader =
  (ssm: Pick<SSMClient, 'send'>): ParametersReader =>
  async (names) => {
    const { Parameters = [] } = await ssm.send(new GetParametersCommand({ Names: [...names] }));
    return Object.fromEntries(Parameters.map((parameter) => [parameter.Name!, parameter.Value ?? '']));
  };

/**
 * The configuration `source` names, read once before this resolves (a failure fails the cold
 * start, naming what is wrong); `read` is only called when the source is SSM.
 */
export async function loadStageConfiguration(source: StageConfigurationSource, read: () => ParametersReader, options: RefreshOptions = {}): Promise<LiveStageConfiguration> {
  if (source.kind === 'environment') return { current: () => source.configuration };
  const { base, parameterNames } = source;
  const names = Object.values(parameterNames).filter((name): name is string => name !== undefined);
  const readParameters = read();
  let last: { texts: string; configuration: StageConfiguration } | undefined;
  const configuration = refreshed(async () => {
    const values = await readParameters(names);
    // The configuration must exist. The networks' endpoints are the jobs stack's, deployed after
    // the API's: until they exist, no network has a node (payouts are not quoted, 503).
    const missing = parameterNames.configuration !== undefined && values[parameterNames.configuration] === undefined;
    if (missing) throw new Error(`Stage configuration parameters not found: ${parameterNames.configuration}`);
    const texts = JSON.stringify(names.map((name) => values[name]));
    // Unchanged documents keep the configuration built from them, and whatever callers built on it.
    if (last?.texts !== texts) {
      const documents = { configuration: parameterNames.configuration && values[parameterNames.configuration], chainEndpoints: parameterNames.chainEndpoints && values[parameterNames.chainEndpoints] };
      last = { texts, configuration: stageConfigurationOf(base, documents) };
    }
    return last.configuration;
  }, options);
  await configuration.get();
  return { current: () => configuration.latest()! };
}
