/**
 * AWS's hard limits that a synthesis does not check, measured on every template of both stages,
 * as they are and grown (five providers of every method, six networks watched with three node
 * endpoints each and their tokens, a custom domain): each template keeps its headroom under
 * CloudFormation's limits, each function's environment under Lambda's, each role's policies under
 * IAM's, and the stage's configuration documents under SSM's (docs/operations.md#what-a-stage-is-made-of).
 * Each reference is counted at the longest it resolves to (test/support/template.ts).
 */
import { readFileSync } from 'node:fs';
import { App } from 'aws-cdk-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { GatewayStage, type GatewayStageProps } from '../../infra/aws/gateway-stage.js';
import type { ProviderDeployment } from '../../infra/aws/payment-providers.js';
import { PARAMETER_VALUE_BYTES, type WatchedNetworks } from '../../infra/aws/stage-configuration.js';
import { CRYPTO_NETWORKS, FIAT_METHOD_LIMITS } from '../../shared/domain/kernel/currencies.js';
import { providerMethods } from '../../shared/domain/providers/providers.js';
import { STAGES, type Stage } from '../../shared/stage.js';
import { deployedText, environmentBytes, linkedStageTemplate, stageTemplates, type CfnTemplate, type StageTemplate } from '../support/template.js';

/** CloudFormation's limits on a template (a stack's or a nested stack's), and the share of each a template may take. */
const CLOUDFORMATION = { resources: 500, outputs: 200, parameters: 200, mappings: 200, templateBytes: 1_048_576 } as const;
const SHARE = 0.6;
/** Resources a template may hold: the room it leaves is for the next routes, tables and networks (a route costs the API about seven). */
const RESOURCES_PER_TEMPLATE = 300;
/** Lambda holds 4 KB of environment a function; a function keeps a quarter of it free. */
const ENVIRONMENT_BYTES = 3 * 1024;
/** IAM's ceiling on a role's inline policies, all together, in characters without whitespace. */
const ROLE_POLICY_CHARACTERS = 10_240;
/** KMS's ceiling on a key policy. */
const KEY_POLICY_BYTES = 32_768;

/** What an operator's node endpoints come to at their longest: three 100-character URLs to a network, and TronGrid's key. */
const PARAMETER_LENGTH: Record<string, number> = { ChainRpc: 3 * 100 + 2, ChainApiKeyTron: 64 };

