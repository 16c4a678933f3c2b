/**
 * The CDK app: one GatewayStack per stage.
 *
 *   npx cdk synth                                   both stages
 *   npx cdk deploy PaymentGateway-demo -c stage=demo
 *   npx cdk deploy PaymentGateway-prod -c stage=prod -c publicBaseUrl=https://pay.example.com \
 *     --parameters WalletEvmXpub=xpub... --parameters WalletBtcXpub=xpub... --parameters WalletTronXpub=xpub...
 *
 * `publicBaseUrl` is where the hosted checkout is served when the stage sits behind a custom domain;
 * without it invoice links point at the API's own execute-api URL.
 */
import { App } from 'aws-cdk-lib';
import { STAGES, type Stage } from '../../shared/routes.js';
import { GatewayStack, gatewayStackName } from './gateway-stack.js';

function stagesFromContext(value: unknown): readonly Stage[] {
  if (value === undefined) return STAGES;
  if (!STAGES.includes(value as Stage)) {
    throw new Error(`Context "stage" must be one of ${STAGES.join(', ')} (got ${JSON.stringify(value)}); omit it to synthesize every stage`);
  }
  return [value as Stage];
}

function publicBaseUrlFromContext(value: unknown, stages: readonly Stage[]): string | undefined {
  if (value === undefined) return undefined;
  if (stages.length !== 1) throw new Error('Context "publicBaseUrl" belongs to one deployment: pass "stage" with it');
  const url = URL.canParse(String(value)) ? new URL(String(value)) : undefined;
  if (url?.protocol !== 'https:' || url.search || url.hash) {
    throw new Error(`Context "publicBaseUrl" must be an https URL such as https://pay.example.com (got ${JSON.stringify(value)})`);
  }
  return url.href.replace(/\/+$/, '');
}

const app = new App();
const stages = stagesFromContext(app.node.tryGetContext('stage'));
const publicBaseUrl = publicBaseUrlFromContext(app.node.tryGetContext('publicBaseUrl'), stages);
for (const stage of stages) {
  new GatewayStack(app, gatewayStackName(stage), { stage, publicBaseUrl });
}
