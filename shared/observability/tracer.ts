/**
 * X-Ray tracing (Powertools for AWS Lambda): the container's tracer, the SDK clients it records,
 * and the wrapper that traces, and gives the log its Lambda context to, every function that is not
 * an HTTP route (those get both from the HTTP chain). Outside Lambda, or with
 * `POWERTOOLS_TRACE_ENABLED=false`, it records nothing.
 */
import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { Tracer } from '@aws-lambda-powertools/tracer';
import { captureLambdaHandler } from '@aws-lambda-powertools/tracer/middleware';
import type { Context } from 'aws-lambda';
import { logger } from './logger.js';
import { SERVICE_NAME } from './catalogue.js';

export const tracer = new Tracer({ serviceName: SERVICE_NAME });

/** The client, each of its calls a subsegment of the invocation's trace. */
export const traced = <Client extends Parameters<Tracer['captureAWSv3Client']>[0]>(client: Client): Client => tracer.captureAWSv3Client(client);

/**
 * Responses are not recorded: an authorizer's names the merchant, a batch's its messages; the
 * trace needs the timing, not the data.
 */
export const TRACE_OPTIONS = { captureResponse: false } as const;

export function observed<Event, Result>(handler: (event: Event, context: Context) => Promise<Result>) {
  return middy(handler)
    .use(captureLambdaHandler(tracer, TRACE_OPTIONS))
    .use(injectLambdaContext(logger, { resetKeys: true }));
}
