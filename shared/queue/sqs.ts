/** The container's SQS client; `AWS_ENDPOINT_URL_SQS` points it at a local server. */
import { SQSClient } from '@aws-sdk/client-sqs';

export const sqsClient = new SQSClient({});
