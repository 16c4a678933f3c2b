/**
 * One deployment of the gateway (a stage). Every function comes from the route table
 * (shared/routes.ts) and every table from the table definitions (shared/store/tables.ts): adding a
 * route or a table there is all it takes to deploy it.
 *
 * The stack composes parts of one concern each: what it keeps (gateway-data.ts), its queues
 * (gateway-queues.ts), the API and its protection (gateway-api.ts), the payment providers and the
 * functions (here), their schedules (gateway-schedules.ts) and what operators watch
 * (gateway-monitoring.ts).
 */
import { CfnOutput, CfnParameter, RemovalPolicy, Stack, Tags, type CfnParameterProps, type StackProps } from 'aws-cdk-lib';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { DEFAULTS } from '../../shared/defaults.js';
import { parseChainsConfig } from '../../shared/config.js';
import type { CryptoNetwork } from '../../shared/domain/currencies.js';
import { NETWORK_ADDRESS_FAMILY, type AddressFamily } from '../../shared/domain/wallets.js';
import { demoProviderRoute } from '../../shared/domain/providers.js';
import { functionsForStage, type HttpRoute } from '../../shared/routes.js';
import type { Stage } from '../../shared/stage.js';
import { pascalCase } from './construct-ids.js';
import { DemoProvider } from './demo-provider.js';
import { GatewayApi, GatewayRoutes, type CustomDomain } from './gateway-api.js';
import { GatewayReportFiles, GatewayTables, GatewayVault, GatewayWalletKeys } from './gateway-data.js';
import { GatewayFunction, SERVICE_NAME, usesVaultKey } from './gateway-function.js';
import { GatewayMonitoring } from './gateway-monitoring.js';
import { GatewayQueues } from './gateway-queues.js';
import { GatewaySchedules } from './gateway-schedules.js';
import { DEFAULT_LIVE_RATES, liveRatesEnvironment, type LiveRates } from './live-rates.js';
import { PaymentProviders, type ProviderDeployment } from './payment-providers.js';

export const gatewayStackName = (stage: Stage): string => `PaymentGateway-${stage}`;

interface StageSettings {
  /**
   * Tables, queues, the vault key, the buckets and the logs outlive the stack, tables refuse
   * deletion, and so does the stack.
   */
  protectData: boolean;
  logRetention: RetentionDays;
  /** Derive deposit addresses from the public test mnemonic instead of keys the operator supplies. */
  testWalletKeys: boolean;
  /** Prices from a ticker; without, the fixed demo table. */
  liveRates?: LiveRates;
}

const STAGE_SETTINGS: Record<Stage, StageSettings> = {
  prod: { protectData: true, logRetention: RetentionDays.ONE_YEAR, testWalletKeys: false, liveRates: DEFAULT_LIVE_RATES },
  demo: { protectData: false, logRetention: RetentionDays.TWO_WEEKS, testWalletKeys: true },
};

export interface GatewayStackProps extends StackProps {
  stage: Stage;
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
  watchedNetworks?: Partial<Record<CryptoNetwork, { tokens?: Partial<Record<'USDT' | 'USDC', string>> }>>;
  /** Live exchange rates in place of the stage's (prod: Binance's public ticker; demo: the fixed table). */
  liveRates?: LiveRates;
  /**
   * The stage's payment providers (docs/operations.md#payment-providers), each with a secret this stack makes in Secrets
   * Manager; the demo stage has the demo provider beside them, first.
   */
  providers?: readonly ProviderDeployment[];
}

