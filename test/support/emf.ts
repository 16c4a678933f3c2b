/**
 * The CloudWatch embedded-metric-format lines Powertools writes to stdout, captured: what
 * CloudWatch Logs would turn into metrics. Metrics must be enabled (POWERTOOLS_METRICS_DISABLED
 * is true in the test environment, as locally).
 */
import { vi } from 'vitest';

export interface EmfLine {
  _aws: { Timestamp: number; CloudWatchMetrics: Array<{ Namespace: string; Dimensions: string[][]; Metrics: Array<{ Name: string; Unit: string }> }> };
  [field: string]: unknown;
}

/** The EMF lines written to stdout while `run` runs; they are kept off the console, anything else passes. */
export async function emfLinesOf(run: () => Promise<unknown>): Promise<EmfLine[]> {
  const lines: EmfLine[] = [];
  const write = process.stdout.write.bind(process.stdout);
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array, ...rest: unknown[]) => {
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    const emf = text.split('\n').filter((line) => line.startsWith('{"_aws"'));
    lines.push(...emf.map((line) => JSON.parse(line) as EmfLine));
    return emf.length > 0 || write(chunk, ...(rest as []));
  });
  try {
    await run();
  } finally {
    spy.mockRestore();
  }
  return lines;
}

/** The one metric of a line, with its dimension values and value. */
export const metricOf = (line: EmfLine) => {
  const [directive] = line._aws.CloudWatchMetrics;
  const [metric] = directive!.Metrics;
  return {
    namespace: directive!.Namespace,
    name: metric!.Name,
    unit: metric!.Unit,
    dimensions: Object.fromEntries(directive!.Dimensions[0]!.map((name) => [name, line[name]])),
    value: line[metric!.Name],
  };
};
