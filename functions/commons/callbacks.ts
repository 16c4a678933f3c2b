/** Hands owed callbacks to the callbacks queue: for the functions that owe callbacks or sweep the outbox. */
import { config } from '../../shared/config.js';
import { CallbackPublisher } from '../../shared/queue/callbacks.js';
import { sqsClient } from '../../shared/queue/sqs.js';
import { outboxStore } from './stores.js';

export const callbackPublisher = new CallbackPublisher(sqsClient, config().callbackQueueUrl, outboxStore);
