import { readFileSync } from 'node:fs';
import { App } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { GatewayStack, gatewayStackName } from './infra/aws/gateway-stack.js';
import { STAGES } from './shared/routes.js';
const { context } = JSON.parse(readFileSync('/work/wt-14/cdk.json', 'utf8'));
const app = new App({ context: { ...context, 'aws:cdk:bundling-stacks': [] } });
for (const stage of STAGES) {
  const stack = new GatewayStack(app, gatewayStackName(stage), { stage });
  for (const pack of [new AwsSolutionsChecks(), new ServerlessChecks()]) {
    const report = pack.validateScope(stack);
    let n = 0;
    for (const v of report.violations) {
      n += v.violatingResources.length;
      console.log(stage, v.severity, v.ruleName, v.violatingResources.length, v.violatingResources.slice(0, 3).map((r) => r.constructPath.replace(/^PaymentGateway-\w+\//, '')).join(' | '), '::', v.description.slice(0, 100));
    }
    console.log(stage, pack.readPackName, 'total', n);
  }
}
