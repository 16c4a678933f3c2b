/**
 * The web ACL (infra/aws/web-acl.ts). Its patterns, checked as numbers and paths: WAF compares
 * `content-length` as text, so "over the limit" is a regular expression, and a route's path is one
 * too. Then the web ACL as each stage's template has it, its rules read back and tried on every
 * route (each stage read as one template, test/support/stage-view.ts; bundling skipped).
 */
import { App, Stack } from 'aws-cdk-lib';
import { MockIntegration, RestApi } from 'aws-cdk-lib/aws-apigateway';
import type { CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import { beforeAll, describe, expect, it } from 'vitest';
import { DASHBOARD_SIGN_IN_RATE_RULE_NAME, PROVIDER_EVENTS_RATE_RULE_NAME, PUBLIC_RATE_RULE_NAME, createStageWebAcl, decimalAbovePattern, routePathPattern } from '../../infra/aws/web-acl.js';
import { DASHBOARD_SIGN_IN_THROTTLE, PROVIDER_EVENTS_THROTTLE, PUBLIC_ROUTE_THROTTLE } from '../../shared/platform.js';
import { functionsForStage, HTTP_ROUTES, maxBodyBytesOf, routeByName, type HttpRoute } from '../../shared/routes.js';
import { STAGES, type Stage } from '../../shared/stage.js';
import { envelope, sorted, type StackView, stageViews } from '../support/stage-view.js';

describe('decimalAbovePattern', () => {
  const limits = [0, 1, 9, 10, 99, 100, 199, 909, 1000, 65_536, 99_999, 1_234_567, ...new Set(HTTP_ROUTES.map(maxBodyBytesOf))];

  it.each(limits)('matches exactly the integers above %i, around it and far beyond', (limit) => {
    const pattern = new RegExp(decimalAbovePattern(limit));
    const samples = new Set<number>();
    for (let n = Math.max(0, limit - 1200); n <= limit + 1200; n++) samples.add(n);
    for (let scale = 1; scale <= 1e12; scale *= 7) samples.add(limit + scale);
    for (const n of samples) expect(pattern.test(String(n)), `${n} against ${limit}`).toBe(n > limit);
  });

  it('reads leading zeros as the number they pad, and nothing else as a number', () => {
    const pattern = new RegExp(decimalAbovePattern(65_536));
    expect(pattern.test('0000065537')).toBe(true);
    expect(pattern.test('0065536')).toBe(false);
    for (const text of ['', ' 70000', '70000 ', '7e5', '-70000', '+70000', '70,000', '0x20000']) expect(pattern.test(text), text).toBe(false);
  });

  it('refuses what is not a byte count', () => {
    for (const limit of [-1, 1.5, Number.NaN]) expect(() => decimalAbovePattern(limit)).toThrow(/Not a byte count/);
  });
});

describe('routePathPattern', () => {
  const confirm = routeByName('confirm-deposit');
  const status = routeByName('get-checkout-status');

  it('matches the route on the execute-api endpoint (stage first) and on a custom domain (no stage), trailing slashes ignored', () => {
    const pattern = new RegExp(routePathPattern([confirm, status], 'prod'));
    for (const path of ['/api/v2/gateway9/deposit/confirm', '/prod/api/v2/gateway9/deposit/confirm', '/api/v2/gateway9/deposit/confirm/', '/checkout/abc/status', '/prod/checkout/abc/status//']) {
      expect(pattern.test(path), path).toBe(true);
    }
  });

  it('matches one segment per path parameter, and nothing around the route', () => {
    const pattern = new RegExp(routePathPattern([confirm, status], 'prod'));
    for (const path of [
      '/checkout/a/b/status',
      '/checkout//status',
      '/demo/api/v2/gateway9/deposit/confirm',
      '/api/v2/gateway9/deposit/confirmed',
      '/x/api/v2/gateway9/deposit/confirm',
      '/api/v2/gateway9/deposit',
    ]) {
      expect(pattern.test(path), path).toBe(false);
    }
  });

  it('takes dots in a path literally', () => {
    const pattern = new RegExp(routePathPattern([routeByName('get-openapi')], 'demo'));
    expect(pattern.test('/api/v2/openapi.json')).toBe(true);
    expect(pattern.test('/api/v2/openapiXjson')).toBe(false);
  });
});

describe('createStageWebAcl', () => {
  it('fails synthesis for a body limit whose event could exceed a synchronous invocation, naming the route', () => {
    const stack = new Stack(new App(), 'OversizedLimit');
    const api = new RestApi(stack, 'Api');
    api.root.addMethod('GET', new MockIntegration());
    const oversized = { ...routeByName('confirm-deposit'), maxBodyBytes: 3 * 1024 * 1024 };
    const props = { stage: api.deploymentStage, stageName: 'prod', name: 'web-acl', payloadTooLargeBody: '{}', tooManyRequestsBody: '{}' };
    expect(() => createStageWebAcl(stack, 'WebAcl', { ...props, routes: [oversized] })).toThrow(
      /^confirm-deposit accept 3145728-byte bodies, whose events may reach 6356992 bytes, over the 6291456 .*shared\/routes\.ts/,
    );
    expect(() => createStageWebAcl(stack, 'FittingWebAcl', { ...props, routes: [routeByName('confirm-deposit')] })).not.toThrow();
  });

  describe('per-address rate rules', () => {
    const stack = new Stack(new App(), 'RateRules');
    const api = new RestApi(stack, 'Api');
    api.root.addMethod('GET', new MockIntegration());
    const props = { stage: api.deploymentStage, stageName: 'prod', name: 'web-acl', payloadTooLargeBody: '{}', tooManyRequestsBody: '{}' };
    let count = 0;
    /** The rate rules of a web ACL over these routes, by name, each with its limit and the paths it counts. */
    const rateRulesOf = (routes: readonly HttpRoute[]) => {
      const rules = createStageWebAcl(stack, `WebAcl${count++}`, { ...props, routes }).rules as CfnWebACL.RuleProperty[];
      return rules.flatMap((rule) => {
        const rate = (rule.statement as CfnWebACL.StatementProperty).rateBasedStatement as CfnWebACL.RateBasedStatementProperty | undefined;
        if (!rate) return [];
        const statement = rate.scopeDownStatement as CfnWebACL.StatementProperty;
        // A rule of one method has its path beside a method match.
        const parts = ((statement.andStatement as CfnWebACL.AndStatementProperty | undefined)?.statements ?? [statement]) as CfnWebACL.StatementProperty[];
        const scope = parts.find((part) => part.regexMatchStatement)!.regexMatchStatement as CfnWebACL.RegexMatchStatementProperty;
        const method = (parts.find((part) => part.byteMatchStatement)?.byteMatchStatement as CfnWebACL.ByteMatchStatementProperty | undefined)?.searchString;
        return [{ name: rule.name, priority: rule.priority, limit: rate.limit, window: rate.evaluationWindowSec, scope: new RegExp(scope.regexString), method }];
      });
    };
    const events = routeByName('receive-provider-event');
    const eventsPath = '/api/v2/providers/psp-one/events';

    it('counts the routes providers call apart from the public ones, in a rule of its own right after the public rule', () => {
      const [publicRule, providerRule, signInRule, ...others] = rateRulesOf(HTTP_ROUTES);
      expect(others).toEqual([]);
      expect(signInRule!.name).toBe(DASHBOARD_SIGN_IN_RATE_RULE_NAME);
      expect(publicRule).toMatchObject({ name: PUBLIC_RATE_RULE_NAME, limit: PUBLIC_ROUTE_THROTTLE.perAddress.requests, window: PUBLIC_ROUTE_THROTTLE.perAddress.windowSeconds });
      expect(providerRule).toMatchObject({ name: PROVIDER_EVENTS_RATE_RULE_NAME, limit: PROVIDER_EVENTS_THROTTLE.perAddress.requests, window: PROVIDER_EVENTS_THROTTLE.perAddress.windowSeconds });
      expect(providerRule!.priority).toBe(publicRule!.priority + 1);
      // The events route in one rule only; the checkout in the other only.
      for (const path of [eventsPath, `/prod${eventsPath}`]) {
        expect(providerRule!.scope.test(path), path).toBe(true);
        expect(publicRule!.scope.test(path), path).toBe(false);
      }
      for (const path of ['/checkout/abc', '/prod/checkout/abc/status', '/docs']) {
        expect(providerRule!.scope.test(path), path).toBe(false);
        expect(publicRule!.scope.test(path), path).toBe(true);
      }
      expect(events.calledByProviders).toBe(true);
    });

    it("counts the dashboard's posted sign-ins and invitations per address, after the other rate rules, and nothing else of it", () => {
      const signInRule = rateRulesOf(HTTP_ROUTES).find((rule) => rule.name === DASHBOARD_SIGN_IN_RATE_RULE_NAME)!;
      expect(signInRule).toMatchObject({ limit: DASHBOARD_SIGN_IN_THROTTLE.perAddress.requests, window: DASHBOARD_SIGN_IN_THROTTLE.perAddress.windowSeconds, method: 'POST' });
      for (const path of ['/dashboard/sign-in', '/prod/dashboard/sign-in', '/dashboard/sign-in/', '/dashboard/join/abc-_1']) expect(signInRule.scope.test(path), path).toBe(true);
      for (const path of ['/dashboard/overview', '/dashboard/sign-out', '/dashboard/join/a/b', '/dashboard/sign-in/x', '/checkout/abc']) expect(signInRule.scope.test(path), path).toBe(false);
    });

    it('has no rule for a kind of route the stage does not have', () => {
      expect(rateRulesOf(HTTP_ROUTES.filter((route) => !route.calledByProviders && !route.path.startsWith('/dashboard'))).map((rule) => rule.name)).toEqual([PUBLIC_RATE_RULE_NAME]);
      expect(rateRulesOf(HTTP_ROUTES.filter((route) => !route.calledByProviders)).map((rule) => rule.name)).toEqual([PUBLIC_RATE_RULE_NAME, DASHBOARD_SIGN_IN_RATE_RULE_NAME]);
      expect(rateRulesOf([events]).map((rule) => rule.name)).toEqual([PROVIDER_EVENTS_RATE_RULE_NAME]);
      expect(rateRulesOf(HTTP_ROUTES.filter((route) => route.auth === 'apiKey'))).toEqual([]);
    });
  });
});

let views: Record<Stage, StackView>;

/** The stages read below, each synthesized once for this file (test/support/stage-view.ts). */
beforeAll(() => {
  views = stageViews();
}, 600_000);

describe.each(STAGES)('%s stack', (stage) => {
  const definitions = functionsForStage(stage);
  const routes = definitions.filter((f): f is HttpRoute => f.kind === 'http');
  const v = () => views[stage];

  describe('web ACL', () => {
    type Rule = { Name: string; Action: unknown; Statement: any };
    const webAcl = () => v().resources('AWS::WAFv2::WebACL')[0]![1];
    const rules = () => webAcl().Properties.Rules as Rule[];
    /** A body-limit rule read back: its content-length pattern and the methods and path patterns it covers. */
    const shapeOf = (rule: Rule) => {
      const [contentLength, routeStatement] = rule.Statement.AndStatement.Statements;
      const routeStatements: any[] = routeStatement.OrStatement?.Statements ?? [routeStatement];
      return {
        header: contentLength.RegexMatchStatement.FieldToMatch.SingleHeader.Name as string,
        contentLength: new RegExp(contentLength.RegexMatchStatement.RegexString),
        routes: routeStatements.map((statement) => {
          const [method, path] = statement.AndStatement.Statements;
          expect(path.RegexMatchStatement.FieldToMatch).toEqual({ UriPath: {} });
          return { method: method.ByteMatchStatement.SearchString as string, path: new RegExp(path.RegexMatchStatement.RegexString) };
        }),
      };
    };
    const bodyLimitRules = () => rules().filter((rule) => rule.Name.startsWith('body-over-'));
    const rulesFor = (method: string, uriPath: string) => bodyLimitRules().filter((rule) => shapeOf(rule).routes.some((r) => r.method === method && r.path.test(uriPath)));
    const managedGroups = () => rules().filter((rule) => rule.Statement.ManagedRuleGroupStatement);
    const rateRule = (name = 'public-requests-per-address') => rules().find((rule) => rule.Name === name && rule.Statement.RateBasedStatement)!;
    const concretePath = (route: HttpRoute) => route.path.replace(/\{\w+\}/g, '0b6c8f3e-5d4a-4c1b-9e2f-1a2b3c4d5e6f');

    it('is one regional web ACL that allows by default, on the API stage', () => {
      v().template.resourceCountIs('AWS::WAFv2::WebACL', 1);
      expect(webAcl().Properties).toMatchObject({ Scope: 'REGIONAL', DefaultAction: { Allow: {} } });
      const [, association] = v().resources('AWS::WAFv2::WebACLAssociation')[0]!;
      expect(association.Properties.WebACLArn).toEqual({ 'Fn::GetAtt': [v().resources('AWS::WAFv2::WebACL')[0]![0], 'Arn'] });
      const stageId = v().resources('AWS::ApiGateway::Stage')[0]![0];
      expect(JSON.stringify(association.Properties.ResourceArn)).toContain(`"/stages/",{"Ref":"${stageId}"}`);
      expect(v().json.Resources[stageId]!.Properties.StageName).toBe(stage);
    });

    it.each(routes.map((r) => [`${r.method} ${r.path}`, r] as const))('%s: a declared body over the route limit gets the 413 envelope, on either endpoint', (_, route) => {
      const limit = maxBodyBytesOf(route);
      for (const uriPath of [concretePath(route), `/${stage}${concretePath(route)}`, `${concretePath(route)}/`]) {
        const matching = rulesFor(route.method, uriPath);
        expect(matching, uriPath).toHaveLength(1);
        const { header, contentLength } = shapeOf(matching[0]!);
        expect(header).toBe('content-length');
        for (const length of [0, 1, limit - 1, limit]) expect(contentLength.test(String(length)), String(length)).toBe(false);
        for (const length of [limit + 1, limit + 10, 10 * limit, 10 * 1024 * 1024]) expect(contentLength.test(String(length)), String(length)).toBe(true);
        expect(contentLength.test(`000${limit + 1}`)).toBe(true);
        expect(contentLength.test(`000${limit}`)).toBe(false);
        expect(matching[0]!.Action).toEqual({ Block: { CustomResponse: { ResponseCode: 413, CustomResponseBodyKey: 'payload-too-large' } } });
      }
    });

    it('leaves alone what no function answers: other methods on a routed path, and unknown paths', () => {
      for (const route of routes) {
        const otherMethod = route.method === 'GET' ? 'DELETE' : 'PUT';
        expect(rulesFor(otherMethod, concretePath(route))).toEqual([]);
      }
      expect(rulesFor('POST', '/api/v2/unknown')).toEqual([]);
      expect(rulesFor('POST', `/other${routes[0]!.path}`)).toEqual([]);
    });

    it('answers with the 413 and 429 envelopes the gateway itself renders', () => {
      expect(webAcl().Properties.CustomResponseBodies).toEqual({
        'payload-too-large': { ContentType: 'APPLICATION_JSON', Content: envelope('payload_too_large', 'Request body too large') },
        'too-many-requests': { ContentType: 'APPLICATION_JSON', Content: envelope('too_many_requests', 'Too many requests') },
      });
    });

    it('has one rule per body limit of the route table; every rule has metrics under its name', () => {
      expect(bodyLimitRules()).toHaveLength(new Set(routes.map(maxBodyBytesOf)).size);
      for (const rule of rules()) expect((rule as Rule & { VisibilityConfig: unknown }).VisibilityConfig).toMatchObject({ CloudWatchMetricsEnabled: true, MetricName: rule.Name });
    });

    it('evaluates the body limits first, then the per-address rates (public routes, provider events, dashboard sign-ins), then the managed rule groups, in consecutive priorities', () => {
      const ordered = [...rules()].sort((a, b) => (a as Rule & { Priority: number }).Priority - (b as Rule & { Priority: number }).Priority);
      expect(ordered.map((rule) => (rule as Rule & { Priority: number }).Priority)).toEqual(ordered.map((_, i) => i));
      expect(ordered.map((rule) => rule.Name)).toEqual([
        ...bodyLimitRules().map((rule) => rule.Name),
        'public-requests-per-address',
        'provider-events-per-address',
        'dashboard-sign-ins-per-address',
        'AWSManagedRulesCommonRuleSet',
        'AWSManagedRulesKnownBadInputsRuleSet',
      ]);
    });

    it(`refuses an address past ${PUBLIC_ROUTE_THROTTLE.perAddress.requests} requests in ${PUBLIC_ROUTE_THROTTLE.perAddress.windowSeconds} s to the routes without a key, providers' aside, with the 429 envelope`, () => {
      const { RateBasedStatement: rate } = rateRule().Statement;
      expect(rate).toMatchObject({ Limit: 1500, EvaluationWindowSec: 300, AggregateKeyType: 'IP' });
      expect(rateRule().Action).toEqual({ Block: { CustomResponse: { ResponseCode: 429, CustomResponseBodyKey: 'too-many-requests' } } });
      expect(rate.ScopeDownStatement.RegexMatchStatement.FieldToMatch).toEqual({ UriPath: {} });
      const scope = new RegExp(rate.ScopeDownStatement.RegexMatchStatement.RegexString);
      // Merchants' servers call many times a second with a key: the usage plan limits them per key
      // instead. Providers' events have a rule of their own, below.
      for (const route of routes) {
        for (const uriPath of [concretePath(route), `/${stage}${concretePath(route)}`]) {
          expect(scope.test(uriPath), `${route.name} ${uriPath}`).toBe(route.auth === 'none' && !route.calledByProviders);
        }
      }
      expect(scope.test('/api/v2/providers/psp-one/events')).toBe(false);
    });

    it(`refuses an address past ${PROVIDER_EVENTS_THROTTLE.perAddress.requests} requests in ${PROVIDER_EVENTS_THROTTLE.perAddress.windowSeconds} s to the route providers send events to, and to nothing else, with the 429 envelope`, () => {
      const eventRoutes = routes.filter((route) => route.calledByProviders);
      expect(eventRoutes.map((route) => `${route.method} ${route.path}`)).toEqual(['POST /api/v2/providers/{providerId}/events']);
      const rule = rateRule('provider-events-per-address');
      const { RateBasedStatement: rate } = rule.Statement;
      expect(rate).toMatchObject({ Limit: PROVIDER_EVENTS_THROTTLE.perAddress.requests, EvaluationWindowSec: PROVIDER_EVENTS_THROTTLE.perAddress.windowSeconds, AggregateKeyType: 'IP' });
      expect(rule.Action).toEqual({ Block: { CustomResponse: { ResponseCode: 429, CustomResponseBodyKey: 'too-many-requests' } } });
      expect(rate.ScopeDownStatement.RegexMatchStatement.FieldToMatch).toEqual({ UriPath: {} });
      const scope = new RegExp(rate.ScopeDownStatement.RegexMatchStatement.RegexString);
      for (const route of routes) {
        for (const uriPath of [concretePath(route), `/${stage}${concretePath(route)}`, `${concretePath(route)}/`]) {
          expect(scope.test(uriPath), `${route.name} ${uriPath}`).toBe(route.calledByProviders === true);
        }
      }
      for (const uriPath of ['/api/v2/providers/psp-one/events', `/${stage}/api/v2/providers/demo/events`]) expect(scope.test(uriPath), uriPath).toBe(true);
      for (const uriPath of ['/api/v2/providers/events', '/api/v2/providers/a/b/events', '/api/v2/providers/psp-one/events/x', '/demo-provider/payments']) expect(scope.test(uriPath), uriPath).toBe(false);
    });

    it("runs AWS's common and known-bad-inputs rule groups, counting only the body-size and missing User-Agent rules", () => {
      expect(managedGroups().map((rule) => [rule.Statement.ManagedRuleGroupStatement.VendorName, rule.Statement.ManagedRuleGroupStatement.Name])).toEqual([
        ['AWS', 'AWSManagedRulesCommonRuleSet'],
        ['AWS', 'AWSManagedRulesKnownBadInputsRuleSet'],
      ]);
      for (const rule of managedGroups()) expect((rule as Rule & { OverrideAction: unknown }).OverrideAction).toEqual({ None: {} });
      const [common, knownBad] = managedGroups().map((rule) => rule.Statement.ManagedRuleGroupStatement);
      // Receipts are megabytes: the body-limit rules above hold each route to its own limit.
      expect(common.RuleActionOverrides).toEqual([
        { Name: 'SizeRestrictions_BODY', ActionToUse: { Count: {} } },
        { Name: 'NoUserAgent_HEADER', ActionToUse: { Count: {} } },
      ]);
      expect(knownBad.RuleActionOverrides).toBeUndefined();
    });

    it('plots allowed and blocked requests, and what each rule blocked, on the dashboard', () => {
      const aclName = webAcl().Properties.Name;
      expect(aclName).toBe(`payment-gateway-${stage}`);
      expect(webAcl().Properties.VisibilityConfig.MetricName).toBe(aclName);
      const plotted = v()
        .dashboardMetrics()
        .filter(({ namespace }) => namespace === 'AWS/WAFV2')
        .map(({ metric, dimensions }) => {
          expect(dimensions).toMatchObject({ WebACL: aclName, Region: expect.any(String) });
          return `${metric} ${dimensions.Rule}`;
        });
      expect(sorted(plotted)).toEqual(sorted(['AllowedRequests ALL', 'BlockedRequests ALL', ...rules().map((rule) => `BlockedRequests ${rule.Name}`)]));
    });
  });
});
