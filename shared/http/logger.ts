import { Logger } from '@aws-lambda-powertools/logger';

/** One structured logger per container. Log lines never carry request bodies or secrets. */
export const logger = new Logger({ serviceName: 'payment-gateway' });
