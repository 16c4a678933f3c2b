/**
 * The REQUEST authorizer called the way API Gateway calls it, against the test run's key table:
 * the policy it returns is cached by API Gateway, so it must cover every route of the API.
 */
import { createHash } from 'node:crypto';
import type { APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { handler } from '../../functions/authorize-merchant.js';
import { lambdaContext } from '../../infra/local/functions.js';
import { config } from '../../shared/config.js';
import { generateApiKeyText, LAST_USED_GRANULARITY_SECONDS, newApiKey } from '../../shared/domain/merchants/merchants.js';
import { logger } from '../../shared/observability/logger.js';
import { FUNCTIONS } from '../../shared/routes.js';
import { documentClient } from '../../shared/store/dynamo.js';
import { DynamoMerchantStore } from '../../shared/store/merchants.js';
import { seedMerchant, testMerchantStore, type SeededMerchant } from '../support/merchants.js';

const API_ARN = 'arn:aws:execute-api:eu-west-1:123456789012:abc123';
const METHOD_ARN = `${API_ARN}/prod/GET/api/v2/invoices/x`;

function authorizerEvent(headers: Record<string, string> | null, methodArn = METHOD_ARN): APIGatewayRequestAuthorizerEvent {
  const [, stage = 'prod', httpMethod = 'GET', ...path] = methodArn.split(':').at(-1)!.split('/');
  return {
    type: 'REQUEST',
    methodArn,
    resource: `/${path.join('/')}`,
    path: `/${path.join('/')}`,
    httpMethod,
    headers,
    multiValueHeaders: headers && Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]])),
    pathParameters: null,
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    stageVariables: null,
    requestContext: { accountId: '123456789012', apiId: 'abc123', stage, httpMethod, requestId: 'authorizer-test' } as APIGatewayRequestAuthorizerEvent['requestContext'],
  };
}

/** As Lambda calls it: with the event and a context. */
const authorize = (event: APIGatewayRequestAuthorizerEvent) => handler(event, lambdaContext(FUNCTIONS.find((fn) => fn.name === 'authorize-merchant')!));

/**
 * A refusal is an explicit Deny of the whole API, so API Gateway caches it for every route and
 * answers 403 ACCESS_DENIED (rendered as the 401 envelope); never a throw, which Lambda would
 * count as an error of the function.
 */
async function expectDenied(event: APIGatewayRequestAuthorizerEvent): Promise<void> {
  const result = await authorize(event);
  expect(result).toEqual({
    principalId: 'anonymous',
    policyDocument: { Version: '2012-10-17', Statement: [{ Action: 'execute-api:Invoke', Effect: 'Deny', Resource: `${API_ARN}/prod/*/*` }] },
  });
}

let merchant: SeededMerchant;

beforeAll(async () => {
  merchant = await seedMerchant();
});

/** Every scope, as the authorizer's context carries them. */
const ALL_SCOPES = 'read payments payouts reports settings';

