/**
 * The web ACL's patterns, checked as numbers and paths: WAF compares `content-length` as text, so
 * "over the limit" is a regular expression, and a route's path is one too.
 */
import { App, Stack } from 'aws-cdk-lib';
import { MockIntegration, RestApi } from 'aws-cdk-lib/aws-apigateway';
import type { CfnWebACL } from 'aws-cdk-lib/aws-wafv2';
import { describe, expect, it } from 'vitest';
import { DASHBOARD_SIGN_IN_RATE_RULE_NAME, PROVIDER_EVENTS_RATE_RULE_NAME, PUBLIC_RATE_RULE_NAME, createStageWebAcl, decimalAbovePattern, routePathPattern } from '../../infra/aws/web-acl.js';
import { DASHBOARD_SIGN_IN_THROTTLE, PROVIDER_EVENTS_THROTTLE, PUBLIC_ROUTE_THROTTLE } from '../../shared/platform.js';
import { HTTP_ROUTES, maxBodyBytesOf, routeByName, type HttpRoute } from '../../shared/routes.js';

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
