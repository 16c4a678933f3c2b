/**
 * A stage's REST API as synthesized (infra/aws/gateway-api.ts): the API and its stage, throttles,
 * the authorizer, each route's integration, the gateway's own answers as envelopes, and a custom
 * domain.
 *
 * Bundling is skipped (it changes nothing these assertions read); cdk-app.test.ts bundles every
 * function through the real CLI. Each stage is read as one template (test/support/stage-view.ts).
 */
import { Match } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { CONCURRENCY, PUBLIC_ROUTE_THROTTLE, STAGE_METHOD_THROTTLE, TABLE_CAPACITY_BASIS } from '../../shared/platform.js';
import { functionsForStage, type HttpRoute } from '../../shared/routes.js';
import { CUSTOM_DOMAIN, envelope, refersTo, type StackView, stageViews, customDomainView, type Resource, describeEachStage } from '../support/stage-view.js';

const REQUEST_ID_HEADER = { 'gatewayresponse.header.x-request-id': 'context.requestId' };

/** What API Gateway itself answers (docs/merchant-guide.md#the-envelope, #error-codes-and-statuses), written out from the contract. */
const GATEWAY_RESPONSES: ReadonlyArray<[type: string, status: number, code: string, message: string]> = [
  ['UNAUTHORIZED', 401, 'unauthorized', 'You do not have permission to access this resource'],
  ['ACCESS_DENIED', 401, 'unauthorized', 'You do not have permission to access this resource'],
  ['INVALID_API_KEY', 401, 'unauthorized', 'You do not have permission to access this resource'],
  ['MISSING_AUTHENTICATION_TOKEN', 404, 'not_found', 'Route not found'],
  ['RESOURCE_NOT_FOUND', 404, 'not_found', 'Route not found'],
  ['THROTTLED', 429, 'too_many_requests', 'Too many requests'],
  ['QUOTA_EXCEEDED', 429, 'too_many_requests', 'Too many requests'],
  ['REQUEST_TOO_LARGE', 413, 'payload_too_large', 'Request body too large'],
  ['BAD_REQUEST_BODY', 400, 'bad_request', 'Malformed request body'],
  ['BAD_REQUEST_PARAMETERS', 400, 'bad_request', 'Malformed request parameters'],
  ['UNSUPPORTED_MEDIA_TYPE', 415, 'unsupported_media_type', 'Unsupported media type'],
  // What the web ACL's managed rules block.
  ['WAF_FILTERED', 403, 'forbidden', 'Request refused'],
  ['AUTHORIZER_FAILURE', 500, 'internal_server_error', 'Internal server error (request id $context.requestId)'],
  ['AUTHORIZER_CONFIGURATION_ERROR', 500, 'internal_server_error', 'Internal server error (request id $context.requestId)'],
  ['DEFAULT_5XX', 500, 'internal_server_error', 'Internal server error (request id $context.requestId)'],
  ['INTEGRATION_TIMEOUT', 504, 'gateway_timeout', 'Gateway timeout (request id $context.requestId)'],
  ['DEFAULT_4XX', 400, 'bad_request', 'Bad request'],
];

let customDomain: StackView;

/** The stages read here, each synthesized once for this file (test/support/stage-view.ts). */
beforeAll(() => {
  customDomain = customDomainView();
}, 600_000);