describe('authorize-merchant', () => {
  it('allows a valid key for every method and path of the API, naming the merchant and the key', async () => {
    const result = await authorize(authorizerEvent({ 'x-api-key': merchant.apiKey }));
    expect(result).toEqual({
      principalId: merchant.merchant.id,
      usageIdentifierKey: createHash('sha256').update(merchant.apiKey, 'utf8').digest('hex'),
      policyDocument: {
        Version: '2012-10-17',
        Statement: [{ Action: 'execute-api:Invoke', Effect: 'Allow', Resource: `${API_ARN}/prod/*/*` }],
      },
      context: { merchantId: merchant.merchant.id, keyId: merchant.key.keyId, scopes: ALL_SCOPES, allowedIps: '' },
    });
  });

  it('returns the same API-wide resource whichever route asked, so a cached decision serves them all', async () => {
    const resources = await Promise.all(
      [`${API_ARN}/prod/POST/api/v2/invoices`, `${API_ARN}/prod/GET/api/v2/transaction/abc`, METHOD_ARN].map(async (arn) => {
        const result = await authorize(authorizerEvent({ 'x-api-key': merchant.apiKey }, arn));
        return result.policyDocument.Statement.map((statement) => ('Resource' in statement ? statement.Resource : undefined));
      }),
    );
    expect(resources).toEqual([[`${API_ARN}/prod/*/*`], [`${API_ARN}/prod/*/*`], [`${API_ARN}/prod/*/*`]]);
    const demo = await authorize(authorizerEvent({ 'x-api-key': merchant.apiKey }, `${API_ARN}/demo/GET/api/v2/invoices/x`));
    expect(demo.policyDocument.Statement[0]).toMatchObject({ Resource: `${API_ARN}/demo/*/*` });
  });

  it.each(['x-api-key', 'X-API-Key', 'X-API-KEY'])('reads the key from the header %s', async (name) => {
    const result = await authorize(authorizerEvent({ [name]: merchant.apiKey, 'content-type': 'application/json' }));
    expect(result.principalId).toBe(merchant.merchant.id);
    expect(result.context).toEqual({ merchantId: merchant.merchant.id, keyId: merchant.key.keyId, scopes: ALL_SCOPES, allowedIps: '' });
  });

  it.each([
    ['no headers at all', null],
    ['no x-api-key header', { 'content-type': 'application/json' }],
    ['an empty key', { 'x-api-key': '' }],
    ['a malformed key', { 'x-api-key': 'let-me-in' }],
    ['a key with one character too many', { 'x-api-key': `${generateApiKeyText('demo')}Z` }],
    ['a well-formed key nobody holds', { 'x-api-key': generateApiKeyText('demo') }],
    ['a well-formed key of the other stage nobody holds', { 'x-api-key': generateApiKeyText('prod') }],
  ])('denies %s, naming no merchant and no usage-plan key', async (_, headers) => {
    await expectDenied(authorizerEvent(headers));
  });

  it("passes the key's scopes and allowed addresses on, for the route to check; a key stored before scopes has every scope", async () => {
    const store = testMerchantStore();
    const scoped = newApiKey(merchant.merchant.id, config().stage, new Date(), { scopes: ['read', 'reports'], allowedIps: ['203.0.113.7', '10.0.0.0/8'] });
    await store.addKey(scoped.record);
    expect((await authorize(authorizerEvent({ 'x-api-key': scoped.text }))).context).toEqual({
      merchantId: merchant.merchant.id,
      keyId: scoped.record.keyId,
      scopes: 'read reports',
      allowedIps: '203.0.113.7,10.0.0.0/8',
    });
    const legacy = newApiKey(merchant.merchant.id, config().stage, new Date());
    const { scopes: _, ...storedBeforeScopes } = legacy.record;
    await store.addKey(storedBeforeScopes);
    expect((await authorize(authorizerEvent({ 'x-api-key': legacy.text }))).context).toMatchObject({ scopes: ALL_SCOPES, allowedIps: '' });
  });

  it("denies a revoked key, while the same merchant's other key still works", async () => {
    const revoked = await seedMerchant();
    const store = testMerchantStore();
    const second = newApiKey(revoked.merchant.id, config().stage, new Date());
    await store.addKey(second.record);

    expect((await authorize(authorizerEvent({ 'x-api-key': revoked.apiKey }))).principalId).toBe(revoked.merchant.id);
    expect(await store.revokeKey(revoked.merchant.id, revoked.key.keyId, new Date())).toBe(true);
    await expectDenied(authorizerEvent({ 'x-api-key': revoked.apiKey }));
    expect(await authorize(authorizerEvent({ 'x-api-key': second.text }))).toMatchObject({
      principalId: revoked.merchant.id,
      context: { merchantId: revoked.merchant.id, keyId: second.record.keyId, scopes: ALL_SCOPES, allowedIps: '' },
    });
  });

  describe("the key's last use", () => {
    afterEach(() => {
      vi.restoreAllMocks();
    });

    const lastUseOf = async (digest: string) => (await testMerchantStore().findKeyByDigest(digest))?.lastUsedAt;
    const storeLastUse = (digest: string, at: Date) =>
      documentClient.send(new UpdateCommand({ TableName: config().tables.apiKeys, Key: { digest }, UpdateExpression: 'SET lastUsedAt = :at', ExpressionAttributeValues: { ':at': at.toISOString() } }));

    it('is recorded by the first request, and by the next only once the recorded one is over an hour old', async () => {
      const used = await seedMerchant();
      const writes = vi.spyOn(DynamoMerchantStore.prototype, 'recordKeyUse');
      const startedAt = new Date();
      await authorize(authorizerEvent({ 'x-api-key': used.apiKey }));
      const first = await lastUseOf(used.key.digest);
      expect(Date.parse(first!)).toBeGreaterThanOrEqual(startedAt.getTime());
      expect(Date.parse(first!)).toBeLessThanOrEqual(Date.now());

      // Within the hour: the key as read says so, and nothing is written.
      await authorize(authorizerEvent({ 'x-api-key': used.apiKey }));
      expect(await lastUseOf(used.key.digest)).toBe(first);
      expect(writes).toHaveBeenCalledTimes(1);

      const stale = new Date(Date.now() - (LAST_USED_GRANULARITY_SECONDS + 60) * 1000);
      await storeLastUse(used.key.digest, stale);
      await authorize(authorizerEvent({ 'x-api-key': used.apiKey }));
      expect(Date.parse((await lastUseOf(used.key.digest))!)).toBeGreaterThanOrEqual(Date.parse(first!));
      expect(writes).toHaveBeenCalledTimes(2);
    });

    it('is not recorded for a key that is refused', async () => {
      const revoked = await seedMerchant();
      await testMerchantStore().revokeKey(revoked.merchant.id, revoked.key.keyId, new Date());
      await expectDenied(authorizerEvent({ 'x-api-key': revoked.apiKey }));
      expect(await lastUseOf(revoked.key.digest)).toBeUndefined();
    });

    it('refuses nothing when it cannot be recorded, and says so in the log', async () => {
      const used = await seedMerchant();
      vi.spyOn(DynamoMerchantStore.prototype, 'recordKeyUse').mockRejectedValueOnce(new Error('ProvisionedThroughputExceededException: slow down'));
      const warn = vi.spyOn(logger, 'warn').mockImplementation(() => undefined);
      const result = await authorize(authorizerEvent({ 'x-api-key': used.apiKey }));
      expect(result).toMatchObject({ principalId: used.merchant.id, policyDocument: { Statement: [{ Effect: 'Allow' }] } });
      expect(warn).toHaveBeenCalledWith('Could not record the last use of an API key', {
        keyId: used.key.keyId,
        reason: 'Error: ProvisionedThroughputExceededException: slow down',
      });
      expect(await lastUseOf(used.key.digest)).toBeUndefined();
    });
  });
});
