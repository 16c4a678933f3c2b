/** The stage's configuration as the functions of this test run read it: from the environment, on one machine (docs/operations.md#stage-configuration). */
import { config, type StageConfiguration } from '../../shared/config.js';

export function localStageConfiguration(): StageConfiguration {
  const source = config().stageConfiguration;
  if (source.kind !== 'environment') throw new Error('The functions of this run read their stage configuration from SSM, not from the environment');
  return source.configuration;
}
