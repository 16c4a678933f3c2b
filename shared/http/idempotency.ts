/**
 * `Idempotency-Key` on POST routes (docs/merchant-guide.md#idempotency): the same key and body within 24 h replay the
 * first response; the same key with another body, or while the first is still running, is a 409.
 * Records live in the idempotency table through Powertools for AWS Lambda.
 */
import { IdempotencyAlreadyInProgressError, IdempotencyConfig, IdempotencyValidationError, makeIdempotent } from '@aws-lambda-powertools/idempotency';
import { DynamoDBPersistenceLayer } from '@aws-lambda-powertools/idempotency/dynamodb';
import type { Context } from 'aws-lambda';
import { ApiError } from '../errors.js';
import { config } from '../config.js';
import { dynamoClient } from '../store/dynamo.js';
import { Invalid } from '../domain/kernel/index.js';

const RETENTION_SECONDS = 24 * 60 * 60;

interface IdempotentPayload {
  merchantId: string;
  key: string;
  body: unknown;
}

/** Wraps `run` so that requests carrying the header are answered once per (merchant, key). */
export function idempotentByHeader<Result>(routeName: string): (payload: IdempotentPayload, context: Context, runRequest: () => Promise<Result>) => Promise<Result> {
  const idempotencyConfig = new IdempotencyConfig({
    eventKeyJmesPath: '[merchantId, key]',
    payloadValidationJmesPath: 'body',
    expiresAfterSeconds: RETENTION_SECONDS,
  });
  const once = makeIdempotent(async (_payload: IdempotentPayload, runRequest: () => Promise<Result>) => runRequest(), {
    persistenceStore: new DynamoDBPersistenceLayer({ tableName: config().tables.idempotency, awsSdkV3Client: dynamoClient }),
    config: idempotencyConfig,
    keyPrefix: routeName,
  });
  return async (payload, context, runRequest) => {
    if (payload.key.length < 1 || payload.key.length > 255) {
      throw Invalid.of('Idempotency-Key', 'Idempotency-Key must be 1 to 255 characters');
    }
    if (typeof context.getRemainingTimeInMillis === 'function') idempotencyConfig.registerLambdaContext(context);
    try {
      return await once(payload, runRequest);
    } catch (error) {
      if (error instanceof IdempotencyValidationError) {
        throw new ApiError('conflict', 'This Idempotency-Key was already used with a different request body');
      }
      if (error instanceof IdempotencyAlreadyInProgressError) {
        throw new ApiError('conflict', 'A request with this Idempotency-Key is still being processed; retry shortly');
      }
      throw error;
    }
  };
}
