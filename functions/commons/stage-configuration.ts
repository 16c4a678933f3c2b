/**
 * The stage's configuration (docs/operations.md#stage-configuration), read once when the container
 * loads and kept fresh from then on: only the functions whose route-table entry reads it
 * (`readsStageConfiguration`) import this, and each takes `stageConfiguration.current()` where it
 * uses it.
 */
import { SSMClient } from '@aws-sdk/client-ssm';
import { config } from '../../shared/config.js';
import { failureReason } from '../../shared/observability/failure-reason.js';
import { logger } from '../../shared/observability/logger.js';
import { traced } from '../../shared/observability/tracer.js';
import { loadStageConfiguration, ssmParametersReader } from '../../shared/stage-configuration.js';

export const stageConfiguration = await loadStageConfiguration(config().stageConfiguration, () => ssmParametersReader(traced(new SSMClient({}))), {
  onKeptAfterFailure: (error) => logger.warn('The stage configuration could not be read again; the last one read stays in use', { reason: failureReason(error) }),
});
