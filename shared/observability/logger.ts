import { Logger } from '@aws-lambda-powertools/logger';
import { SERVICE_NAME } from './catalogue.js';
import { redactingJsonReplacer } from './redaction.js';

/**
 * One structured logger per container. Log lines never carry request bodies or secrets; a
 * credential a client put in a URL's query string is redacted from any text a line carries.
 */
export const logger = new Logger({ serviceName: SERVICE_NAME, jsonReplacerFn: redactingJsonReplacer });
