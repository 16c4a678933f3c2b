/**
 * The business metrics as CloudWatch embedded metric format (Powertools for AWS Lambda): one JSON
 * line on stdout per event, with its own dimensions besides `service` and `stage`, which CloudWatch
 * Logs turns into metrics; no API call. `POWERTOOLS_METRICS_DISABLED=true` (the local runtime and
 * the tests) writes nothing.
 */
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { config } from '../config.js';
import type { BusinessMetrics } from '../domain/metrics.js';
import { BUSINESS_METRICS, METRICS_NAMESPACE, SERVICE_NAME, type BusinessMetricDefinition } from './catalogue.js';

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
};
