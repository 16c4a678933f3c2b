/**
 * The function that issues and revokes API keys (`managesApiKeys`): the dashboard's forms,
 * `submit-dashboard-form`, in the demo stage as synthesized. A route's function is the hard case: the usage plan is made after the API's
 * deployment, which waits for every route's function, so a function that referred to the plan
 * would close a dependency cycle (the synthesized template's validation refuses it, as
 * CloudFormation would). The function is the API stack's nested stack's, the plan and its grants
 * the API stack's own; read here as one template (test/support/template.ts linkedStageTemplate).
 * Bundling is skipped (it changes nothing read here).
 */
import { readFileSync } from 'node:fs';
import { App, RemovalPolicy, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Table, type ITable } from 'aws-cdk-lib/aws-dynamodb';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IConstruct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import { GatewayFunction } from '../../infra/aws/gateway-function.js';
import { GatewayStage } from '../../infra/aws/gateway-stage.js';
import { nagPacks } from '../../infra/aws/nag.js';
import { FUNCTIONS, functionsForStage, type GatewayFunction as FunctionDefinition } from '../../shared/routes.js';
import { TABLE_KEYS, type TableKey } from '../../shared/store/tables.js';
import { linkedStageTemplate, resolveText } from '../support/template.js';

/** The one function of the route table that manages keys. */
const FLAGGED = 'submit-dashboard-form';

type Resource = { Type: string; Properties: Record<string, any> };
type Statement = { Effect: string; Action: string | string[]; Resource: unknown };

const PARAMETER_NAME = '/payment-gateway/demo/usage-plan-id';

let stage: GatewayStage;
let synthesisError: unknown;
let resources: Record<string, Resource> = {};

beforeAll(() => {
  const { context } = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8'));
  stage = new GatewayStage(new App({ context: { ...context, 'aws:cdk:bundling-stacks': [] } }), { stage: 'demo' });
  try {
    // Each template on its own first, as CloudFormation takes them: its validation refuses a cycle.
    for (const stack of stage.stacks) Template.fromStack(stack);
    resources = linkedStageTemplate(stage).Resources as Record<string, Resource>;
  } catch (error) {
    synthesisError = error;
  }
}, 600_000);

const ofType = (type: string): Array<[string, Resource]> => Object.entries(resources).filter(([, resource]) => resource.Type === type);
const functionNamed = (name: string): Resource => ofType('AWS::Lambda::Function').find(([, fn]) => fn.Properties.Description === name)![1];
const usagePlanId = (): string => ofType('AWS::ApiGateway::UsagePlan')[0]![0];

/** Every statement of every policy on the function's role: its own and those attached to it. */
function statementsOf(name: string): Statement[] {
  const roleId = functionNamed(name).Properties.Role['Fn::GetAtt'][0] as string;
  return ofType('AWS::IAM::Policy')
    .filter(([, policy]) => JSON.stringify(policy.Properties.Roles).includes(`"${roleId}"`))
    .flatMap(([, policy]) => policy.Properties.PolicyDocument.Statement as Statement[]);
}

/** The function's API Gateway and SSM grants, as sorted `action resource` pairs. */
const keyGrantsOf = (name: string): string[] =>
  statementsOf(name)
    .flatMap((statement) => [statement.Action].flat().flatMap((action) => [statement.Resource].flat().map((resource) => `${action} ${resolveText(resource)}`)))
    .filter((grant) => /^(apigateway|ssm):/.test(grant))
    .sort();

