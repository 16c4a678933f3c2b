/**
 * The stage's REST API and its protection, in two parts: `GatewayApi`, the API with its logs, its
 * throttles, the usage plan that throttles each key and its custom domain, made before the
 * functions, whose environment holds its URL; and `GatewayRoutes`, made from the functions: a
 * method per HTTP route of the route table, the request authorizer of the `apiKey` routes, the
 * error envelope (docs/merchant-guide.md#the-envelope, #error-codes-and-statuses) from every path
 * or method without a route and from every failure API Gateway answers itself, and the web ACL
 * (web-acl.ts).
 *
 * `GatewayApiStack` holds them, with the routes' functions in a nested stack of their own
 * (`GatewayRouteFunctions`): a route costs the API a method, its invoke permission and a share of
 * a resource, and its function four more (the function, its role and policy, its log group), so
 * that each template keeps its headroom below CloudFormation's 500 resources. The methods,
 * permissions and authorizer are the API's and refer to the functions; the functions refer to the
 * API's id (their public URL) only, so neither stack waits on the other's whole.
 */
import { Aws, CfnOutput, Duration, NestedStack, Stack, type CfnOutputProps, type RemovalPolicy, type StackProps } from 'aws-cdk-lib';
import {
  AccessLogField,
  AccessLogFormat,
  ApiKeySourceType,
  AuthorizationType,
  type CfnRestApi,
  EndpointType,
  IdentitySource,
  LambdaIntegration,
  LogGroupLogDestination,
  MethodLoggingLevel,
  MockIntegration,
  RequestAuthorizer,
  ResponseType,
  RestApi,
  SecurityPolicy,
  type IResource,
  type UsagePlan,
} from 'aws-cdk-lib/aws-apigateway';
import { Certificate } from 'aws-cdk-lib/aws-certificatemanager';
import { Policy, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { StringParameter } from 'aws-cdk-lib/aws-ssm';
import type { CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import type { Construct } from 'constructs';
import { ERROR_STATUS, UNAUTHORIZED_MESSAGE, type ErrorCode } from '../../shared/errors.js';
import { AUTHORIZER_CACHE_SECONDS, GATEWAY_MESSAGES, PER_KEY_THROTTLE, PUBLIC_ROUTE_THROTTLE, STAGE_METHOD_THROTTLE, THROTTLED_RETRY_AFTER_SECONDS } from '../../shared/platform.js';
import { functionsForStage, readsChainEndpoints, type GatewayFunction as FunctionDefinition, type HttpRoute } from '../../shared/routes.js';
import type { Stage } from '../../shared/stage.js';
import { chainEndpointsParameterName, pascalCase } from './construct-ids.js';
import { DemoProvider } from './demo-provider.js';
import type { GatewayDataStack } from './gateway-data.js';
import { GatewayFunction, SERVICE_NAME, type ApiKeyRegistration, type GatewayFunctionProps } from './gateway-function.js';
import { demoProviderRoute } from '../../shared/domain/providers/index.js';
import type { ProviderWithSecret } from './payment-providers.js';
import { stageConfigurationParameter, type WatchedNetworks } from './stage-configuration.js';
import type { StageDocument } from '../../shared/config.js';
import { removalPolicyOf, type StageSettings } from './stage-settings.js';
import { acknowledge } from './nag.js';
import { createStageWebAcl } from './web-acl.js';

/** How long an authorizer decision is reused for the same `x-api-key`; also how long a revoked key lingers. */
const AUTHORIZER_CACHE_TTL = Duration.seconds(AUTHORIZER_CACHE_SECONDS);

const REQUEST_ID_HEADER = 'x-request-id';
/** Parameter-mapping expression of the request id, the value `x-request-id` carries everywhere. */
const REQUEST_ID_MAPPING = 'context.requestId';
/** The request id inside a response template. */
const REQUEST_ID_TEMPLATE = '$context.requestId';

const INTERNAL_ERROR = `Internal server error (request id ${REQUEST_ID_TEMPLATE})`;

/** A throttled client may try again once its key's bucket has refilled a little. */
const THROTTLED_HEADERS = { 'Retry-After': `'${THROTTLED_RETRY_AFTER_SECONDS}'` };

/** Failures API Gateway answers itself, rendered as the error envelope (docs/merchant-guide.md#the-envelope, #error-codes-and-statuses). */
const GATEWAY_ERRORS: ReadonlyArray<{ type: ResponseType; code: ErrorCode; message: string; headers?: Record<string, string> }> = [
  { type: ResponseType.UNAUTHORIZED, code: 'unauthorized', message: UNAUTHORIZED_MESSAGE },
  { type: ResponseType.ACCESS_DENIED, code: 'unauthorized', message: UNAUTHORIZED_MESSAGE },
  // The key's digest is not in the usage plan: a key API Gateway does not know.
  { type: ResponseType.INVALID_API_KEY, code: 'unauthorized', message: UNAUTHORIZED_MESSAGE },
  // API Gateway's answer to a path that has no method.
  { type: ResponseType.MISSING_AUTHENTICATION_TOKEN, code: 'not_found', message: GATEWAY_MESSAGES.routeNotFound },
  { type: ResponseType.RESOURCE_NOT_FOUND, code: 'not_found', message: GATEWAY_MESSAGES.routeNotFound },
  { type: ResponseType.THROTTLED, code: 'too_many_requests', message: GATEWAY_MESSAGES.tooManyRequests, headers: THROTTLED_HEADERS },
  { type: ResponseType.QUOTA_EXCEEDED, code: 'too_many_requests', message: GATEWAY_MESSAGES.tooManyRequests, headers: THROTTLED_HEADERS },
  { type: ResponseType.REQUEST_TOO_LARGE, code: 'payload_too_large', message: GATEWAY_MESSAGES.payloadTooLarge },
  { type: ResponseType.BAD_REQUEST_BODY, code: 'bad_request', message: 'Malformed request body' },
  { type: ResponseType.BAD_REQUEST_PARAMETERS, code: 'bad_request', message: 'Malformed request parameters' },
  { type: ResponseType.UNSUPPORTED_MEDIA_TYPE, code: 'unsupported_media_type', message: 'Unsupported media type' },
  // A request the web ACL's managed rules took for an attack.
  { type: ResponseType.WAF_FILTERED, code: 'forbidden', message: 'Request refused' },
  { type: ResponseType.AUTHORIZER_FAILURE, code: 'internal_server_error', message: INTERNAL_ERROR },
  { type: ResponseType.AUTHORIZER_CONFIGURATION_ERROR, code: 'internal_server_error', message: INTERNAL_ERROR },
  { type: ResponseType.INTEGRATION_TIMEOUT, code: 'gateway_timeout', message: `Gateway timeout (request id ${REQUEST_ID_TEMPLATE})` },
  { type: ResponseType.DEFAULT_4XX, code: 'bad_request', message: 'Bad request' },
  { type: ResponseType.DEFAULT_5XX, code: 'internal_server_error', message: INTERNAL_ERROR },
];

const errorEnvelope = (code: ErrorCode, message: string): string => JSON.stringify({ success: false, errors: [{ code, message }] });

/** Why methods have no Cognito authorizer, or none at all. */
const MERCHANT_AUTHORIZATION = 'Merchants authenticate with API keys (the contract), which the request authorizer resolves; merchants have no Cognito identities.';
const PROVIDER_ROUTE =
  "Called by payment providers, which hold no API key: each request carries the provider's Standard Webhooks signature, which the function checks before it reads anything else; the web ACL rates it per address.";
const PUBLIC_ROUTE =
  'Public by design: the hosted checkout (the invoice id in its link is the capability), the docs and the OpenAPI document; they are throttled per method and, in the web ACL, per address.';
const ERROR_METHOD = 'Answers a 404 or 405 envelope from a mock integration: nothing is invoked and nothing is disclosed.';

/** A custom domain for the API: a regional API Gateway domain name with TLS 1.2 at least. */
export interface CustomDomain {
  /** e.g. `pay.example.com`; the DNS record (a CNAME or alias to the `CustomDomainTarget` output) is the operator's. */
  domainName: string;
  /** ARN of an ACM certificate for the domain, in the stack's region. */
  certificateArn: string;
}

export interface GatewayApiProps {
  stage: Stage;
  /** Serves the stage at its root, in place of the execute-api endpoint. */
  customDomain?: CustomDomain;
  /** The stage's HTTP routes: the public ones get their own throttle. */
  routes: readonly HttpRoute[];
  logRetention: RetentionDays;
  /** Of the access and execution logs. */
  removalPolicy: RemovalPolicy;
  /** Whether some function of the stage issues or revokes API keys (`managesApiKeys`): the usage plan's id is then kept in an SSM parameter for it. */
  keysIssuedByFunctions: boolean;
}

/** The SSM parameter holding the stage's usage plan id, for the functions that issue API keys. */
export const usagePlanParameterName = (stage: Stage): string => `/${SERVICE_NAME}/${stage}/usage-plan-id`;

/** `/apikeys` -> the ARN of that API Gateway resource in the stack's region. */
const apiGatewayArn = (path: string): string => `arn:${Aws.PARTITION}:apigateway:${Aws.REGION}::${path}`;

export class GatewayApi {
  readonly restApi: RestApi;
  /** Where clients reach the stage, without a trailing slash: its custom domain, else its execute-api URL. */
  readonly baseUrl: string;
  /** Throttles each key (PER_KEY_THROTTLE); every key is added to it by its digest when issued. */
  readonly usagePlan: UsagePlan;
  /** What the functions that issue API keys are given; made only when some function does. */
  readonly apiKeyRegistration?: ApiKeyRegistration;
  readonly outputs: Record<string, CfnOutputProps>;
  private readonly stack: Stack;
  private readonly usagePlanIdParameter?: StringParameter;

  constructor(stack: Stack, props: GatewayApiProps) {
    this.stack = stack;
    const { stage, customDomain } = props;
    const api = createRestApi(stack, props);
    this.restApi = api;
    const customDomainUrl = customDomain && `https://${customDomain.domainName}`;
    // From the API id rather than `api.url`: the stage depends on the functions, which would close a cycle.
    this.baseUrl = customDomainUrl ?? `https://${api.restApiId}.execute-api.${Aws.REGION}.${Aws.URL_SUFFIX}/${stage}`;
    this.usagePlan = api.addUsagePlan('UsagePlan', {
      name: `${SERVICE_NAME}-${stage}`,
      description: 'Per-key throttling; each merchant key is added by its digest when it is issued.',
      throttle: { rateLimit: PER_KEY_THROTTLE.ratePerSecond, burstLimit: PER_KEY_THROTTLE.burst },
      apiStages: [{ api, stage: api.deploymentStage }],
    });
    if (props.keysIssuedByFunctions) {
      // The plan is made after the stage, the stage after its deployment, the deployment after
      // every route's function: a function given the plan's id would close a cycle. It is given
      // the parameter's name, written out, and reads the id when it first issues a key.
      const parameterName = usagePlanParameterName(stage);
      this.usagePlanIdParameter = new StringParameter(stack, 'UsagePlanIdParameter', {
        parameterName,
        description: 'Id of the usage plan the functions that issue API keys add them to',
        stringValue: this.usagePlan.usagePlanId,
      });
      this.apiKeyRegistration = { parameterName };
    }
    this.outputs = {
      ApiUrl: { value: customDomainUrl ? `${customDomainUrl}/` : api.url, description: 'Base URL of the merchant API' },
      RestApiId: { value: api.restApiId },
      UsagePlanId: { value: this.usagePlan.usagePlanId, description: 'Usage plan the admin CLI adds API keys to' },
      ...(api.domainName && {
        CustomDomainTarget: {
          value: api.domainName.domainNameAliasDomainName,
          description: `Point ${customDomain?.domainName} here (CNAME, or alias record with CustomDomainHostedZoneId)`,
        },
        CustomDomainHostedZoneId: { value: api.domainName.domainNameAliasHostedZoneId },
      }),
    };
  }

  /**
   * Lets a function that issues and revoke API keys add them to the stage's usage plan, delete them
   * again and read the plan's id once: nothing else of API Gateway. A policy of the API's own,
   * attached to the function's role, which the function does not wait for, since it names the plan.
   */
  grantKeyRegistration(fn: GatewayFunction): void {
    if (!this.usagePlanIdParameter) throw new Error(`${fn.definition.name} manages API keys, and the stage keeps no usage plan id for it`);
    const id = pascalCase(fn.definition.name);
    // What shared/store/api-gateway-keys.ts calls: CreateApiKey and CreateUsagePlanKey; GetApiKeys by name and DeleteApiKey.
    const policy = new Policy(this.stack, `${id}ApiKeys`, {
      roles: [fn.role!],
      statements: [
        new PolicyStatement({ actions: ['apigateway:POST'], resources: [apiGatewayArn('/apikeys'), apiGatewayArn(`/usageplans/${this.usagePlan.usagePlanId}/keys`)] }),
        new PolicyStatement({ actions: ['apigateway:GET'], resources: [apiGatewayArn('/apikeys')] }),
        new PolicyStatement({ actions: ['apigateway:DELETE'], resources: [apiGatewayArn('/apikeys/*')] }),
        new PolicyStatement({ actions: ['ssm:GetParameter'], resources: [this.usagePlanIdParameter.parameterArn] }),
      ],
    });
    acknowledge(
      policy,
      ['AwsSolutions-IAM5[Resource::arn:<AWS::Partition>:apigateway:<AWS::Region>::/apikeys/*]'],
      "DELETE on API keys only: a merchant key's API Gateway id is known only once it is created; the function finds it by its name first.",
    );
  }
}

export interface GatewayRoutesProps {
  stage: Stage;
  api: RestApi;
  /** The stage's functions; those of kind `http` are its routes, its one `authorizer` checks their keys. */
  functions: readonly GatewayFunction[];
}

/** The API's routes and their protection. The gateway responses come after the methods: both enter the deployment's logical id in the order they are added. */
export class GatewayRoutes {
  readonly webAcl: CfnWebACL;

  constructor(stack: Stack, { stage, api, functions }: GatewayRoutesProps) {
    const routes = functions.filter((fn): fn is GatewayFunction & { definition: HttpRoute } => fn.definition.kind === 'http');
    const authorizer = routes.some((fn) => fn.definition.auth === 'apiKey') ? createAuthorizer(stack, stage, functions) : undefined;

    const methodsByResource = new Map<IResource, string[]>();
    for (const fn of routes) {
      const { method, path, auth } = fn.definition;
      const resource = api.root.resourceForPath(path);
      const added = resource.addMethod(
        method,
        new LambdaIntegration(fn, { allowTestInvoke: false }),
        auth === 'apiKey' ? { authorizer, authorizationType: AuthorizationType.CUSTOM, apiKeyRequired: true } : { authorizationType: AuthorizationType.NONE },
      );
      if (auth === 'apiKey') acknowledge(added, ['AwsSolutions-COG4'], MERCHANT_AUTHORIZATION);
      else acknowledge(added, ['AwsSolutions-APIG4', 'AwsSolutions-COG4'], fn.definition.calledByProviders ? PROVIDER_ROUTE : PUBLIC_ROUTE);
      methodsByResource.set(resource, [...(methodsByResource.get(resource) ?? []), method]);
    }

    // A known path with another method; specific resources win over the catch-all below.
    for (const [resource, methods] of methodsByResource) {
      addErrorMethod(resource, 'method_not_allowed', GATEWAY_MESSAGES.methodNotAllowed, { Allow: `'${methods.join(', ')}'` });
    }
    if (!methodsByResource.has(api.root)) addErrorMethod(api.root, 'not_found', GATEWAY_MESSAGES.routeNotFound);
    addErrorMethod(api.root.addResource('{proxy+}'), 'not_found', GATEWAY_MESSAGES.routeNotFound);

    for (const { type, code, message, headers } of GATEWAY_ERRORS) {
      api.addGatewayResponse(type.responseType, {
        type,
        statusCode: String(ERROR_STATUS[code]),
        responseHeaders: { [REQUEST_ID_HEADER]: REQUEST_ID_MAPPING, ...headers },
        templates: { 'application/json': errorEnvelope(code, message) },
      });
    }

    this.webAcl = createStageWebAcl(stack, 'WebAcl', {
      stage: api.deploymentStage,
      stageName: stage,
      name: `${SERVICE_NAME}-${stage}`,
      routes: routes.map((fn) => fn.definition),
      payloadTooLargeBody: errorEnvelope('payload_too_large', GATEWAY_MESSAGES.payloadTooLarge),
      tooManyRequestsBody: errorEnvelope('too_many_requests', GATEWAY_MESSAGES.tooManyRequests),
    });
  }
}

function createAuthorizer(stack: Stack, stage: Stage, functions: readonly GatewayFunction[]): RequestAuthorizer {
  const authorizers = functions.filter((fn) => fn.definition.kind === 'authorizer');
  if (authorizers.length !== 1) {
    throw new Error(`Stage ${stage} has apiKey routes, so it needs exactly one authorizer function; found ${authorizers.length}`);
  }
  return new RequestAuthorizer(stack, 'MerchantAuthorizer', {
    handler: authorizers[0]!,
    identitySources: [IdentitySource.header('x-api-key')],
    resultsCacheTtl: AUTHORIZER_CACHE_TTL,
  });
}

function createRestApi(stack: Stack, { stage, customDomain, routes, logRetention, removalPolicy }: GatewayApiProps): RestApi {
  const accessLogs = new LogGroup(stack, 'ApiAccessLogs', {
    retention: logRetention,
    removalPolicy,
  });
  // Every method: metrics, errors in the execution log (never bodies), and the stage's throttle.
  const methodDefaults = {
    metricsEnabled: true,
    loggingLevel: MethodLoggingLevel.ERROR,
    // Bodies are never logged: withdrawal requests carry card numbers.
    dataTraceEnabled: false,
    throttlingRateLimit: STAGE_METHOD_THROTTLE.ratePerSecond,
    throttlingBurstLimit: STAGE_METHOD_THROTTLE.burst,
  };
  // Routes without a key have no usage plan behind them: their own, lower throttle.
  const publicMethods = Object.fromEntries(
    routes
      .filter((route) => route.auth === 'none')
      .map((route) => [`${route.path}/${route.method}`, { ...methodDefaults, throttlingRateLimit: PUBLIC_ROUTE_THROTTLE.ratePerSecond, throttlingBurstLimit: PUBLIC_ROUTE_THROTTLE.burst }]),
  );
  const api = new RestApi(stack, 'Api', {
    restApiName: `${SERVICE_NAME}-${stage}`,
    description: `Payment gateway merchant API (${stage})`,
    // Merchants call server to server; a regional endpoint takes a custom domain or WAF directly.
    endpointTypes: [EndpointType.REGIONAL],
    domainName: customDomain && {
      domainName: customDomain.domainName,
      certificate: Certificate.fromCertificateArn(stack, 'CustomDomainCertificate', customDomain.certificateArn),
      endpointType: EndpointType.REGIONAL,
      securityPolicy: SecurityPolicy.TLS_1_2,
    },
    // One public origin: with a domain, the execute-api URL no longer answers.
    disableExecuteApiEndpoint: customDomain !== undefined,
    // The authorizer hands API Gateway the key's digest, so usage-plan throttling is per key.
    apiKeySourceType: ApiKeySourceType.AUTHORIZER,
    // Access logging needs the account-level API Gateway role; it is kept when a stack goes.
    cloudWatchRole: true,
    deployOptions: {
      stageName: stage,
      tracingEnabled: true,
      ...methodDefaults,
      methodOptions: publicMethods,
      accessLogDestination: new LogGroupLogDestination(accessLogs),
      // The merchant (authorizer principal) and the error type are what support asks about first.
      accessLogFormat: AccessLogFormat.custom(
        JSON.stringify({
          requestId: AccessLogField.contextRequestId(),
          requestTime: AccessLogField.contextRequestTime(),
          ip: AccessLogField.contextIdentitySourceIp(),
          httpMethod: AccessLogField.contextHttpMethod(),
          resourcePath: AccessLogField.contextResourcePath(),
          status: AccessLogField.contextStatus(),
          errorType: AccessLogField.contextErrorResponseType(),
          merchantId: AccessLogField.contextAuthorizerPrincipalId(),
          responseLatency: AccessLogField.contextResponseLatency(),
          integrationLatency: AccessLogField.contextIntegrationLatency(),
          responseLength: AccessLogField.contextResponseLength(),
        }),
      ),
    },
  });
  // TLS 1.2 at least on the execute-api endpoint too (the construct does not expose it yet).
  (api.node.defaultChild as CfnRestApi).securityPolicy = SecurityPolicy.TLS_1_2;
  // The log group API Gateway writes execution logs to, made first so that it has a retention
  // (API Gateway would create it keeping logs forever).
  const executionLogs = new LogGroup(stack, 'ApiExecutionLogs', {
    logGroupName: `API-Gateway-Execution-Logs_${api.restApiId}/${stage}`,
    retention: logRetention,
    removalPolicy,
  });
  api.deploymentStage.node.addDependency(executionLogs);
  acknowledge(
    api,
    ['AwsSolutions-APIG2'],
    "Each function validates its request against the contract and answers the 400/415/422 envelopes it prescribes, field by field; API Gateway's model validation cannot.",
  );
  acknowledge(
    api.node.findChild('CloudWatchRole'),
    ['AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AmazonAPIGatewayPushToCloudWatchLogs]'],
    "The account's API Gateway logging role, with the policy AWS maintains for exactly that use.",
  );
  return api;
}

/** An `ANY` method that API Gateway answers itself with the error envelope and the request id. */
function addErrorMethod(resource: IResource, code: ErrorCode, message: string, staticHeaders: Record<string, string> = {}): void {
  const statusCode = String(ERROR_STATUS[code]);
  const headers = { [REQUEST_ID_HEADER]: REQUEST_ID_MAPPING, ...staticHeaders };
  const headerKey = (name: string) => `method.response.header.${name}`;
  const method = resource.addMethod(
    'ANY',
    new MockIntegration({
      requestTemplates: { 'application/json': JSON.stringify({ statusCode: ERROR_STATUS[code] }) },
      // The only integration response, so it applies whatever the mock returns.
      integrationResponses: [
        {
          statusCode,
          responseTemplates: { 'application/json': errorEnvelope(code, message) },
          responseParameters: Object.fromEntries(Object.entries(headers).map(([name, value]) => [headerKey(name), value])),
        },
      ],
    }),
    {
      authorizationType: AuthorizationType.NONE,
      methodResponses: [{ statusCode, responseParameters: Object.fromEntries(Object.keys(headers).map((name) => [headerKey(name), true])) }],
    },
  );
  acknowledge(method, ['AwsSolutions-APIG4', 'AwsSolutions-COG4'], ERROR_METHOD);
}

export interface GatewayRouteFunctionsProps {
  routes: readonly HttpRoute[];
  /** What each function is made with. */
  functionProps: (definition: FunctionDefinition) => GatewayFunctionProps;
}

/** The functions of the stage's HTTP routes, each with its role and log group, in a nested stack of the API's. */
export class GatewayRouteFunctions extends NestedStack {
  readonly functions: GatewayFunction[];

  constructor(scope: Construct, id: string, { routes, functionProps }: GatewayRouteFunctionsProps) {
    super(scope, id, { description: 'The functions of the HTTP routes of the route table (shared/routes.ts)' });
    this.functions = routes.map((definition) => new GatewayFunction(this, pascalCase(definition.name), functionProps(definition)));
  }
}

export interface GatewayApiStackProps extends StackProps {
  stage: Stage;
  settings: StageSettings;
  data: GatewayDataStack;
  /** Origin of the hosted checkout; by default the custom domain's, else the API's execute-api URL. */
  publicBaseUrl?: string;
  /** Serves the stage at its root; the execute-api endpoint is then disabled, so that every client goes through the domain. */
  customDomain?: CustomDomain;
  /** The networks the stage watches, whose token contracts its configuration names. */
  watchedNetworks: WatchedNetworks;
  /** The gateway's payout fees that are not the default's, which its configuration names. */
  payoutFees?: StageDocument['payoutFees'];
  /** The block explorers that are not the stage's own, which its configuration names. */
  explorers?: StageDocument['explorers'];
  /** Receipt keys rotated out (docs/operations.md#receipt-keys), in the stage's configuration document. */
  retiredReceiptKeys?: readonly string[];
  /** What each of the stage's functions is made with but its public URL and its stage configuration, which this stack adds. */
  functionProps: (definition: FunctionDefinition) => Omit<GatewayFunctionProps, 'stageConfiguration' | 'apiKeyRegistration' | 'providerSecrets'>;
}

/** A stage's API: the REST API and its protection, its routes' functions, the demo provider in demo, and the stage's configuration document. */
export class GatewayApiStack extends Stack {
  readonly api: GatewayApi;
  readonly routes: GatewayRoutes;
  /** Where customers, merchants and their people reach the stage: the functions' PUBLIC_BASE_URL. */
  readonly publicBaseUrl: string;
  /** The stage's providers with their secrets: the demo provider first in demo, then the partners. */
  readonly providers: ProviderWithSecret[];
  /** The stage's configuration document (docs/operations.md#stage-configuration), which the functions that read it are given. */
  readonly stageConfiguration: StringParameter;
  /** Every function of this stack: the routes' and the authorizer. */
  readonly functions: GatewayFunction[];
  readonly demoProvider?: DemoProvider;

  constructor(
    scope: Construct,
    id: string,
    { stage, settings, data, publicBaseUrl, customDomain, watchedNetworks, payoutFees, explorers, retiredReceiptKeys, functionProps, ...stackProps }: GatewayApiStackProps,
  ) {
    super(scope, id, { description: `Payment gateway ${stage}: the API, its routes' functions and its configuration`, terminationProtection: settings.protectData, ...stackProps });
    const { logRetention } = settings;
    const removalPolicy = removalPolicyOf(settings);
    const definitions = functionsForStage(stage);
    const httpRoutes = definitions.filter((definition): definition is HttpRoute => definition.kind === 'http');
    this.api = new GatewayApi(this, {
      stage,
      customDomain,
      routes: httpRoutes,
      logRetention,
      removalPolicy,
      keysIssuedByFunctions: definitions.some((definition) => definition.managesApiKeys),
    });
    this.publicBaseUrl = publicBaseUrl ?? this.api.baseUrl;

    // The demo provider beside a demo stage's gateway, on the same API, first of its providers (docs/operations.md#payment-providers).
    this.demoProvider = stage === 'demo' ? new DemoProvider(this, 'DemoProvider', { api: this.api.restApi, publicBaseUrl: this.publicBaseUrl, logRetention, removalPolicy }) : undefined;
    const demo = this.demoProvider && { provider: { ...demoProviderRoute(), url: this.demoProvider.url }, secret: this.demoProvider.secret };
    this.providers = [...(demo ? [demo] : []), ...data.partnerSecrets.partners];
    this.stageConfiguration = stageConfigurationParameter(this, 'StageConfigurationParameter', { stage, providers: this.providers, watchedNetworks, payoutFees, explorers, retiredReceiptKeys });

    // The networks' endpoints are the jobs stack's parameter (its operators' ChainRpc… parameters):
    // the routes that quote and hand over payouts read it by its name, which the stage fixes.
    const chainEndpoints = StringParameter.fromStringParameterName(this, 'ChainEndpointsParameter', chainEndpointsParameterName(stage));
    const propsOf = (definition: FunctionDefinition): GatewayFunctionProps => {
      const props = functionProps(definition);
      return {
        ...props,
        environment: { ...props.environment, PUBLIC_BASE_URL: this.publicBaseUrl },
        providerSecrets: this.providers.map(({ secret }) => secret),
        stageConfiguration: { configuration: this.stageConfiguration, ...(readsChainEndpoints(definition) ? { chainEndpoints } : {}) },
        apiKeyRegistration: this.api.apiKeyRegistration,
      };
    };
    const routeFunctions = new GatewayRouteFunctions(this, 'RouteFunctions', { routes: httpRoutes, functionProps: propsOf });
    // The authorizer beside the API: its invoke permission names the authorizer, which names it.
    const authorizers = definitions.filter((definition) => definition.kind === 'authorizer').map((definition) => new GatewayFunction(this, pascalCase(definition.name), propsOf(definition)));
    this.functions = [...routeFunctions.functions, ...authorizers];
    this.routes = new GatewayRoutes(this, { stage, api: this.api.restApi, functions: this.functions });
    for (const fn of this.functions.filter((candidate) => candidate.definition.managesApiKeys)) this.api.grantKeyRegistration(fn);

    // What operators and the admin CLI read of the stage's API.
    const outputs: Record<string, CfnOutputProps> = {
      ...this.api.outputs,
      PublicBaseUrl: { value: this.publicBaseUrl, description: 'Where customers, merchants and their people reach the stage: checkout links, the dashboard and its invitations' },
      ...(this.demoProvider && {
        DemoProviderUrl: { value: this.demoProvider.url, description: "The demo provider's base URL" },
        DemoProviderQueueArn: { value: this.demoProvider.queue.queueArn, description: "The demo provider's waiting work (redrive destination)" },
        DemoProviderDlqArn: { value: this.demoProvider.deadLetterQueue.queueArn, description: "The demo provider's jobs given up on (redrive source)" },
      }),
    };
    for (const [outputId, props] of Object.entries(outputs)) new CfnOutput(this, outputId, props);
  }
}
