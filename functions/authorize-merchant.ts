/**
 * API Gateway REQUEST authorizer: resolves `x-api-key` to its merchant. The key's digest is the
 * usage-plan identifier, so throttling is per key without API Gateway ever holding the key.
 */
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { config } from '../shared/config.js';
import { digestApiKey, digestsEqual, isWellFormedApiKey } from '../shared/domain/merchants.js';
import { documentClient } from '../shared/store/dynamo.js';
import { DynamoMerchantStore } from '../shared/store/merchants.js';

const merchants = new DynamoMerchantStore(documentClient, config().tables);

/** API Gateway answers 401 (rendered as the envelope) when an authorizer throws exactly this. */
const UNAUTHORIZED = 'Unauthorized';

/** Allows every method of the API, so a cached decision serves all of the merchant's routes. */
function apiWideResource(methodArn: string): string {
  // arn:aws:execute-api:{region}:{account}:{apiId}/{stage}/{METHOD}/{path...}
  const [api, stage] = methodArn.split('/');
  return `${api}/${stage}/*/*`;
}

export const handler = async (event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> => {
  const header = Object.entries(event.headers ?? {}).find(([name]) => name.toLowerCase() === 'x-api-key')?.[1];
  if (!header || !isWellFormedApiKey(header)) throw new Error(UNAUTHORIZED);

  const digest = digestApiKey(header);
  const key = await merchants.findKeyByDigest(digest);
  if (!key || key.status !== 'active' || !digestsEqual(key.digest, digest)) throw new Error(UNAUTHORIZED);

  return {
    principalId: key.merchantId,
    usageIdentifierKey: digest,
    policyDocument: {
      Version: '2012-10-17',
      Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: apiWideResource(event.methodArn) }],
    },
    context: { merchantId: key.merchantId, keyId: key.keyId },
  };
};
