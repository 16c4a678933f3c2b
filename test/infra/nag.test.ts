/**
 * cdk-nag's AwsSolutions and Serverless packs over every shape of the stage the app deploys, each
 * of its stacks: prod, demo (with the demo provider), a stage watching EVM networks, a custom
 * domain, and stages with a partner provider. No finding stands unless it is acknowledged, next to
 * the construct it concerns, with its reason; and the app runs the same packs at every `cdk synth`
 * (cdk-app.test.ts synthesizes through the real CLI). Each app is synthesized first: a finding that
 * names another stack's output is acknowledged once the references are resolved (infra/aws/nag.ts).
 */
import { readFileSync } from 'node:fs';
import { App, Stack, Validations } from 'aws-cdk-lib';
import { Policy, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import type { IConstruct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import { GatewayStage, type GatewayStageProps } from '../../infra/aws/gateway-stage.js';
import { acknowledge, acknowledgeWildcardResourcesOf, addNagChecks, nagPacks } from '../../infra/aws/nag.js';

const CERTIFICATE_ARN = 'arn:aws:acm:eu-west-1:123456789012:certificate/0a1b2c3d-4e5f-6789-abcd-ef0123456789';
const PARTNER = { id: 'psp-one', url: 'https://psp-one.example/gw', priority: 1, methods: [{ currency: 'INR', method: 'p2p', min: '300', max: '49000' }] } as const;
const SHAPES = ['prod', 'demo', 'demo watching ethereum and polygon', 'prod on a custom domain', 'prod with a partner provider', 'demo with a partner provider'];

let stages: Record<string, GatewayStage>;

beforeAll(() => {
  const { context } = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8'));
  /** A stage in an app of its own (its stacks are named after it), synthesized. */
  const synthesized = (props: GatewayStageProps) => {
    const app = new App({ context: { ...context, 'aws:cdk:bundling-stacks': [] } });
    const stage = new GatewayStage(app, props);
    app.synth();
    return stage;
  };
  stages = {
    prod: synthesized({ stage: 'prod' }),
    demo: synthesized({ stage: 'demo' }),
    'demo watching ethereum and polygon': synthesized({
      stage: 'demo',
      watchedNetworks: { ethereum: { tokens: { USDT: '0x1111111111111111111111111111111111111111' } }, polygon: {} },
    }),
    'prod on a custom domain': synthesized({ stage: 'prod', customDomain: { domainName: 'pay.example.com', certificateArn: CERTIFICATE_ARN } }),
    'prod with a partner provider': synthesized({ stage: 'prod', providers: [PARTNER] }),
    'demo with a partner provider': synthesized({ stage: 'demo', providers: [PARTNER] }),
  };
}, 600_000);

/** Each finding as `rule: construct path`. */
function findingsOf(scope: IConstruct): string[] {
  return nagPacks().flatMap((pack) => pack.validateScope(scope).violations.flatMap((violation) => violation.violatingResources.map((resource) => `${violation.ruleName}: ${resource.constructPath}`)));
}

/** Every acknowledgement in the tree: the rule, the reason, and the construct it was made on. */
function acknowledgementsIn(scope: IConstruct): Array<{ rule: string; reason: string; path: string }> {
  return scope.node
    .findAll()
    .flatMap((construct) =>
      construct.node.metadata
        .filter((entry) => entry.type === Validations.ACKNOWLEDGED_RULES_METADATA_KEY)
        .flatMap((entry) => Object.entries(entry.data as Record<string, string>).map(([rule, reason]) => ({ rule: rule.replace(/^annotation::/i, ''), reason, path: construct.node.path }))),
    );
}

describe.each(SHAPES)('the %s stage', (name) => {
  it('has no finding of the AwsSolutions or Serverless packs that is not acknowledged, in any of its stacks', () => {
    for (const stack of stages[name]!.stacks) expect(findingsOf(stack), stack.stackName).toEqual([]);
  });

  it('gives every acknowledgement a reason of its own, for a rule of those packs', () => {
    const acknowledged = stages[name]!.stacks.flatMap(acknowledgementsIn);
    expect(acknowledged.length).toBeGreaterThan(0);
    for (const { rule, reason, path } of acknowledged) {
      expect(rule, path).toMatch(/^(AwsSolutions|Serverless)-\w+(\[.+\])?$/);
      // A sentence saying why, not a placeholder.
      expect(reason.split(' ').length, `${rule} on ${path}`).toBeGreaterThanOrEqual(8);
    }
  });
});

describe('the packs', () => {
  it('find what they are there to find: a bucket without access logs or TLS enforcement', () => {
    const stack = new Stack(new App(), 'Unprotected');
    new Bucket(stack, 'Plain');
    expect(findingsOf(stack)).toEqual(expect.arrayContaining(['AwsSolutions-S1: Unprotected/Plain/Resource', 'AwsSolutions-S10: Unprotected/Plain/Resource']));
  });

  it('run when the app is synthesized, which fails on a finding and passes once it is acknowledged', () => {
    const synthesize = (acknowledged: boolean) => {
      const app = new App();
      addNagChecks(app);
      const bucket = new Bucket(new Stack(app, 'Unprotected'), 'Plain');
      if (acknowledged) acknowledge(bucket, ['AwsSolutions-S1', 'AwsSolutions-S10'], 'A bucket made only to show the packs at work.');
      return () => app.synth();
    };
    expect(synthesize(false)).toThrow(/server access logs disabled[\s\S]*Unprotected\/Plain\/Resource/);
    expect(synthesize(true)).not.toThrow();
  });

  it("acknowledge a grant on every object of another stack's bucket once the references are resolved, on the policy that holds it alone", () => {
    const grantedAcross = (acknowledged: boolean) => {
      const { context } = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8'));
      const app = new App({ context });
      const bucket = new Bucket(new Stack(app, 'Keeps'), 'Files');
      const reader = new Stack(app, 'Reads');
      const role = new Role(reader, 'Reader', { assumedBy: new ServicePrincipal('lambda.amazonaws.com') });
      const policy = new Policy(reader, 'ReadsFiles', { roles: [role], statements: [new PolicyStatement({ actions: ['s3:GetObject'], resources: [bucket.arnForObjects('*')] })] });
      if (acknowledged) acknowledgeWildcardResourcesOf(policy, 'GetObject only, on the files a test keeps in the other stack.');
      app.synth();
      return findingsOf(reader).filter((finding) => finding.startsWith('AwsSolutions-IAM5'));
    };
    expect(grantedAcross(false)).toEqual([expect.stringMatching(/^AwsSolutions-IAM5\[Resource::\{"Fn::GetStackOutput":\{"StackName":"Keeps".*\/\*\]: Reads\/ReadsFiles\/Resource$/)]);
    expect(grantedAcross(true)).toEqual([]);
  });
});