export class GatewayStack extends Stack {
  constructor(
    scope: Construct,
    id: string,
    { stage, publicBaseUrl, customDomain, watchedNetworks = {}, liveRates = STAGE_SETTINGS[stage].liveRates, providers = [], ...stackProps }: GatewayStackProps,
  ) {
    const { protectData, logRetention, testWalletKeys } = STAGE_SETTINGS[stage];
    super(scope, id, {
      description: `Payment gateway merchant API (${stage})`,
      terminationProtection: protectData,
      ...stackProps,
    });
    Tags.of(this).add('service', SERVICE_NAME);
    Tags.of(this).add('stage', stage);
    const removalPolicy = protectData ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY;
    const networks = Object.keys(watchedNetworks) as CryptoNetwork[];

    const definitions = functionsForStage(stage);
    // The parts make their resources in this stack: a construct id of their own would change every logical id, and replace the tables, queues, key and buckets.
    const data = new GatewayTables(this, { protectData, removalPolicy });
    const messaging = new GatewayQueues(this, { stage, removalPolicy });
    // One key, one receipts bucket and one reports bucket per stack, each made only when some function of the stage needs it.
    const vault = definitions.some(usesVaultKey) ? new GatewayVault(this, { stage, protectData, removalPolicy, logRetention }) : undefined;
    const walletKeys = definitions.some((definition) => definition.readsWalletKeys) ? new GatewayWalletKeys(this, { stage, testWalletKeys }).parameters : undefined;
    const reportFiles = definitions.some((definition) => definition.reportFiles) ? new GatewayReportFiles(this, { protectData, removalPolicy, logRetention }) : undefined;
    const httpRoutes = definitions.filter((definition): definition is HttpRoute => definition.kind === 'http');
    const api = new GatewayApi(this, {
      stage,
      customDomain,
      routes: httpRoutes,
      logRetention,
      removalPolicy,
      keysIssuedByFunctions: definitions.some((definition) => definition.managesApiKeys),
    });

    const stagePublicBaseUrl = publicBaseUrl ?? api.baseUrl;
    const paymentProviders = createPaymentProviders(this, { stage, api: api.restApi, publicBaseUrl: stagePublicBaseUrl, partners: providers, logRetention, removalPolicy });
    const environment: Record<string, string> = {
      STAGE: stage,
      PUBLIC_BASE_URL: stagePublicBaseUrl,
      GATEWAY_INVOICE_LIFETIME_S: String(DEFAULTS.invoiceLifetimeSeconds),
      GATEWAY_RETRY_SCALE: String(DEFAULTS.callbackRetryScale),
      GATEWAY_SECRET_OVERLAP_S: String(DEFAULTS.callbackSecretOverlapSeconds),
      ...liveRatesEnvironment(liveRates),
      ...watchedNetworksEnvironment(stage, watchedNetworks),
    };
    const rpcEnvironment = chainRpcEnvironment(this, networks);
    const chainPollEnvironment = { GATEWAY_CHAIN_POLL_S: String(DEFAULTS.chainPollSeconds) };
    const functions = definitions.map(
      (definition) =>
        new GatewayFunction(this, pascalCase(definition.name), {
          definition,
          // The RPC URLs, and how often to read them, only where the chain is read.
          environment: definition.kind === 'schedule' && definition.perNetwork ? { ...environment, ...rpcEnvironment, ...chainPollEnvironment } : environment,
          tables: data.tables,
          queues: messaging.queues,
          vault,
          walletKeys,
          reportFiles: reportFiles?.bucket,
          apiKeyRegistration: api.apiKeyRegistration,
          providerSecrets: paymentProviders.secrets,
          providerEnvironment: paymentProviders.environment,
          logRetention,
          removalPolicy,
          watchedNetworks: networks.length,
        }),
    );

    const routes = new GatewayRoutes(this, { stage, api: api.restApi, functions });
    new GatewaySchedules(this, { functions, watchedNetworks: networks, chainPollSeconds: DEFAULTS.chainPollSeconds, liveRates: liveRates !== undefined });
    const monitoring = new GatewayMonitoring(this, { stage, api: api.restApi, functions, queues: messaging.queues, webAcl: routes.webAcl, liveRates, watchedNetworks: networks });

    // What operators, the admin CLI and redrives read from the stack.
    const outputs = { ...monitoring.outputs, ...api.outputs, ...messaging.outputs, ...vault?.outputs, ...reportFiles?.outputs, Stage: { value: stage }, PublicBaseUrl: { value: stagePublicBaseUrl, description: 'Where customers, merchants and their people reach the stage: checkout links, the dashboard and its invitations' }, ...data.outputs };
    for (const [outputId, props] of Object.entries(outputs)) new CfnOutput(this, outputId, props);
  }
}

/**
 * What every function knows of the watched networks: which they are (the functions that hand out
 * addresses offer only those) and their token contracts (the checkout's payment links name them
 * too), checked as the functions will read them.
 */