describeEachStage((stage, v) => {
  const definitions = functionsForStage(stage);
  const routes = definitions.filter((f): f is HttpRoute => f.kind === 'http');

  describe('REST API', () => {
    const methodSettings = () => v().resources('AWS::ApiGateway::Stage')[0]![1].Properties.MethodSettings as Array<Record<string, any>>;

    it('names the API and its stage after the stage, traced, with metrics, access logs and execution errors, never bodies', () => {
      v().template.hasResourceProperties('AWS::ApiGateway::RestApi', {
        Name: Match.stringLikeRegexp(stage),
        ApiKeySourceType: 'AUTHORIZER',
      });
      v().template.hasResourceProperties('AWS::ApiGateway::Stage', {
        StageName: stage,
        TracingEnabled: true,
        AccessLogSetting: { DestinationArn: Match.anyValue(), Format: Match.stringLikeRegexp('\\$context.requestId') },
      });
      for (const setting of methodSettings()) expect(setting).toMatchObject({ MetricsEnabled: true, DataTraceEnabled: false, LoggingLevel: 'ERROR' });
    });

    it('keeps the execution logs in a log group of the stage, with its retention, made before the stage writes to it', () => {
      const [stageId, stageResource] = v().resources('AWS::ApiGateway::Stage')[0]!;
      const apiId = v().resources('AWS::ApiGateway::RestApi')[0]![0];
      const [logGroupId, logGroup] = v()
        .resources('AWS::Logs::LogGroup')
        .find(([, group]) => JSON.stringify(group.Properties.LogGroupName ?? '').includes('API-Gateway-Execution-Logs_'))!;
      expect(logGroup.Properties.LogGroupName).toEqual({ 'Fn::Join': ['', ['API-Gateway-Execution-Logs_', { Ref: apiId }, `/${stage}`]] });
      expect(logGroup.Properties.RetentionInDays).toBe(v().logRetentionOf('get-invoice'));
      expect([(stageResource as Resource & { DependsOn?: string[] }).DependsOn].flat()).toContain(logGroupId);
      expect(stageId).toBeTruthy();
    });

    it(`throttles every method at what its function's reserved concurrency answers: ${STAGE_METHOD_THROTTLE.ratePerSecond} requests/s`, () => {
      expect(methodSettings().find((setting) => setting.ResourcePath === '/*')).toMatchObject({
        HttpMethod: '*',
        ThrottlingRateLimit: CONCURRENCY.perFunction * TABLE_CAPACITY_BASIS.requestsPerInstancePerSecond,
        ThrottlingBurstLimit: STAGE_METHOD_THROTTLE.burst,
      });
    });

    it('throttles each route without an API key lower, per method; routes with a key keep the stage throttle and their usage plan', () => {
      const byPath = new Map(methodSettings().map((setting) => [`${setting.HttpMethod} ${setting.ResourcePath}`, setting]));
      for (const route of routes) {
        // API Gateway's encoding of a resource path: each slash as ~1, after a leading slash.
        const setting = byPath.get(`${route.method} /${route.path.replaceAll('/', '~1')}`);
        if (route.auth === 'none') {
          expect(setting, route.name).toMatchObject({ ThrottlingRateLimit: PUBLIC_ROUTE_THROTTLE.ratePerSecond, ThrottlingBurstLimit: PUBLIC_ROUTE_THROTTLE.burst });
          expect(PUBLIC_ROUTE_THROTTLE.ratePerSecond).toBeLessThan(STAGE_METHOD_THROTTLE.ratePerSecond);
        } else {
          expect(setting, route.name).toBeUndefined();
        }
      }
      expect(routes.some((route) => route.auth === 'none')).toBe(true);
    });

    it('has one request authorizer: authorize-merchant on x-api-key, cached 30 s', () => {
      v().template.resourceCountIs('AWS::ApiGateway::Authorizer', 1);
      const [, authorizer] = v().resources('AWS::ApiGateway::Authorizer')[0]!;
      expect(authorizer.Properties).toMatchObject({
        Type: 'REQUEST',
        IdentitySource: 'method.request.header.x-api-key',
        AuthorizerResultTtlInSeconds: 30,
      });
      const authorizerFunction = definitions.find((f) => f.kind === 'authorizer')!;
      expect(refersTo(authorizer.Properties.AuthorizerUri, v().functionIds().get(authorizerFunction.name)!)).toBe(true);
    });

    it.each(routes.map((r) => [`${r.method} ${r.path}`, r] as const))('%s: integrates its own function with the auth of the route table', (key, route) => {
      const method = v().methods().get(key);
      expect(method).toBeDefined();
      expect(method!.Integration).toMatchObject({ Type: 'AWS_PROXY', IntegrationHttpMethod: 'POST' });
      expect(refersTo(method!.Integration.Uri, v().functionIds().get(route.name)!)).toBe(true);
      if (route.auth === 'apiKey') {
        const authorizerId = v().resources('AWS::ApiGateway::Authorizer')[0]![0];
        expect(method).toMatchObject({ AuthorizationType: 'CUSTOM', AuthorizerId: { Ref: authorizerId }, ApiKeyRequired: true });
      } else {
        expect(method!.AuthorizationType).toBe('NONE');
        expect(method!.AuthorizerId).toBeUndefined();
        expect(method!.ApiKeyRequired).toBeFalsy();
      }
    });

    it('answers any other method on a routed path with a 405 envelope', () => {
      for (const path of new Set(routes.map((r) => r.path))) {
        const allowed = routes.filter((r) => r.path === path).map((r) => r.method);
        expect(v().methods().get(`ANY ${path}`)).toMatchObject(mockMethod(405, 'method_not_allowed', 'Method not allowed', { Allow: `'${allowed.join(', ')}'` }));
      }
    });

    it('answers unknown paths, the root included, with a 404 envelope', () => {
      for (const path of ['/', '/{proxy+}']) {
        expect(v().methods().get(`ANY ${path}`)).toMatchObject(mockMethod(404, 'not_found', 'Route not found'));
      }
    });

    it.each(GATEWAY_RESPONSES)('gateway response %s: %i %s envelope with x-request-id', (type, status, code, message) => {
      const [, response] = v()
        .resources('AWS::ApiGateway::GatewayResponse')
        .find(([, r]) => r.Properties.ResponseType === type)!;
      expect(response.Properties).toMatchObject({ StatusCode: String(status), ResponseTemplates: { 'application/json': envelope(code, message) } });
      // A throttled client is told when to try again; every answer carries the request id.
      expect(response.Properties.ResponseParameters).toEqual({ ...REQUEST_ID_HEADER, ...(status === 429 ? { 'gatewayresponse.header.Retry-After': "'1'" } : {}) });
    });

    it('customizes no gateway response beyond those', () => {
      v().template.resourceCountIs('AWS::ApiGateway::GatewayResponse', GATEWAY_RESPONSES.length);
    });

    it('accepts TLS 1.2 at least on the execute-api endpoint', () => {
      v().template.hasResourceProperties('AWS::ApiGateway::RestApi', { SecurityPolicy: 'TLS_1_2' });
      expect(v().resources('AWS::ApiGateway::RestApi')[0]![1].Properties.DisableExecuteApiEndpoint).toBeFalsy();
      v().template.resourceCountIs('AWS::ApiGateway::DomainName', 0);
    });

    it('throttles each key at 50 requests/s, burst 100, on the stage', () => {
      v().template.resourceCountIs('AWS::ApiGateway::UsagePlan', 1);
      v().template.hasResourceProperties('AWS::ApiGateway::UsagePlan', {
        Throttle: { RateLimit: 50, BurstLimit: 100 },
        ApiStages: [Match.objectLike({ ApiId: { Ref: v().resources('AWS::ApiGateway::RestApi')[0]![0] }, Stage: Match.anyValue() })],
      });
    });
  });
});

