/**
 * The CDK app: each stage as its stacks (gateway-stage.ts).
 *
 *   npx cdk synth                                   both stages, each as its stacks
 *   npx cdk deploy --all -c stage=demo --parameters PaymentGateway-demo-monitoring:AlarmEmail=oncall@example.com
 *   npx cdk deploy --all -c stage=prod -c watchNetworks=ethereum,bitcoin,tron \
 *     -c domainName=pay.example.com -c certificateArn=arn:aws:acm:eu-west-1:123456789012:certificate/... \
 *     --parameters PaymentGateway-prod-monitoring:AlarmEmail=oncall@example.com \
 *     --parameters PaymentGateway-prod-data:WalletEvmXpub=xpub... (and WalletBtcXpub, WalletTronXpub) \
 *     --parameters PaymentGateway-prod-jobs:ChainRpcEthereum=https://... (and ChainRpcBitcoin, ChainRpcTron)
 *
 * Each parameter belongs to one stack of the stage (docs/operations.md#parameters), which
 * `--parameters` names before it.
 *
 * `watchNetworks=ethereum,polygon,bitcoin,tron` runs the chain watcher on those networks, each with a
 * `ChainRpc{Network}` parameter of the jobs stack for its node's URL (`ChainRpcEthereum=https://...`,
 * `ChainRpcBitcoin=https://user:password@host:8332`, `ChainRpcTron=https://api.trongrid.io` and
 * `ChainApiKeyTron=...`); `watchTokens='{"ethereum":{"USDT":"0x..."},"tron":{"USDT":"T..."}}'`
 * replaces the stage's built-in token contracts where given. Crypto invoices are offered on the
 * watched networks only (in demo, on every network: the simulation API pays on any).
 *
 * `ratesUrl`, `ratePairs` and `rateMaxAgeSeconds` price currencies live (see live-rates.ts): each
 * laid over prod's defaults (`ratePairs='{"INR":"USDTINR"}'` adds a pair), and given to demo,
 * whose default is the fixed table, they make it live too.
 *
 * `domainName` with `certificateArn` serves the stage from that custom domain (TLS 1.2 at least;
 * the execute-api endpoint is then disabled), and invoice links point there. `publicBaseUrl` sets
 * the origin of invoice links explicitly (something else in front of the API); without either,
 * links point at the API's own execute-api URL.
 *
 * `providers` lists the stage's payment providers (docs/operations.md#payment-providers) as JSON, each
 * `{ id, name?, url, priority, methods: [{ currency, method, min, max, step? }] }` without its secret:
 * the data stack makes a Secrets Manager secret per provider (its ARN the output
 * `ProviderSecret{Id}`), to share with the partner. The demo stage has the demo provider besides.
 * Providers and token contracts reach the functions through the stage's configuration document
 * (docs/operations.md#stage-configuration), not their environment.
 *
 * cdk-nag's AwsSolutions and Serverless checks run over every stack: synthesis fails on a finding
 * that is neither fixed nor acknowledged with its reason (infra/aws/nag.ts).
 */
import { App } from 'aws-cdk-lib';
import { addNagChecks } from './nag.js';
import { addStages } from './stages.js';

const app = new App();
addNagChecks(app);
addStages(app);