function watchedNetworksEnvironment(stage: Stage, watchedNetworks: NonNullable<GatewayStackProps['watchedNetworks']>): Record<string, string> {
  const networks = Object.keys(watchedNetworks);
  if (networks.length === 0) return {};
  const environment = {
    GATEWAY_WATCHED_NETWORKS: networks.join(','),
    ...Object.fromEntries(Object.entries(watchedNetworks).flatMap(([network, { tokens }]) => (tokens ? [[`GATEWAY_TOKENS_${network.toUpperCase()}`, JSON.stringify(tokens)]] : []))),
  };
  parseChainsConfig(stage, environment);
  return environment;
}

/** How each family's node is reached, for its parameter's description. */
const NODE_URL_DESCRIPTIONS: Record<AddressFamily, string> = {
  evm: 'JSON-RPC URL of the NETWORK node the chain watcher reads (for the demo stage, its test network)',
  btc: "Bitcoin Core JSON-RPC URL the chain watcher reads, with the node's credentials (https://user:password@host:8332; for the demo stage, a testnet or signet node)",
  tron: 'Tron full-node HTTP API URL the chain watcher reads (https://api.trongrid.io; for the demo stage, Nile: https://nile.trongrid.io)',
};

const SEVERAL_ENDPOINTS = 'or several, separated by commas, in order of preference: the watcher skips one that fails, is slow or lags for the next (a comma inside a URL written %2C)';

/** One http(s) URL or several, separated by commas or whitespace (shared/config.ts rpcUrlsOf checks each as the watcher reads it). */
export const RPC_URLS_PATTERN = '^\\s*https?://[^\\s,]+([\\s,]+https?://[^\\s,]+)*[\\s,]*$';

/** `GATEWAY_RPC_{NETWORK}` from a NoEcho parameter per watched network, and Tron's API key beside its URL. */
function chainRpcEnvironment(stack: Stack, networks: readonly CryptoNetwork[]): Record<string, string> {
  const parameter = (id: string, props: CfnParameterProps) => new CfnParameter(stack, id, { type: 'String', noEcho: true, ...props }).valueAsString;
  return Object.fromEntries(
    networks.flatMap((network) => [
      [
        `GATEWAY_RPC_${network.toUpperCase()}`,
        parameter(`ChainRpc${pascalCase(network)}`, {
          description: `${NODE_URL_DESCRIPTIONS[NETWORK_ADDRESS_FAMILY[network]].replace('NETWORK', network)}; ${SEVERAL_ENDPOINTS}`,
          allowedPattern: RPC_URLS_PATTERN,
          constraintDescription: 'must be an http(s) URL, or several separated by commas',
        }),
      ],
      ...(network === 'tron'
        ? [['GATEWAY_API_KEY_TRON', parameter('ChainApiKeyTron', { description: "TronGrid's TRON-PRO-API-KEY for the Tron node, if it asks for one", default: '' })]]
        : []),
    ]),
  );
}

interface StageProviders {
  stage: Stage;
  /** The API the demo provider is served on. */
  api: RestApi;
  publicBaseUrl: string;
  partners: readonly ProviderDeployment[];
  logRetention: RetentionDays;
  removalPolicy: RemovalPolicy;
}

/** The partners of the stage's context, and in demo the demo provider beside them (docs/operations.md#payment-providers). */
function createPaymentProviders(stack: Stack, { stage, api, publicBaseUrl, partners, logRetention, removalPolicy }: StageProviders): PaymentProviders {
  const demo =
    stage === 'demo'
      ? new DemoProvider(stack, 'DemoProvider', { api, publicBaseUrl, logRetention, removalPolicy })
      : undefined;
  if (demo) {
    new CfnOutput(stack, 'DemoProviderUrl', { value: demo.url, description: "The demo provider's base URL" });
    new CfnOutput(stack, 'DemoProviderQueueArn', { value: demo.queue.queueArn, description: "The demo provider's waiting work (redrive destination)" });
    new CfnOutput(stack, 'DemoProviderDlqArn', { value: demo.deadLetterQueue.queueArn, description: "The demo provider's jobs given up on (redrive source)" });
  }
  return new PaymentProviders(stack, 'PaymentProviders', {
    stage,
    partners,
    demo: demo && { provider: { ...demoProviderRoute(), url: demo.url }, secret: demo.secret },
    removalPolicy,
  });
}
