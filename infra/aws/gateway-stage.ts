/**
 * One deployment of the gateway (a stage), as stacks of one concern each, stateful apart from
 * stateless (docs/operations.md#what-a-stage-is-made-of): `data` (tables, queues, the vault key,
 * the buckets, the secrets), `api` (the REST API and its protection, the routes' functions in a
 * nested stack, the stage's configuration document), `jobs` (the schedules and the queue
 * consumers) and `monitoring` (the alarms and the dashboard), each far from CloudFormation's
 * limits. Every function comes from the route table (shared/routes.ts) and every table from the
 * table definitions (shared/store/tables.ts): adding a route or a table there is all it takes to
 * deploy it.
 */
import { Tags, type Environment, type Stack } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { parseChainsConfig } from '../../shared/config.js';
import { DEFAULTS } from '../../shared/defaults.js';
import type { CryptoNetwork } from '../../shared/domain/kernel/index.js';
import { watchesChains, type GatewayFunction as FunctionDefinition } from '../../shared/routes.js';
import type { Stage } from '../../shared/stage.js';
import { gatewayStackName } from './construct-ids.js';
import { GatewayApiStack, type CustomDomain } from './gateway-api.js';
import { GatewayDataStack } from './gateway-data.js';
import { SERVICE_NAME } from './gateway-function.js';
import { GatewayJobsStack } from './gateway-jobs.js';
import { GatewayMonitoringStack } from './gateway-monitoring.js';
import { liveRatesEnvironment, type LiveRates } from './live-rates.js';
import type { ProviderDeployment } from './payment-providers.js';
import type { WatchedNetworks } from './stage-configuration.js';
import type { StageDocument } from '../../shared/config.js';
import { removalPolicyOf, STAGE_SETTINGS } from './stage-settings.js';

export interface GatewayStageProps {
  stage: Stage;
  /** Where the stacks go; environment-agnostic unless given. */
  env?: Environment;
  /** Origin of the hosted checkout; by default the custom domain's, else the API's execute-api URL. */
  publicBaseUrl?: string;
  /**
   * Serves the stage at its root; the execute-api endpoint is then disabled, so that every client
   * goes through the domain.
   */
  customDomain?: CustomDomain;
  /**
   * Networks the chain watcher reads (docs/operations.md#watching-chains), EVM, Bitcoin or Tron, each with token
   * contracts replacing the stage's built-in ones when given. Each gets a schedule and a
   * `ChainRpc{Network}` parameter for its node's URL (NoEcho: it often carries a provider's key, a
   * Bitcoin node's its credentials); Tron also `ChainApiKeyTron`, its API key header, if any.
   */
  watchedNetworks?: WatchedNetworks;
  /** Live exchange rates in place of the stage's (prod: Binance's public ticker; demo: the fixed table). */
  liveRates?: LiveRates;
  /**
   * The stage's payment providers (docs/operations.md#payment-providers), each with a secret the data stack makes in Secrets
   * Manager; the demo stage has the demo provider beside them, first.
   */
  providers?: readonly ProviderDeployment[];
  /** The gateway's payout fee per currency where it is not the default's (docs/operations.md#stage-configuration), in the stage's configuration document. */
  payoutFees?: StageDocument['payoutFees'];
  /** The block explorers the dashboard links to where they are not the stage's own (docs/operations.md#stage-configuration), in its configuration document. */
  explorers?: StageDocument['explorers'];
  /**
   * The stage's receipt keys (docs/operations.md#receipt-keys): which one signs (1 until the first
   * rotation) and the ARNs of those rotated out, which the JWKS keeps listing.
   */
  receiptKeys?: { generation: number; retired: readonly string[] };
}

export class GatewayStage {
  readonly data: GatewayDataStack;
  readonly api: GatewayApiStack;
  readonly jobs: GatewayJobsStack;
  readonly monitoring: GatewayMonitoringStack;

  constructor(
    scope: Construct,
    { stage, env, publicBaseUrl, customDomain, watchedNetworks = {}, liveRates = STAGE_SETTINGS[stage].liveRates, providers = [], payoutFees, explorers, receiptKeys }: GatewayStageProps,
  ) {
    const settings = STAGE_SETTINGS[stage];
    const networks = Object.keys(watchedNetworks) as CryptoNetwork[];
    const stackName = (concern: Parameters<typeof gatewayStackName>[1]) => gatewayStackName(stage, concern);
    this.data = new GatewayDataStack(scope, stackName('data'), { env, stage, settings, partners: providers, receiptKeyGeneration: receiptKeys?.generation });

    // What every function is given but its public URL, which the API makes, and where the stage's configuration is.
    const environment: Record<string, string> = {
      STAGE: stage,
      GATEWAY_INVOICE_LIFETIME_S: String(DEFAULTS.invoiceLifetimeSeconds),
      GATEWAY_RETRY_SCALE: String(DEFAULTS.callbackRetryScale),
      GATEWAY_SECRET_OVERLAP_S: String(DEFAULTS.callbackSecretOverlapSeconds),
      ...liveRatesEnvironment(liveRates),
      ...watchedNetworksEnvironment(stage, networks),
    };
    const functionProps = (definition: FunctionDefinition) => ({
      stage,
      definition,
      // How often to read the chain, only where it is read.
      environment: watchesChains(definition) ? { ...environment, GATEWAY_CHAIN_POLL_S: String(DEFAULTS.chainPollSeconds) } : environment,
      tables: this.data.tables,
      queues: this.data.queues,
      vault: this.data.vault,
      walletKeys: this.data.walletKeys,
      reportFiles: this.data.reportFiles?.bucket,
      logRetention: settings.logRetention,
      removalPolicy: removalPolicyOf(settings),
      watchedNetworks: networks.length,
    });
    this.api = new GatewayApiStack(scope, stackName('api'), {
      env,
      stage,
      settings,
      data: this.data,
      publicBaseUrl,
      customDomain,
      watchedNetworks,
      payoutFees,
      explorers,
      retiredReceiptKeys: receiptKeys?.retired,
      functionProps,
    });
    this.jobs = new GatewayJobsStack(scope, stackName('jobs'), {
      env,
      stage,
      settings,
      api: this.api,
      watchedNetworks: networks,
      chainPollSeconds: DEFAULTS.chainPollSeconds,
      liveRates: liveRates !== undefined,
      functionProps,
    });
    this.monitoring = new GatewayMonitoringStack(scope, stackName('monitoring'), {
      env,
      stage,
      protectData: settings.protectData,
      api: this.api.api.restApi,
      functions: [...this.api.functions, ...this.jobs.functions],
      queues: this.data.queues,
      webAcl: this.api.routes.webAcl,
      liveRates,
      watchedNetworks: networks,
      demoProvider: this.api.demoProvider,
    });
    for (const stack of this.stacks) {
      Tags.of(stack).add('service', SERVICE_NAME);
      Tags.of(stack).add('stage', stage);
    }
  }

  /** The stage's stacks, in the order they deploy. */
  get stacks(): Stack[] {
    return [this.data, this.api, this.jobs, this.monitoring];
  }
}

/**
 * Which networks the stage watches, which every function knows (the functions that hand out
 * addresses offer only those): a few names, where their tokens and endpoints, which grow, are the
 * stage's configuration (stage-configuration.ts). Checked as the functions will read it.
 */
function watchedNetworksEnvironment(stage: Stage, networks: readonly CryptoNetwork[]): Record<string, string> {
  if (networks.length === 0) return {};
  const environment = { GATEWAY_WATCHED_NETWORKS: networks.join(',') };
  parseChainsConfig(stage, environment);
  return environment;
}