describe('a route whose function manages API keys', () => {
  it('is the only one of the route table', () => {
    expect(FUNCTIONS.filter((definition) => (definition as FunctionDefinition).managesApiKeys).map((definition) => definition.name)).toEqual([FLAGGED]);
    expect(functionsForStage('demo').some((definition) => definition.name === FLAGGED && definition.kind === 'http')).toBe(true);
  });

  it("synthesizes: the template's validation finds no circular dependency, which CloudFormation would refuse", () => {
    expect(synthesisError).toBeUndefined();
  });

  it('is given the name of the SSM parameter holding the usage plan id, written out, and the stack keeps the id there', () => {
    expect(functionNamed(FLAGGED).Properties.Environment.Variables.API_KEY_USAGE_PLAN_PARAMETER).toBe(PARAMETER_NAME);
    const parameters = ofType('AWS::SSM::Parameter').filter(([, parameter]) => parameter.Properties.Name === PARAMETER_NAME);
    expect(parameters).toHaveLength(1);
    expect(parameters[0]![1].Properties).toMatchObject({ Type: 'String', Value: { Ref: usagePlanId() } });
    for (const [, fn] of ofType('AWS::Lambda::Function').filter(([, fn]) => fn.Properties.Description !== FLAGGED)) {
      expect(fn.Properties.Environment?.Variables ?? {}, fn.Properties.Description).not.toHaveProperty('API_KEY_USAGE_PLAN_PARAMETER');
    }
  });

  it("may create keys, add them to the stage's usage plan, find them by name, delete them and read the plan's id: nothing else of API Gateway or SSM", () => {
    const api = 'arn:<AWS::Partition>:apigateway:<AWS::Region>::';
    const parameter = ofType('AWS::SSM::Parameter').find(([, p]) => p.Properties.Name === PARAMETER_NAME)![0];
    const stageConfigurationParameter = ofType('AWS::SSM::Parameter').find(([, p]) => p.Properties.Name === '/payment-gateway/demo/configuration')![0];
    expect(keyGrantsOf(FLAGGED)).toEqual(
      [
        `apigateway:DELETE ${api}/apikeys/*`,
        `apigateway:GET ${api}/apikeys`,
        `apigateway:POST ${api}/apikeys`,
        `apigateway:POST ${api}/usageplans/<${usagePlanId()}>/keys`,
        // The parameter's ARN (its name begins with a slash, which the ARN holds once).
        `ssm:GetParameter arn:<AWS::Partition>:ssm:<AWS::Region>:<AWS::AccountId>:parameter<${parameter}>`,
        // Beside it, as every function that quotes payouts: the stage's configuration and its networks' endpoints, read in one call.
        `ssm:GetParameters arn:<AWS::Partition>:ssm:<AWS::Region>:<AWS::AccountId>:parameter<${stageConfigurationParameter}>`,
        'ssm:GetParameters arn:<AWS::Partition>:ssm:<AWS::Region>:<AWS::AccountId>:parameter/payment-gateway/demo/chain-endpoints',
      ].sort(),
    );
    for (const definition of functionsForStage('demo').filter((definition) => definition.name !== FLAGGED)) {
      expect(
        keyGrantsOf(definition.name).filter((grant) => grant.startsWith('apigateway:') || grant.startsWith('ssm:GetParameter ')),
        definition.name,
      ).toEqual([]);
    }
  });

  it('leaves no finding of the AwsSolutions or Serverless packs unacknowledged', () => {
    const findingsOf = (scope: IConstruct) =>
      nagPacks().flatMap((pack) => pack.validateScope(scope).violations.flatMap((violation) => violation.violatingResources.map((resource) => `${violation.ruleName}: ${resource.constructPath}`)));
    for (const stack of stage.stacks) expect(findingsOf(stack), stack.stackName).toEqual([]);
  });
});

describe('a function that manages API keys, given no usage plan', () => {
  it('fails synthesis, saying what is missing', () => {
    const bare = new Stack(new App({ context: { 'aws:cdk:bundling-stacks': [] } }), 'MissingUsagePlan');
    // A function that needs nothing else the bare stack lacks.
    const definition = { ...FUNCTIONS.find((f) => f.name === 'get-merchant')!, managesApiKeys: true } as FunctionDefinition;
    expect(
      () =>
        new GatewayFunction(bare, 'GetMerchant', {
          stage: 'demo',
          definition,
          environment: {},
          tables: Object.fromEntries(TABLE_KEYS.map((key) => [key, Table.fromTableName(bare, `${key}Table`, key)])) as Record<TableKey, ITable>,
          queues: {},
          logRetention: RetentionDays.ONE_DAY,
          removalPolicy: RemovalPolicy.DESTROY,
          watchedNetworks: 0,
        }),
    ).toThrow('get-merchant manages API keys, and no usage plan was given');
  });
});
