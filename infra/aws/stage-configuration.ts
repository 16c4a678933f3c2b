/**
 * What grows with a stage, out of the functions' environment (docs/operations.md#stage-configuration):
 * its configuration document, the providers (each secret by its ARN) and the token contracts of
 * its watched networks, and beside it the chain watcher's document of the networks' node
 * endpoints. Each is an SSM parameter the functions that read it are given the name of, and read
 * when their container loads and every few minutes after (shared/stage-configuration.ts). Lambda
 * holds 4 KB of environment a function; a parameter holds 8 KB.
 */
import { CfnParameter, Stack, Token, type CfnParameterProps } from 'aws-cdk-lib';
import { ParameterTier, StringParameter } from 'aws-cdk-lib/aws-ssm';
import type { Construct } from 'constructs';
import { defaultStageConfiguration, stageConfigurationOf, type ChainEndpointsDocument, type StageDocument } from '../../shared/config.js';
import type { CryptoNetwork } from '../../shared/domain/kernel/index.js';
import { type AddressFamily, NETWORK_ADDRESS_FAMILY } from '../../shared/domain/chains/index.js';
import type { Stage } from '../../shared/stage.js';
import { chainEndpointsParameterName, pascalCase, stageConfigurationParameterName } from './construct-ids.js';
import type { ProviderWithSecret } from './payment-providers.js';

/** SSM's advanced tier: the most a parameter's value holds, in bytes (4,096 in the standard tier). */
export const PARAMETER_VALUE_BYTES = 8192;

/** A network's token contracts as the `watchTokens` context gives them. */
export type NetworkTokens = Partial<Record<'USDT' | 'USDC', string>>;

/** The networks a stage watches, each with the token contracts replacing the stage's built-in ones, if given. */
export type WatchedNetworks = Partial<Record<CryptoNetwork, { tokens?: NetworkTokens }>>;

/**
 * What is known only at deployment, at the longest it comes to: a secret's ARN (region, account,
 * and the name CloudFormation gives it, up to 64 characters), and the demo provider's address on
 * the API's execute-api URL.
 */
const LONGEST_SECRET_ARN = `arn:aws:secretsmanager:ap-southeast-2:123456789012:secret:${'N'.repeat(64)}-AbCdEf`;
const LONGEST_URL = `https://abcdefghij.execute-api.ap-southeast-2.amazonaws.com.cn/demo/${'p'.repeat(13)}`;

export interface StageConfigurationParameterProps {
  stage: Stage;
  /** The stage's providers, each with its secret; the demo provider first in demo. */
  providers: readonly ProviderWithSecret[];
  watchedNetworks: WatchedNetworks;
  /** The gateway's payout fee per currency where it is not the default's. */
  payoutFees?: StageDocument['payoutFees'];
  /** The block explorers the dashboard links to where they are not the stage's own. */
  explorers?: StageDocument['explorers'];
  /** Receipt keys rotated out, by ARN: the JWKS lists them beside the current one. */
  retiredReceiptKeys?: readonly string[];
}

/**
 * The stage's configuration document, checked at synthesis as the functions check it at cold start,
 * with what is known only at deployment standing at its longest: a stage whose document would not
 * fit a parameter fails here, not halfway through its deployment.
 */
