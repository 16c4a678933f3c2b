/**
 * The stage's one web ACL, evaluated in this order:
 * 1. body-limit rules: a request whose body is over its route's `maxBodyBytes` is refused before
 *    API Gateway invokes anything, with the 413 envelope, as the local emulation does (past the
 *    limit a body could make an event larger than a synchronous Lambda invocation takes, which AWS
 *    would answer with a 5xx);
 * 2. per-address rate rules, answering the 429 envelope: one on the routes without an API key
 *    (checkout pages, docs, OpenAPI), one of its own on the route providers send events to;
 * 3. AWS's managed core and known-bad-inputs rule groups. What they block, API Gateway answers with
 *    its WAF_FILTERED gateway response (the 403 envelope).
 */
import type { Stage as ApiStage } from 'aws-cdk-lib/aws-apigateway';
import { CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import type { Construct } from 'constructs';
import { DASHBOARD_SIGN_IN_PAGES, DASHBOARD_SIGN_IN_THROTTLE, LAMBDA_SYNC_PAYLOAD_BYTES, PROVIDER_EVENTS_THROTTLE, PUBLIC_ROUTE_THROTTLE, eventBytesBound } from '../../shared/platform.js';
import { maxBodyBytesOf, type HttpMethod, type HttpRoute } from '../../shared/routes.js';

/** WAF's ceiling on a regular expression. */
const MAX_REGEX_LENGTH = 512;

export const PAYLOAD_TOO_LARGE_BODY_KEY = 'payload-too-large';
export const TOO_MANY_REQUESTS_BODY_KEY = 'too-many-requests';

/** The names of the per-address rate rules, which are also their metrics'. */
export const PUBLIC_RATE_RULE_NAME = 'public-requests-per-address';
export const PROVIDER_EVENTS_RATE_RULE_NAME = 'provider-events-per-address';
export const DASHBOARD_SIGN_IN_RATE_RULE_NAME = 'dashboard-sign-ins-per-address';

/**
 * AWS's managed rule groups, each with the rules of it that only count (they label a request and
 * let it through); the others block.
 */
export const MANAGED_RULE_GROUPS: ReadonlyArray<{ name: string; countOnly: readonly string[] }> = [
  {
    name: 'AWSManagedRulesCommonRuleSet',
    countOnly: [
      // Bodies over 8 KB: the body-limit rules hold each route to its own limit (receipts are megabytes).
      'SizeRestrictions_BODY',
      // Merchants call from servers, whose HTTP clients need not send a User-Agent.
      'NoUserAgent_HEADER',
    ],
  },
  { name: 'AWSManagedRulesKnownBadInputsRuleSet', countOnly: [] },
];

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * Decimal integers greater than `limit`, leading zeros allowed: WAF compares a header as text, so
 * `content-length > limit` is a pattern. Plain PCRE, which WAF and JavaScript read alike.
 */
export function decimalAbovePattern(limit: number): string {
  if (!Number.isSafeInteger(limit) || limit < 0) throw new RangeError(`Not a byte count: ${limit}`);
  const digits = String(limit);
  const longer = `[1-9][0-9]{${digits.length},}`;
  // Same length: equal up to some digit, larger there, anything after.
  const sameLength = [...digits].flatMap((digit, i) => {
    if (digit === '9') return [];
    const rest = digits.length - i - 1;
    return [`${digits.slice(0, i)}[${Number(digit) + 1}-9]${rest > 0 ? `[0-9]{${rest}}` : ''}`];
  });
  return `^0*(${[longer, ...sameLength].join('|')})$`;
}

/**
 * The URI paths of `routes` as the web ACL sees them: with the stage first on the execute-api
 * endpoint, without it on a custom domain mapped at its root; path parameters are one segment (a
 * greedy `{name+}` one or more);
 * trailing slashes are ignored, as API Gateway ignores them.
 */
export const routePathPattern = (routes: readonly HttpRoute[], stage: string): string =>
  pathPattern(
    routes.map((route) => route.path),
    stage,
  );

/** `routePathPattern` of path templates. */
function pathPattern(templates: readonly string[], stage: string): string {
  const paths = [...new Set(templates)].map((path) =>
    path
      .split('/')
      .map((segment) => (/^\{\w+\+\}$/.test(segment) ? '[^/]+(/[^/]+)*' : /^\{\w+\}$/.test(segment) ? '[^/]+' : escapeRegExp(segment)))
      .join('/'),
  );
  return `^(/${escapeRegExp(stage)})?(${paths.join('|')})/*$`;
}

/** Routes grouped by a key, in first-seen order. */
function groupBy<K>(routes: readonly HttpRoute[], key: (route: HttpRoute) => K): Map<K, HttpRoute[]> {
  const groups = new Map<K, HttpRoute[]>();
  for (const route of routes) groups.set(key(route), [...(groups.get(key(route)) ?? []), route]);
  return groups;
}

function regexMatch(regexString: string, fieldToMatch: CfnWebACL.FieldToMatchProperty): CfnWebACL.StatementProperty {
  if (regexString.length > MAX_REGEX_LENGTH) {
    throw new Error(`A web ACL pattern may have ${MAX_REGEX_LENGTH} characters, and this one has ${regexString.length}: ${regexString}`);
  }
  return { regexMatchStatement: { regexString, fieldToMatch, textTransformations: [{ priority: 0, type: 'NONE' }] } };
}

const methodIs = (method: HttpMethod): CfnWebACL.StatementProperty => ({
  byteMatchStatement: { searchString: method, fieldToMatch: { method: {} }, positionalConstraint: 'EXACTLY', textTransformations: [{ priority: 0, type: 'NONE' }] },
});

const anyOf = (statements: CfnWebACL.StatementProperty[]): CfnWebACL.StatementProperty => (statements.length === 1 ? statements[0]! : { orStatement: { statements } });

const visibility = (metricName: string): CfnWebACL.VisibilityConfigProperty => ({
  cloudWatchMetricsEnabled: true,
  metricName,
  sampledRequestsEnabled: true,
});

type UnorderedRule = Omit<CfnWebACL.RuleProperty, 'priority'>;

/** One rule per body limit: the request is one of those routes (method and path) and declares a longer body. */
function bodyLimitRules(routes: readonly HttpRoute[], stage: string): UnorderedRule[] {
  return [...groupBy(routes, maxBodyBytesOf)].map(([limit, limited]) => {
    if (eventBytesBound(limit) > LAMBDA_SYNC_PAYLOAD_BYTES) {
      throw new Error(
        `${limited.map((route) => route.name).join(', ')} accept ${limit}-byte bodies, whose events may reach ${eventBytesBound(limit)} bytes, ` +
          `over the ${LAMBDA_SYNC_PAYLOAD_BYTES} a synchronous Lambda invocation takes: lower maxBodyBytes (shared/routes.ts)`,
      );
    }
    const name = `body-over-${limit}-bytes`;
    const routeMatches = [...groupBy(limited, (route) => route.method)].map(([method, sameMethod]) => ({
      andStatement: { statements: [methodIs(method), regexMatch(routePathPattern(sameMethod, stage), { uriPath: {} })] },
    }));
    return {
      name,
      action: { block: { customResponse: { responseCode: 413, customResponseBodyKey: PAYLOAD_TOO_LARGE_BODY_KEY } } },
      statement: {
        andStatement: { statements: [regexMatch(decimalAbovePattern(limit), { singleHeader: { Name: 'content-length' } }), anyOf(routeMatches)] },
      },
      visibilityConfig: visibility(name),
    };
  });
}

/** At most `requests` requests matching `scope` from one address over `windowSeconds`. */
function perAddressRule(name: string, scopeDownStatement: CfnWebACL.StatementProperty, { requests, windowSeconds }: { requests: number; windowSeconds: number }): UnorderedRule {
  return {
    name,
    action: { block: { customResponse: { responseCode: 429, customResponseBodyKey: TOO_MANY_REQUESTS_BODY_KEY } } },
    statement: { rateBasedStatement: { limit: requests, evaluationWindowSec: windowSeconds, aggregateKeyType: 'IP', scopeDownStatement } },
    visibilityConfig: visibility(name),
  };
}

/** At most `requests` requests to `rateRoutes` from one address over `windowSeconds`. */
function perAddressRateRule(name: string, rateRoutes: readonly HttpRoute[], stage: string, limit: { requests: number; windowSeconds: number }): UnorderedRule[] {
  return rateRoutes.length === 0 ? [] : [perAddressRule(name, regexMatch(routePathPattern(rateRoutes, stage), { uriPath: {} }), limit)];
}

/** Posts to the dashboard's password pages, when the stage serves the dashboard (DASHBOARD_SIGN_IN_THROTTLE). */
function signInRateRule(routes: readonly HttpRoute[], stage: string): UnorderedRule[] {
  if (!routes.some((route) => route.method === 'POST' && route.path.startsWith('/dashboard/'))) return [];
  const pages = pathPattern(
    DASHBOARD_SIGN_IN_PAGES.map((page) => `/dashboard/${page}`),
    stage,
  );
  return [perAddressRule(DASHBOARD_SIGN_IN_RATE_RULE_NAME, { andStatement: { statements: [methodIs('POST'), regexMatch(pages, { uriPath: {} })] } }, DASHBOARD_SIGN_IN_THROTTLE.perAddress)];
}

/** The routes without an API key: customers' (PUBLIC_ROUTE_THROTTLE) and providers' (PROVIDER_EVENTS_THROTTLE), each counted apart. */
function rateRules(routes: readonly HttpRoute[], stage: string): UnorderedRule[] {
  const keyless = routes.filter((route) => route.auth === 'none');
  return [
    ...perAddressRateRule(
      PUBLIC_RATE_RULE_NAME,
      keyless.filter((route) => !route.calledByProviders),
      stage,
      PUBLIC_ROUTE_THROTTLE.perAddress,
    ),
    ...perAddressRateRule(
      PROVIDER_EVENTS_RATE_RULE_NAME,
      keyless.filter((route) => route.calledByProviders),
      stage,
      PROVIDER_EVENTS_THROTTLE.perAddress,
    ),
    ...signInRateRule(routes, stage),
  ];
}

function managedRuleGroups(): UnorderedRule[] {
  return MANAGED_RULE_GROUPS.map(({ name, countOnly }) => ({
    name,
    overrideAction: { none: {} },
    statement: {
      managedRuleGroupStatement: {
        vendorName: 'AWS',
        name,
        ...(countOnly.length > 0 ? { ruleActionOverrides: countOnly.map((rule) => ({ name: rule, actionToUse: { count: {} } })) } : {}),
      },
    },
    visibilityConfig: visibility(name),
  }));
}

export interface StageWebAclProps {
  stage: ApiStage;
  /** The stage's name as text (the construct's `stageName` is a reference), for the path patterns. */
  stageName: string;
  /** The web ACL's name, which its metrics carry as their `WebACL` dimension. */
  name: string;
  routes: readonly HttpRoute[];
  /** The 413 error envelope, as the gateway's own responses render it. */
  payloadTooLargeBody: string;
  /** The 429 error envelope, likewise. */
  tooManyRequestsBody: string;
}

/** The web ACL, associated with the API stage; its rules are prioritised in the order above. */
export function createStageWebAcl(scope: Construct, id: string, props: StageWebAclProps): CfnWebACL {
  const { stage, stageName, name, routes, payloadTooLargeBody, tooManyRequestsBody } = props;
  const rules = [...bodyLimitRules(routes, stageName), ...rateRules(routes, stageName), ...managedRuleGroups()];
  const webAcl = new CfnWebACL(scope, id, {
    name,
    description: `Payment gateway ${stageName}: body limits, per-address rates on public routes and provider events, AWS managed rules`,
    scope: 'REGIONAL',
    defaultAction: { allow: {} },
    customResponseBodies: {
      [PAYLOAD_TOO_LARGE_BODY_KEY]: { contentType: 'APPLICATION_JSON', content: payloadTooLargeBody },
      [TOO_MANY_REQUESTS_BODY_KEY]: { contentType: 'APPLICATION_JSON', content: tooManyRequestsBody },
    },
    rules: rules.map((rule, priority) => ({ ...rule, priority })),
    visibilityConfig: visibility(name),
  });
  new CfnWebACLAssociation(scope, `${id}Association`, { resourceArn: stage.stageArn, webAclArn: webAcl.attrArn });
  return webAcl;
}

/** The metric names of a web ACL's rules, in priority order: each rule's `Rule` dimension. */
export function ruleMetricNames(webAcl: CfnWebACL): string[] {
  return (webAcl.rules as CfnWebACL.RuleProperty[]).map((rule) => (rule.visibilityConfig as CfnWebACL.VisibilityConfigProperty).metricName);
}
