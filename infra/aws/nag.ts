/**
 * cdk-nag's AwsSolutions and Serverless checks over every stack of the app. A finding that is not
 * fixed is acknowledged on the construct it concerns, next to where that construct is made, with
 * the reason it stands; `cdk synth` fails on any other.
 */
import { Validations, type Stage } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks, type NagPack } from 'cdk-nag';
import type { IConstruct } from 'constructs';

/** The packs the stacks are held to. */
export const nagPacks = (): NagPack[] => [new AwsSolutionsChecks(), new ServerlessChecks()];

/** Runs the packs whenever the app (or stage) is synthesized. */
export function addNagChecks(app: Stage): void {
  Validations.of(app).addPlugins(...nagPacks());
}

/** Acknowledges findings (rule ids, with `[finding]` where a rule reports several) on a construct and its children, for one reason. */
export function acknowledge(scope: IConstruct, ruleIds: readonly string[], reason: string): void {
  for (const id of ruleIds) Validations.of(scope).acknowledge({ id, reason });
}
