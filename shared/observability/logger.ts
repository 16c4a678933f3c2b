import { Logger } from '@aws-lambda-powertools/logger';
import { SERVICE_NAME } from './catalogue.js';
import { redactingJsonReplacer } from './redaction.js';

/**
 * One structured logger per container. Log lines never carry request bodies or secrets; a
 * credential a client put in a URL's query string is redacted from any text a line carries.
 */
export const logger = new Logger({ serviceName: SERVICE_NAME, jsonReplacerFn: redactingJsonReplacer });

/**
 * A scheduled run's summary: INFO when the run found or changed something, DEBUG when it had
 * nothing to do, so that schedules running every few seconds log only what is worth reading.
 */
export function logScheduledRun(message: string, details: Record<string, unknown>, foundOrChanged: boolean): void {
  if (foundOrChanged) logger.info(message, details);
  else logger.debug(message, details);
}
