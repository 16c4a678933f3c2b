/**
 * The logical ids of every stateful resource of both stages, pinned, stack by stack: CloudFormation
 * replaces a resource whose logical id changes, with a new table, queue, key, bucket, secret or log
 * group, and deletes the old one (or, in prod, leaves it behind, and its data with it). A
 * refactoring must leave these as they are; a new stateful resource is added to
 * test/fixtures/stateful-logical-ids.json with the change that makes it.
 */
import { readFileSync } from 'node:fs';
import { App } from 'aws-cdk-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { GatewayStage } from '../../infra/aws/gateway-stage.js';
import type { ProviderDeployment } from '../../infra/aws/payment-providers.js';
import { STAGES } from '../../shared/stage.js';
import { stageTemplates, type StageTemplate } from '../support/template.js';

/** What a stage keeps: its data, its messages, its keys and secrets, its logs. */
const STATEFUL_TYPES = ['AWS::DynamoDB::Table', 'AWS::SQS::Queue', 'AWS::S3::Bucket', 'AWS::KMS::Key', 'AWS::SecretsManager::Secret', 'AWS::Logs::LogGroup'] as const;
/** A partner provider, whose secret's logical id is made from its id. */
const PARTNER: ProviderDeployment = { id: 'psp-one', url: 'https://psp-one.example/gw', priority: 1, methods: [{ currency: 'INR', method: 'p2p', min: '300', max: '49000' }] };
const PINNED = JSON.parse(readFileSync(new URL('../fixtures/stateful-logical-ids.json', import.meta.url), 'utf8')) as Record<string, Record<string, string[]>>;

/** Each template's stateful resources, by type, their logical ids sorted. */
function statefulLogicalIds(templates: readonly StageTemplate[]): Record<string, Record<string, string[]>> {
  return Object.fromEntries(
    templates.flatMap(({ name, template }) => {
      const byType = Object.fromEntries(
        STATEFUL_TYPES.flatMap((type) => {
          const ids = Object.entries(template.Resources)
            .filter(([, resource]) => resource.Type === type)
            .map(([id]) => id)
            .sort();
          return ids.length > 0 ? [[type, ids]] : [];
        }),
      );
      return Object.keys(byType).length > 0 ? [[name, byType]] : [];
    }),
  );
}

/** The property of each stateful type that names it, when written. */
const NAME_PROPERTY: Record<(typeof STATEFUL_TYPES)[number], string> = {
  'AWS::DynamoDB::Table': 'TableName',
  'AWS::SQS::Queue': 'QueueName',
  'AWS::S3::Bucket': 'BucketName',
  'AWS::KMS::Key': 'KeyName',
  'AWS::SecretsManager::Secret': 'Name',
  'AWS::Logs::LogGroup': 'LogGroupName',
};

let templates: StageTemplate[];
let actual: Record<string, Record<string, string[]>>;

beforeAll(() => {
  const { context } = JSON.parse(readFileSync(new URL('../../cdk.json', import.meta.url), 'utf8'));
  templates = STAGES.flatMap((stage) => stageTemplates(new GatewayStage(new App({ context: { ...context, 'aws:cdk:bundling-stacks': [] } }), { stage, providers: [PARTNER] })));
  actual = statefulLogicalIds(templates);
}, 600_000);

describe('the stateful resources of both stages', () => {
  it('keep the logical ids they were first deployed with, in the stacks they were first deployed in', () => {
    expect(actual).toEqual(PINNED);
  });

  it('that a prod stack keeps when it goes have no name written out, so that the stage, or a provider, made again makes them anew beside what was kept', () => {
    const retained = templates.flatMap(({ name, template }) =>
      Object.entries(template.Resources)
        .filter(([, resource]) => (STATEFUL_TYPES as readonly string[]).includes(resource.Type) && resource.DeletionPolicy === 'Retain')
        .map(([id, resource]) => ({ where: `${name} ${id}`, name: resource.Properties[NAME_PROPERTY[resource.Type as (typeof STATEFUL_TYPES)[number]]] })),
    );
    expect(retained.length).toBeGreaterThan(30);
    // A name made from what a creation makes (the API's id, in its execution logs') differs with each creation; a written one would be refused as existing.
    for (const { where, name } of retained) expect(typeof name, where).not.toBe('string');
  });

  it('are all in the data stack, but the logs of the functions and the API, and the demo provider beside the demo API', () => {
    for (const [stackName, byType] of Object.entries(actual)) {
      if (stackName.endsWith('-data')) continue;
      const kept = Object.entries(byType).flatMap(([type, ids]) => (type === 'AWS::Logs::LogGroup' ? [] : ids));
      expect(
        kept.filter((id) => !id.startsWith('DemoProvider')),
        stackName,
      ).toEqual([]);
    }
  });
});
