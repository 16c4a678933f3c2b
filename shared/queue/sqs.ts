/** The container's SQS client; `AWS_ENDPOINT_URL_SQS` points it at a local server. */
import { SQSClient } from '@aws-sdk/client-sqs';
import { traced } from '../observability/tracer.js';

export const sqsClient = traced(new SQSClient({}));
