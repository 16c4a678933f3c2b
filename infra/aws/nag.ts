/**
 * cdk-nag's AwsSolutions and Serverless checks over every stack of the app. A finding that is not
 * fixed is acknowledged on the construct it concerns, next to where that construct is made, with
 * the reason it stands; `cdk synth` fails on any other.
 */
import { Validations, type CfnResource, type Stage } from 'aws-cdk-lib';
import type { Policy } from 'aws-cdk-lib/aws-iam';
import { AwsSolutionsChecks, rules, ServerlessChecks, type NagPack } from 'cdk-nag';
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

/**
 * Acknowledges the wildcard resources (AwsSolutions-IAM5) of a policy that holds one grant on a
 * resource of another stack. cdk-nag names such a finding by the reference to the other stack's
 * output, which exists only once the app's references are resolved: the findings are read from the
 * rule itself then, when the app validates its constructs, before the packs run.
 */
export function acknowledgeWildcardResourcesOf(policy: Policy, reason: string): void {
  policy.node.addValidation({
    validate: () => {
      const findings = rules.iam.IAMNoWildcardPermissions(policy.node.defaultChild as CfnResource);
      const resources = Array.isArray(findings) ? findings.filter((finding) => finding.startsWith('Resource::')) : [];
      acknowledge(
        policy,
        resources.map((finding) => `AwsSolutions-IAM5[${finding}]`),
        reason,
      );
      return [];
    },
  });
}