/** Five partners, each serving every method of every local currency (docs/merchant-guide.md#payment-limits). */
const GROWN_PROVIDERS: ProviderDeployment[] = [1, 2, 3, 4, 5].map((n) => ({
  id: `partner-provider-${n}`,
  name: `Partner payment provider number ${n}`,
  url: `https://gateway.partner-provider-${n}.example.com/api/v2`,
  priority: n,
  methods: providerMethods(FIAT_METHOD_LIMITS),
}));
/** Every network watched, each carrying its own token contracts. */
const GROWN_NETWORKS: WatchedNetworks = Object.fromEntries(
  CRYPTO_NETWORKS.map((network) => [
    network,
    network === 'bitcoin'
      ? {}
      : network === 'tron'
        ? { tokens: { USDT: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t', USDC: 'TEkxiTehnzSmSe2XqrBj4w32RUN966rdz8' } }
        : { tokens: { USDT: `0x${'1'.repeat(40)}`, USDC: `0x${'2'.repeat(40)}` } },
  ]),
);
const GROWN: Omit<GatewayStageProps, 'stage'> = {
  providers: GROWN_PROVIDERS,
  watchedNetworks: GROWN_NETWORKS,
  customDomain: { domainName: 'payments.gateway.example.com', certificateArn: 'arn:aws:acm:ap-southeast-2:123456789012:certificate/0a1b2c3d-4e5f-6789-abcd-ef0123456789' },
};

interface Measured {
  name: string;
  templates: StageTemplate[];
  linked: CfnTemplate;
}
let stages: Measured[];

beforeAll(() => {
  const { context } = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8'));
  const measured = (name: string, props: GatewayStageProps): Measured => {
    const stage = new GatewayStage(new App({ context: { ...context, 'aws:cdk:bundling-stacks': [] } }), props);
    return { name, templates: stageTemplates(stage), linked: linkedStageTemplate(stage) };
  };
  stages = STAGES.flatMap((stage: Stage) => [measured(stage, { stage }), measured(`${stage} grown`, { stage, ...GROWN })]);
}, 600_000);

/** A text of the template as deployed, an operator's parameter at its longest besides the template's references. */
function deployed(template: CfnTemplate, value: unknown): string {
  const withParameters = JSON.parse(
    JSON.stringify(value, (_, node) => {
      const ref = (node as { Ref?: string } | null)?.Ref;
      const bound = ref && Object.entries(PARAMETER_LENGTH).find(([prefix]) => ref.startsWith(prefix))?.[1];
      return bound ? 'u'.repeat(bound) : node;
    }),
  );
  return deployedText(template, withParameters);
}

/** A JSON document of the template (a policy) as deployed: each of its texts as `deployed` reads it. */
function deployedJson(template: CfnTemplate, value: unknown): string {
  const isIntrinsic = (node: object) => ['Ref', 'Fn::Join', 'Fn::GetAtt'].some((key) => key in node);
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (node && typeof node === 'object') return isIntrinsic(node) ? deployed(template, node) : Object.fromEntries(Object.entries(node).map(([key, item]) => [key, walk(item)]));
    return node;
  };
  return JSON.stringify(walk(value));
}

const figures = (template: CfnTemplate) => ({
  resources: Object.keys(template.Resources).length,
  outputs: Object.keys(template.Outputs ?? {}).length,
  parameters: Object.keys(template.Parameters ?? {}).length,
  mappings: Object.keys(template.Mappings ?? {}).length,
  templateBytes: Buffer.byteLength(JSON.stringify(template)),
});

describe.each(['prod', 'prod grown', 'demo', 'demo grown'])('the %s stage', (name) => {
  const stage = () => stages.find((candidate) => candidate.name === name)!;

  it(`keeps every template at or under ${RESOURCES_PER_TEMPLATE} resources and ${SHARE * 100}% of every other CloudFormation limit`, () => {
    for (const { name: templateName, template } of stage().templates) {
      const measured = figures(template);
      expect(measured.resources, `${templateName} resources`).toBeLessThanOrEqual(RESOURCES_PER_TEMPLATE);
      for (const limit of ['outputs', 'parameters', 'mappings', 'templateBytes'] as const) {
        expect(measured[limit], `${templateName} ${limit}`).toBeLessThanOrEqual(Math.floor(CLOUDFORMATION[limit] * SHARE));
      }
    }
  });

  it(`keeps every function's environment, measured as Lambda measures it, under ${ENVIRONMENT_BYTES} bytes`, () => {
    const { linked } = stage();
    const functions = Object.entries(linked.Resources).filter(([, resource]) => resource.Type === 'AWS::Lambda::Function' && resource.Properties.Environment);
    expect(functions.length).toBeGreaterThan(30);
    for (const [id, fn] of functions) expect(environmentBytes(linked, fn.Properties.Environment.Variables), `${fn.Properties.Description ?? id}`).toBeLessThanOrEqual(ENVIRONMENT_BYTES);
  });

  it(`keeps each role's policies under IAM's ${ROLE_POLICY_CHARACTERS} characters, and the vault key's policy under KMS's ${KEY_POLICY_BYTES} bytes`, () => {
    const { linked } = stage();
    for (const [roleId] of Object.entries(linked.Resources).filter(([, resource]) => resource.Type === 'AWS::IAM::Role')) {
      const documents = Object.values(linked.Resources)
        .filter((resource) => resource.Type === 'AWS::IAM::Policy' && JSON.stringify(resource.Properties.Roles).includes(`"${roleId}"`))
        .map((policy) => policy.Properties.PolicyDocument);
      const characters = documents.reduce((sum, document) => sum + deployedJson(linked, document).replace(/\s/g, '').length, 0);
      expect(characters, roleId).toBeLessThanOrEqual(ROLE_POLICY_CHARACTERS);
    }
    for (const [keyId, key] of Object.entries(linked.Resources).filter(([, resource]) => resource.Type === 'AWS::KMS::Key')) {
      expect(Buffer.byteLength(deployedJson(linked, key.Properties.KeyPolicy)), keyId).toBeLessThanOrEqual(KEY_POLICY_BYTES);
    }
  });

  it(`keeps each of its configuration documents within the ${PARAMETER_VALUE_BYTES} bytes an SSM parameter holds, in a tier that holds it`, () => {
    const { linked } = stage();
    const documents = Object.values(linked.Resources).filter((resource) => resource.Type === 'AWS::SSM::Parameter' && /\/(configuration|chain-endpoints)$/.test(resource.Properties.Name));
    expect(documents).toHaveLength(2);
    for (const document of documents) {
      const text = deployed(linked, document.Properties.Value);
      expect(() => JSON.parse(text), document.Properties.Name).not.toThrow();
      expect(Buffer.byteLength(text), document.Properties.Name).toBeLessThanOrEqual(PARAMETER_VALUE_BYTES);
      // Over the standard tier's 4 KB, SSM takes it into the advanced tier as it is written.
      expect(document.Properties.Tier, document.Properties.Name).toBe('Intelligent-Tiering');
    }
  });
});

describe('the grown stages', () => {
  it('are grown: five providers of every method, every network with three endpoints, a custom domain', () => {
    for (const name of ['prod grown', 'demo grown']) {
      const { linked } = stages.find((candidate) => candidate.name === name)!;
      const [configuration] = Object.values(linked.Resources).filter((resource) => resource.Type === 'AWS::SSM::Parameter' && resource.Properties.Name.endsWith('/configuration'));
      const document = JSON.parse(deployed(linked, configuration!.Properties.Value));
      expect(document.providers.filter((provider: { methods: unknown[] }) => provider.methods.length === 7).length).toBeGreaterThanOrEqual(5);
      expect(Object.keys(document.tokens)).toHaveLength(CRYPTO_NETWORKS.length - 1);
      expect(Object.keys(linked.Parameters ?? {}).filter((parameter) => parameter.startsWith('ChainRpc')).length).toBe(CRYPTO_NETWORKS.length);
      expect(Object.values(linked.Resources).filter((resource) => resource.Type === 'AWS::ApiGateway::DomainName')).toHaveLength(1);
    }
  });

  it("would fail the measures above: a stage whose providers are all in one function's environment is over Lambda's limit", () => {
    // What the environment held before the stage's configuration moved out of it (GATEWAY_PROVIDERS).
    const { linked } = stages.find((candidate) => candidate.name === 'prod grown')!;
    const [configuration] = Object.values(linked.Resources).filter((resource) => resource.Type === 'AWS::SSM::Parameter' && resource.Properties.Name.endsWith('/configuration'));
    const [createInvoice] = Object.values(linked.Resources).filter((resource) => resource.Type === 'AWS::Lambda::Function' && resource.Properties.Description === 'create-invoice');
    const variables = { ...createInvoice!.Properties.Environment.Variables, GATEWAY_PROVIDERS: configuration!.Properties.Value };
    expect(environmentBytes(linked, variables)).toBeGreaterThan(4 * 1024);
  });
});