describe('a custom domain', () => {
  it('is a regional domain name with TLS 1.2 at least and the given certificate, mapped at its root to the stage', () => {
    customDomain.template.resourceCountIs('AWS::ApiGateway::DomainName', 1);
    const [domainId, domain] = customDomain.resources('AWS::ApiGateway::DomainName')[0]!;
    expect(domain.Properties).toMatchObject({
      DomainName: CUSTOM_DOMAIN.domainName,
      RegionalCertificateArn: CUSTOM_DOMAIN.certificateArn,
      EndpointConfiguration: { Types: ['REGIONAL'] },
      SecurityPolicy: 'TLS_1_2',
    });
    const [, mapping] = customDomain.resources('AWS::ApiGateway::BasePathMapping')[0]!;
    expect(mapping.Properties).toMatchObject({ DomainName: { Ref: domainId }, RestApiId: { Ref: customDomain.resources('AWS::ApiGateway::RestApi')[0]![0] } });
    expect(mapping.Properties.BasePath).toBeUndefined();
    expect(mapping.Properties.Stage).toEqual({ Ref: customDomain.resources('AWS::ApiGateway::Stage')[0]![0] });
  });

  it('disables the execute-api endpoint, keeping TLS 1.2 on the API itself', () => {
    customDomain.template.hasResourceProperties('AWS::ApiGateway::RestApi', { DisableExecuteApiEndpoint: true, SecurityPolicy: 'TLS_1_2' });
  });

  it('is the API URL of the outputs, with what its DNS record points at', () => {
    const [domainId] = customDomain.resources('AWS::ApiGateway::DomainName')[0]!;
    expect(customDomain.json.Outputs.ApiUrl.Value).toBe(`https://${CUSTOM_DOMAIN.domainName}/`);
    expect(customDomain.json.Outputs.CustomDomainTarget.Value).toEqual({ 'Fn::GetAtt': [domainId, 'RegionalDomainName'] });
    expect(customDomain.json.Outputs.CustomDomainHostedZoneId.Value).toEqual({ 'Fn::GetAtt': [domainId, 'RegionalHostedZoneId'] });
    expect(stageViews().prod.json.Outputs.CustomDomainTarget).toBeUndefined();
  });
});

function mockMethod(status: number, code: string, message: string, staticHeaders: Record<string, string> = {}) {
  const headers = { 'x-request-id': 'context.requestId', ...staticHeaders };
  const key = (name: string) => `method.response.header.${name}`;
  return {
    AuthorizationType: 'NONE',
    Integration: {
      Type: 'MOCK',
      RequestTemplates: { 'application/json': JSON.stringify({ statusCode: status }) },
      IntegrationResponses: [
        {
          StatusCode: String(status),
          ResponseTemplates: { 'application/json': envelope(code, message) },
          ResponseParameters: Object.fromEntries(Object.entries(headers).map(([name, value]) => [key(name), value])),
        },
      ],
    },
    MethodResponses: [{ StatusCode: String(status), ResponseParameters: Object.fromEntries(Object.keys(headers).map((name) => [key(name), true])) }],
  };
}
