/**
 * The business metrics as CloudWatch embedded metric format (Powertools for AWS Lambda): one JSON
 * line on stdout per event, with its own dimensions besides `service` and `stage`, which CloudWatch
 * Logs turns into metrics; no API call. `POWERTOOLS_METRICS_DISABLED=true` (the local runtime and
 * the tests) writes nothing.
 */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { config } from '../config.js';
import type { RpcRunReport } from '../chain/failover-reader.js';
import type { BusinessMetrics } from '../domain/kernel/index.js';
import { BUSINESS_METRICS, CHAIN_RPC_METRICS, METRICS_NAMESPACE, SERVICE_NAME, type BusinessMetricDefinition } from './catalogue.js';

const metrics = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: SERVICE_NAME, defaultDimensions: { stage: config().stage } });

/** Published at once, with only its own dimension: events of one invocation differ in theirs. */
function emit(metric: BusinessMetricDefinition, value: number, dimensionValue?: string): void {
  const single = metrics.singleMetric();
  if (metric.dimension && dimensionValue) single.addDimension(metric.dimension, dimensionValue);
  single.addMetric(metric.name, MetricUnit[metric.unit], value);
}

export const businessMetrics: BusinessMetrics = {
  invoiceCreated: (method) => emit(BUSINESS_METRICS.invoicesCreated, 1, method),
  depositSettled: (source, status) => emit(status === 'confirmed' ? BUSINESS_METRICS.depositsConfirmed : BUSINESS_METRICS.depositsFailed, 1, source),
  callbackDelivered: (latencyMs) => {
    emit(BUSINESS_METRICS.callbacksDelivered, 1);
    emit(BUSINESS_METRICS.callbackDeliveryLatency, latencyMs);
  },
  callbackFailed: () => emit(BUSINESS_METRICS.callbacksFailed, 1),
  callbackParked: () => emit(BUSINESS_METRICS.callbacksParked, 1),
  rateAge: (seconds) => emit(BUSINESS_METRICS.rateAge, seconds),
  reconciled: ({ overdue, failures }) => {
    emit(BUSINESS_METRICS.providerOverdue, overdue);
    emit(BUSINESS_METRICS.providerFailures, failures);
  },
  booksChecked: (differences) => emit(BUSINESS_METRICS.booksDifferences, differences),
  treasuryShortfall: (network, asset, short) => {
    emit(BUSINESS_METRICS.treasuryShortfall, short, `${network}/${asset}`);
    emit(BUSINESS_METRICS.treasuryShortfall, short);
  },
};

/** Several metrics in one document, with these dimensions besides `service` and `stage`. */
function emitTogether(dimensions: Record<string, string>, values: ReadonlyArray<readonly [{ name: string }, number]>): void {
  const document = new Metrics({ namespace: METRICS_NAMESPACE, serviceName: SERVICE_NAME, defaultDimensions: { stage: config().stage } });
  for (const [name, value] of Object.entries(dimensions)) document.addDimension(name, value);
  for (const [metric, value] of values) document.addMetric(metric.name, MetricUnit.Count, value);
  document.publishStoredMetrics();
}

/** A watcher run's RPC endpoints (CHAIN_RPC_METRICS): a document per endpoint, and the network's verdict. */
export function chainRpcRunMetrics(report: RpcRunReport): void {
  for (const endpoint of report.endpoints) {
    emitTogether({ network: report.network, endpoint: String(endpoint.position) }, [
      [CHAIN_RPC_METRICS.answered, endpoint.answered],
      [CHAIN_RPC_METRICS.failed, endpoint.failed],
      [CHAIN_RPC_METRICS.lagging, endpoint.laggingHead === undefined ? 0 : 1],
    ]);
  }
  emitTogether({ network: report.network }, [[CHAIN_RPC_METRICS.allFailed, report.allFailed ? 1 : 0]]);
}