export function stageConfigurationParameter(
  scope: Construct,
  id: string,
  { stage, providers, watchedNetworks, payoutFees, explorers, retiredReceiptKeys }: StageConfigurationParameterProps,
): StringParameter {
  const tokens = Object.fromEntries(Object.entries(watchedNetworks).flatMap(([network, { tokens: given } = {}]) => (given ? [[network, given]] : [])));
  const documentWith = (secretArn: (entry: ProviderWithSecret) => string, url: (entry: ProviderWithSecret) => string): StageDocument => ({
    providers: providers.map((entry) => ({ ...entry.provider, methods: [...entry.provider.methods], url: url(entry), secretArn: secretArn(entry) })),
    tokens,
    ...(payoutFees ? { payoutFees } : {}),
    ...(explorers ? { explorers } : {}),
    ...(retiredReceiptKeys?.length ? { retiredReceiptKeys: [...retiredReceiptKeys] } : {}),
  });
  const longest = JSON.stringify(
    documentWith(
      () => LONGEST_SECRET_ARN,
      ({ provider }) => (Token.isUnresolved(provider.url) ? LONGEST_URL : provider.url),
    ),
  );
  stageConfigurationOf(defaultStageConfiguration(stage), { configuration: longest });
  const bytes = Buffer.byteLength(longest);
  if (bytes > PARAMETER_VALUE_BYTES) {
    throw new Error(
      `The stage's configuration document may take ${bytes} bytes, over the ${PARAMETER_VALUE_BYTES} an SSM parameter holds: ` +
        'fewer providers or methods in the providers context (docs/operations.md#stage-configuration)',
    );
  }
  return new StringParameter(scope, id, {
    parameterName: stageConfigurationParameterName(stage),
    description: "The stage's payment providers, token contracts, payout fees, block explorers and retired receipt keys (docs/operations.md#stage-configuration)",
    stringValue: Stack.of(scope).toJsonString(
      documentWith(
        ({ secret }) => secret.secretArn,
        ({ provider }) => provider.url,
      ),
    ),
    // Standard (free) while it fits 4 KB, advanced beyond: SSM chooses as the value is written.
    tier: ParameterTier.INTELLIGENT_TIERING,
  });
}

/** How each family's node is reached, for its parameter's description. */
const NODE_URL_DESCRIPTIONS: Record<AddressFamily, string> = {
  evm: 'JSON-RPC URL of the NETWORK node the chain watcher reads (for the demo stage, its test network)',
  btc: "Bitcoin Core JSON-RPC URL the chain watcher reads, with the node's credentials (https://user:password@host:8332; for the demo stage, a testnet or signet node)",
  tron: 'Tron full-node HTTP API URL the chain watcher reads (https://api.trongrid.io; for the demo stage, Nile: https://nile.trongrid.io)',
};

const SEVERAL_ENDPOINTS = 'or several, separated by commas, in order of preference: the watcher skips one that fails, is slow or lags for the next (a comma inside a URL written %2C)';

/**
 * One http(s) URL or several, separated by commas or whitespace (shared/config.ts rpcUrlsOf checks
 * each as the watcher reads it). No quote or backslash: URL syntax writes them percent-encoded,
 * and the value stands inside the watcher's JSON document as it is.
 */
export const RPC_URLS_PATTERN = '^\\s*https?://[^\\s,"\\\\]+([\\s,]+https?://[^\\s,"\\\\]+)*[\\s,]*$';

/**
 * The chain watcher's document of the watched networks' endpoints (docs/operations.md#watching-chains),
 * from a NoEcho parameter per network (`ChainRpc{Network}`: a node's URL often carries a
 * provider's key, a Bitcoin node's its credentials) and Tron's API key beside its URL
 * (`ChainApiKeyTron`), written to an SSM parameter only the watcher reads.
 */
export function chainEndpointsParameter(scope: Construct, stage: Stage, networks: readonly CryptoNetwork[]): StringParameter {
  const parameter = (id: string, props: CfnParameterProps) => new CfnParameter(scope, id, { type: 'String', noEcho: true, ...props }).valueAsString;
  const document: ChainEndpointsDocument = {
    rpc: Object.fromEntries(
      networks.map((network) => [
        network,
        parameter(`ChainRpc${pascalCase(network)}`, {
          description: `${NODE_URL_DESCRIPTIONS[NETWORK_ADDRESS_FAMILY[network]].replace('NETWORK', network)}; ${SEVERAL_ENDPOINTS}`,
          allowedPattern: RPC_URLS_PATTERN,
          constraintDescription: 'must be an http(s) URL, or several separated by commas',
        }),
      ]),
    ),
    tronApiKey: networks.includes('tron')
      ? parameter('ChainApiKeyTron', { description: "TronGrid's TRON-PRO-API-KEY for the Tron node, if it asks for one", default: '', allowedPattern: '^[^"\\\\]*$' })
      : '',
  };
  return new StringParameter(scope, 'ChainEndpointsParameter', {
    parameterName: chainEndpointsParameterName(stage),
    description: "The watched networks' node endpoints, which the chain watcher alone reads (docs/operations.md#watching-chains)",
    stringValue: Stack.of(scope).toJsonString(document),
    tier: ParameterTier.INTELLIGENT_TIERING,
  });
}
