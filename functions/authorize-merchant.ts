/**
 * API Gateway REQUEST authorizer: resolves `x-api-key` to its merchant. The key's digest is the
 * usage-plan identifier, so throttling is per key without API Gateway ever holding the key.
 */
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { config } from '../shared/config.js';
import { digestApiKey, digestsEqual, encodeKeyReach, isWellFormedApiKey, recordKeyUse } from '../shared/domain/merchants/index.js';
import { failureReason } from '../shared/observability/failure-reason.js';
import { logger } from '../shared/observability/logger.js';
import { observed } from '../shared/observability/tracer.js';
import { documentClient } from '../shared/store/dynamo.js';
import { DynamoMerchantStore } from '../shared/store/merchants.js';

const merchants = new DynamoMerchantStore(documentClient, config().tables);

/** Who a refused key is, in the access log: nobody. */
const REFUSED_PRINCIPAL = 'anonymous';

/** Every method of the API, so a cached decision serves all of the key's routes. */
function apiWideResource(methodArn: string): string {
  // arn:aws:execute-api:{region}:{account}:{apiId}/{stage}/{METHOD}/{path...}
  const [api, stage] = methodArn.split('/');
  return `${api}/${stage}/*/*`;
}

const policy = (effect: 'Allow' | 'Deny', methodArn: string): APIGatewayAuthorizerResult['policyDocument'] => ({
  Version: '2012-10-17',
  Statement: [{ Action: 'execute-api:Invoke', Effect: effect, Resource: apiWideResource(methodArn) }],
});

/**
 * A key that is malformed, unknown or revoked is denied (API Gateway answers 403 ACCESS_DENIED,
 * rendered as the 401 envelope) rather than thrown at: a denial is an answer, not a failure of the
 * function, so it counts in no error metric.
 */
const deny = (methodArn: string): APIGatewayAuthorizerResult => ({ principalId: REFUSED_PRINCIPAL, policyDocument: policy('Deny', methodArn) });

export const handler = observed(async (event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> => {
  const header = Object.entries(event.headers ?? {}).find(([name]) => name.toLowerCase() === 'x-api-key')?.[1];
  if (!header || !isWellFormedApiKey(header)) return deny(event.methodArn);

  const digest = digestApiKey(header);
  const key = await merchants.findKeyByDigest(digest);
  if (key?.status !== 'active' || !digestsEqual(key.digest, digest)) return deny(event.methodArn);

  // The key's last use, for its merchant's list of keys: a failure to record it refuses nothing.
  await recordKeyUse(merchants, key, new Date()).catch((error: unknown) => logger.warn('Could not record the last use of an API key', { keyId: key.keyId, reason: failureReason(error) }));

  return {
    principalId: key.merchantId,
    usageIdentifierKey: digest,
    policyDocument: policy('Allow', event.methodArn),
    // What the key may do and from where: every function checks its route's scope against them (shared/http/handler.ts).
    context: { merchantId: key.merchantId, keyId: key.keyId, ...encodeKeyReach(key) },
  };
});
