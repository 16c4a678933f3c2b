/**
 * A watcher run's RPC endpoints, reported once when the run ends (shared/chain/failover-reader.ts):
 * one log line naming what each endpoint answered and why one failed, WARN when any failed, lagged
 * or was passed over and DEBUG when the first answered everything (a run every few seconds logs
 * only what is worth reading), and the CHAIN_RPC_METRICS counts.
 */
import type { RpcRunReport } from '../chain/failover-reader.js';
import { logger } from './logger.js';
import { chainRpcRunMetrics } from './metrics.js';

export function reportChainRpcRun(report: RpcRunReport): void {
  const endpoints = report.endpoints.map(({ label, answered, failed, laggingHead, coolingDown, error }) => ({
    endpoint: label,
    answered,
    failed,
    ...(laggingHead !== undefined && { laggingHead }),
    ...(coolingDown && { coolingDown }),
    ...(error !== undefined && { error }),
  }));
  const details = { network: report.network, head: report.head, allFailed: report.allFailed, endpoints };
  const troubled = report.allFailed || report.endpoints.some((endpoint) => endpoint.failed > 0 || endpoint.laggingHead !== undefined || endpoint.coolingDown);
  if (troubled) logger.warn('Chain RPC endpoints of the run: some failed, lagged or were passed over', details);
  else logger.debug('Chain RPC endpoints of the run', details);
  chainRpcRunMetrics(report);
}
