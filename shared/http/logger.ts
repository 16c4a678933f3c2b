import { Logger } from '@aws-lambda-powertools/logger';
import { SERVICE_NAME } from '../platform.js';

/** One structured logger per container. Log lines never carry request bodies or secrets. */
export const logger = new Logger({ serviceName: SERVICE_NAME });
