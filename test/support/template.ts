/** Reading synthesized CloudFormation templates in the infrastructure tests. */
import { NestedStack, type Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { GatewayStage } from '../../infra/aws/gateway-stage.js';

/** A value of the template as text: each `Fn::Join` joined, each reference as `<LogicalId>` or `<LogicalId.Attribute>` (pseudo parameters `<AWS::Region>`). */
export function resolveText(value: unknown): string {
  if (typeof value === 'string') return value;
  const intrinsic = value as { 'Fn::Join'?: [string, unknown[]]; Ref?: string; 'Fn::GetAtt'?: [string, string] };
  if (intrinsic['Fn::Join']) return intrinsic['Fn::Join'][1].map(resolveText).join(intrinsic['Fn::Join'][0]);
  if (intrinsic.Ref) return `<${intrinsic.Ref}>`;
  if (intrinsic['Fn::GetAtt']) return `<${intrinsic['Fn::GetAtt'].join('.')}>`;
  throw new Error(`Not a text of the template: ${JSON.stringify(value)}`);
}

export type CfnResource = { Type: string; Properties: Record<string, any>; DeletionPolicy?: string; UpdateReplacePolicy?: string; DependsOn?: string | string[] };
export interface CfnTemplate {
  Resources: Record<string, CfnResource>;
  Outputs?: Record<string, { Value: unknown; Description?: string }>;
  Parameters?: Record<string, any>;
  Mappings?: Record<string, unknown>;
  Description?: string;
}

/** One template of a stage as CloudFormation takes it: a stack's, or a nested stack's, by the path of its construct. */
export interface StageTemplate {
  /** The stack's name, or for a nested stack its parent's name and its construct id: `PaymentGateway-prod-api/RouteFunctions`. */
  name: string;
  stack: Stack;
  template: CfnTemplate;
}

/** Every template of a stage: each stack's, its nested stacks' after it. */
export function stageTemplates(stage: GatewayStage): StageTemplate[] {
  return stage.stacks.flatMap((stack) => [
    { name: stack.stackName, stack, template: Template.fromStack(stack).toJSON() as CfnTemplate },
    ...stack.node
      .findAll()
      .filter((construct): construct is NestedStack => construct instanceof NestedStack)
      .map((nested) => ({ name: `${stack.stackName}/${nested.node.id}`, stack: nested as Stack, template: Template.fromStack(nested).toJSON() as CfnTemplate })),
  ]);
}

/**
 * A stage's templates as one, each reference between them made a reference within it: an output
 * another stack reads (`Fn::GetStackOutput`) is the value it outputs, a nested stack's parameter
 * the value its parent passes, a nested stack's output (`Fn::GetAtt` of `Outputs.…`) its value.
 * The stacks' own outputs and parameters are the whole's; a logical id found twice fails.
 */
export function linkedStageTemplate(stage: GatewayStage): CfnTemplate {
  const templates = stageTemplates(stage);
  const byStackName = new Map(templates.map((entry) => [entry.name, entry]));
  /** Where each nested stack's template is referred to in its parent: the logical id of its AWS::CloudFormation::Stack resource. */
  const nestedByResource = new Map<string, StageTemplate & { parent: StageTemplate }>();
  for (const entry of templates.filter(({ stack }) => stack instanceof NestedStack)) {
    const parent = byStackName.get(entry.name.split('/')[0]!)!;
    const nested = entry.stack as NestedStack;
    nestedByResource.set(parent.stack.getLogicalId(nested.nestedStackResource!), { ...entry, parent });
  }

  const link = (value: unknown, within: StageTemplate): unknown => {
    if (Array.isArray(value)) return value.map((item) => link(item, within));
    if (!value || typeof value !== 'object') return value;
    const node = value as Record<string, any>;
    if (node['Fn::GetStackOutput']) {
      const { StackName, OutputName } = node['Fn::GetStackOutput'];
      const producer = byStackName.get(StackName);
      if (!producer?.template.Outputs?.[OutputName]) throw new Error(`No output ${OutputName} of ${StackName}`);
      return link(producer.template.Outputs[OutputName].Value, producer);
    }
    if (typeof node.Ref === 'string' && within.stack instanceof NestedStack && within.template.Parameters?.[node.Ref]) {
      const parent = byStackName.get(within.name.split('/')[0]!)!;
      const resource = [...nestedByResource.entries()].find(([, entry]) => entry.name === within.name)![0];
      return link(parent.template.Resources[resource]!.Properties.Parameters[node.Ref], parent);
    }
    const getAtt = node['Fn::GetAtt'] as [string, string] | undefined;
    if (getAtt && nestedByResource.has(getAtt[0]) && getAtt[1].startsWith('Outputs.')) {
      const nested = nestedByResource.get(getAtt[0])!;
      return link(nested.template.Outputs![getAtt[1].slice('Outputs.'.length)]!.Value, nested);
    }
    return Object.fromEntries(Object.entries(node).map(([key, item]) => [key, link(item, within)]));
  };

  const linked: CfnTemplate = { Resources: {}, Outputs: {}, Parameters: {} };
  const origins = new Map<string, string>();
  ORIGINS.set(linked, origins);
  for (const entry of templates) {
    for (const [id, resource] of Object.entries(entry.template.Resources)) {
      if (linked.Resources[id]) throw new Error(`${id} is a logical id of two templates of the stage`);
      linked.Resources[id] = link(resource, entry) as CfnResource;
      // A nested stack's resources are named after the nested stack, itself named after its parent.
      origins.set(id, entry.stack instanceof NestedStack ? `${entry.name.split('/')[0]}-${entry.name.split('/')[1]}NestedStack-${'X'.repeat(13)}` : entry.name);
    }
    if (entry.stack instanceof NestedStack) continue;
    Object.assign(linked.Outputs!, link(entry.template.Outputs ?? {}, entry));
    Object.assign(linked.Parameters!, entry.template.Parameters ?? {});
  }
  return linked;
}

/** Which stack each resource of a linked template is in: CloudFormation names what it names after its stack. */
const ORIGINS = new WeakMap<CfnTemplate, Map<string, string>>();

/** The longest partition, region and account a reference may name. */
const PARTITION = 'aws-us-gov';
const REGION = 'ap-southeast-2';
const ACCOUNT = '123456789012';
const arn = (service: string, resource: string, region = REGION) => `arn:${PARTITION}:${service}:${region}:${ACCOUNT}:${resource}`;

/**
 * The name CloudFormation gives a resource it names itself: its stack's name, its logical id and a
 * random suffix, cut to what the service takes.
 */
const generatedName = (stackName: string, logicalId: string, maxLength = 255) => `${stackName}-${logicalId}-${'X'.repeat(13)}`.slice(-maxLength);

/**
 * What a reference of a template resolves to once deployed, at its longest, by the type of what it
 * names and the attribute read: names as CloudFormation generates them, URLs and ARNs with the
 * longest partition, region and account.
 */
const DEPLOYED: Record<string, (name: (maxLength?: number) => string, resource: CfnResource, logicalId: string) => Record<string, string>> = {
  'AWS::DynamoDB::Table': (name) => ({ Ref: name(), Arn: arn('dynamodb', `table/${name()}`) }),
  'AWS::SQS::Queue': (name) => ({ Ref: `https://sqs.${REGION}.amazonaws.com.cn/${ACCOUNT}/${name(80)}`, Arn: arn('sqs', name(80)), QueueName: name(80) }),
  'AWS::S3::Bucket': (name) => ({ Ref: name(63).toLowerCase(), Arn: `arn:${PARTITION}:s3:::${name(63).toLowerCase()}` }),
  'AWS::KMS::Key': () => ({ Ref: '0'.repeat(36), Arn: arn('kms', `key/${'0'.repeat(36)}`) }),
  'AWS::SecretsManager::Secret': (_, __, logicalId) => ({ Ref: arn('secretsmanager', `secret:${logicalId}-${'X'.repeat(12)}-AbCdEf`) }),
  'AWS::SSM::Parameter': (name, resource) => {
    const parameterName = typeof resource.Properties.Name === 'string' ? resource.Properties.Name : name(1011);
    return { Ref: parameterName, Arn: arn('ssm', `parameter${parameterName}`) };
  },
  'AWS::ApiGateway::RestApi': () => ({ Ref: 'a'.repeat(10), RootResourceId: 'a'.repeat(10) }),
  'AWS::ApiGateway::UsagePlan': () => ({ Ref: 'a'.repeat(6) }),
  'AWS::ApiGateway::Stage': (_, resource) => ({ Ref: String(resource.Properties.StageName) }),
  'AWS::Logs::LogGroup': (name) => ({ Ref: name(512), Arn: arn('logs', `log-group:${name(512)}:*`) }),
  'AWS::IAM::Role': (name) => ({ Ref: name(64), Arn: `arn:${PARTITION}:iam::${ACCOUNT}:role/${name(64)}` }),
};
/** The pseudo parameters, at their longest. */
const PSEUDO: Record<string, string> = {
  'AWS::Region': REGION,
  'AWS::URLSuffix': 'amazonaws.com.cn',
  'AWS::Partition': PARTITION,
  'AWS::AccountId': ACCOUNT,
};

/** A value of `template` as it could read once deployed, each reference at its longest (DEPLOYED). */
export function deployedText(template: CfnTemplate, value: unknown): string {
  return resolveText(value).replace(/<([\w:]+?)(?:\.(\w+))?>/g, (placeholder, id: string, attribute: string | undefined) => {
    if (PSEUDO[id]) return PSEUDO[id];
    const resource = template.Resources[id];
    const deployed = resource && DEPLOYED[resource.Type]?.((maxLength) => generatedName(ORIGINS.get(template)?.get(id) ?? 'PaymentGateway-stage-concern', id, maxLength), resource, id)[attribute ?? 'Ref'];
    if (deployed === undefined) throw new Error(`No deployed value known for ${placeholder} (${resource?.Type})`);
    return deployed;
  });
}

/**
 * A function's environment as Lambda measures it against its 4 KB: the JSON of its variables,
 * quotes and escapes included, in bytes, each reference at its longest.
 */
export const environmentBytes = (template: CfnTemplate, variables: Record<string, unknown>): number =>
  Buffer.byteLength(JSON.stringify(Object.fromEntries(Object.entries(variables).map(([name, value]) => [name, deployedText(template, value)]))));
