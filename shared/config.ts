/**
 * The functions' environment, read and validated once when a container loads: a missing or bad
 * value fails the cold start, never a request. What grows with a stage (its providers, its
 * networks' tokens and node endpoints) is its configuration document in AWS, read and validated
 * here too (docs/operations.md#stage-configuration), and the environment on one machine.
 */
import * as z from 'zod';
import { CRYPTO_NETWORKS, type CryptoAssetCode, type CryptoNetwork, Decimal, decimalsOf, FIAT_METHODS, LOCAL_FIAT_CURRENCIES, PRICED_CURRENCIES, type PricedCurrency } from './domain/kernel/index.js';
import { RECONCILIATION_POLICY, type ReconciliationPolicy } from './domain/payments/index.js';
import { CURRENCY_METHODS, isProviderSecret, type ProviderRoute } from './domain/providers/index.js';
import { isTickerPair, type RatePair } from './domain/rates/index.js';
import { type AddressFamily, type Chains, defaultChains, NETWORK_EXPLORERS, type NetworkExplorers, type TokenContract, type WalletXpubs, watchedNetworks } from './domain/chains/index.js';
import { CALLBACK_TARGETS } from './outbound/address-guard.js';
import type { DeliveryGuard } from './outbound/http-delivery.js';
import { STAGES, type Stage } from './stage.js';
import { namedEverywhere, TABLE_KEYS, tableEnvVar, type TableKey } from './store/tables.js';
import { DEFAULTS } from './defaults.js';
import { DEFAULT_PAYOUT_FEES, TREASURY_FAMILIES, type TreasuryFamily } from './domain/payouts/index.js';
import { SERVICE_NAME } from './observability/catalogue.js';
import { CONNECTOR_KINDS, type ConnectorKind, DEFAULT_CONNECTOR } from './connectors/kinds.js';

const positiveNumber = (fallback: number) => z.coerce.number().positive().default(fallback);

/** JSON text parsed, for a schema that reads the value. */
const json = z.string().transform((text, ctx) => {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    ctx.addIssue({ code: 'custom', message: 'must be JSON' });
    return z.NEVER;
  }
});

const decimalText = z.string().regex(/^\d+(\.\d+)?$/);

const providerMethodSchema = z
  .strictObject({ currency: z.enum(LOCAL_FIAT_CURRENCIES), method: z.enum(FIAT_METHODS), min: decimalText, max: decimalText, step: decimalText.optional() })
  .refine((m) => CURRENCY_METHODS[m.currency].includes(m.method), { message: 'is not a method of its currency (docs/merchant-guide.md#deposit-family-currency-and-method)', path: ['method'] })
  .refine((m) => new Decimal(m.min).lessThanOrEqualTo(m.max), { message: 'must not be above max', path: ['min'] });

/**
 * A payment provider of the stage (docs/provider-protocol.md#signatures): where it is, how it signs, which methods it
 * serves. Its secret is given here on one machine; in AWS only the ARN of the Secrets Manager
 * secret that holds it (the secret itself is never in an environment variable).
 */
const providerSchema = z
  .strictObject({
    id: z.string().regex(/^[a-z0-9][a-z0-9-]{0,31}$/, 'must be 1 to 32 lowercase letters, digits or dashes'),
    /** How it is reached: which connector (shared/connectors/kinds.ts). */
    kind: z.enum(CONNECTOR_KINDS).default(DEFAULT_CONNECTOR),
    name: z.string().min(1).max(64).optional(),
    url: z.url({ protocol: /^https?$/ }).transform((url) => url.replace(/\/+$/, '')),
    secret: z.string().refine(isProviderSecret, 'must be the base64 of at least 24 bytes, with or without whsec_ in front').optional(),
    secretArn: z
      .string()
      .regex(/^arn:aws[\w-]*:secretsmanager:/, 'must be a Secrets Manager ARN')
      .optional(),
    priority: z.int().min(0).max(1000),
    methods: z.array(providerMethodSchema).min(1),
  })
  .refine((p) => (p.secret === undefined) !== (p.secretArn === undefined), { message: 'needs exactly one of secret and secretArn', path: ['secret'] });

/** The stage's providers, ids unique. */
const providerListSchema = z.array(providerSchema).refine((list) => new Set(list.map((p) => p.id)).size === list.length, 'provider ids must be unique');

/** `GATEWAY_PROVIDERS`: the providers as JSON. */
const providersSchema = json.pipe(providerListSchema).optional();

const tickerSymbol = z.string().regex(/^[A-Z0-9]{2,30}$/, 'must be a ticker symbol such as BTCUSDT');

/**
 * How each currency is priced live (docs/operations.md#exchange-rates): a ticker symbol whose price is its USD
 * price, the inverse of one, or a fixed USD price, e.g.
 * `{"BTC":"BTCUSDT","TRY":{"symbol":"USDTTRY","inverse":true},"USDT":{"fixed":"1"}}`. USD is the unit.
 */
const ratePairsSchema = json
  .pipe(
    z.partialRecord(
      z.enum(PRICED_CURRENCIES.filter((code) => code !== 'USD')),
      z.union([
        tickerSymbol.transform((symbol): RatePair => ({ symbol, inverse: false })),
        z.strictObject({ symbol: tickerSymbol, inverse: z.boolean() }),
        z.strictObject({ fixed: decimalText.refine((text) => /[1-9]/.test(text), 'must be positive') }),
      ]),
    ),
  )
  .refine((pairs) => Object.values(pairs).some((pair) => pair && isTickerPair(pair)), 'must price at least one currency from a ticker symbol')
  .optional();

const evmAddress = z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'must be a 0x address');
const tronAddress = z.string().regex(/^T[1-9A-HJ-NP-Za-km-z]{33}$/, 'must be a base58check T… address');

/** `{"USDT":"0x…","USDC":{"address":"0x…","decimals":18}}`: a bare address has its asset's usual decimals on that network. */
const tokenContractsSchema = (address: z.ZodString) => z.partialRecord(z.enum(['USDT', 'USDC']), z.union([address, z.strictObject({ address, decimals: z.number().int().min(0).max(36) })]));

/** The networks that carry tokens, each with the address form of its family. */
const TOKEN_NETWORKS: readonly CryptoNetwork[] = CRYPTO_NETWORKS.filter((network) => network !== 'bitcoin');
const tokenAddressOf = (network: CryptoNetwork): z.ZodString => (network === 'tron' ? tronAddress : evmAddress);

/**
 * The endpoints of `GATEWAY_RPC_{NETWORK}`, in order of preference: URLs separated by commas or
 * whitespace. Neither can stand unescaped in a URL that needs it (a password, a key): it is written
 * percent-encoded there (`%2C`, `%20`), as URL syntax asks of any reserved character.
 */
export const rpcUrlsOf = (text: string): string[] => text.split(/[\s,]+/).filter(Boolean);

const httpUrl = z.url({ protocol: /^https?$/ });

/** One endpoint or several (rpcUrlsOf), each an http(s) URL, none twice; kept comma-separated. */
const rpcUrlListSchema = z.string().transform((text, ctx) => {
  const urls = rpcUrlsOf(text);
  if (urls.length === 0) ctx.addIssue({ code: 'custom', message: 'must name at least one http(s) URL' });
  urls.forEach((url, index) => {
    if (!httpUrl.safeParse(url).success) ctx.addIssue({ code: 'custom', message: `endpoint ${index + 1} must be an http(s) URL` });
  });
  if (new Set(urls).size !== urls.length) ctx.addIssue({ code: 'custom', message: 'names an endpoint twice' });
  return urls.join(',');
});

/** A block explorer's page of a transaction: an http(s) URL with `{hash}` where the transaction's hash goes. */
const explorerPageSchema = z.string().refine((text) => text.includes('{hash}') && httpUrl.safeParse(text.replace('{hash}', 'hash')).success, { error: 'must be an http(s) URL with {hash} in it' });

/**
 * Per network (docs/operations.md#watching-chains): its node's URL, or several to fail over between
 * (JSON-RPC, or Tron's HTTP API; a Bitcoin node's with its credentials), token contracts and
 * required confirmations; Tron's TronGrid-style API key, and the networks the stack watches.
 */
const chainEnvSchema = z.object({
  ...Object.fromEntries(
    CRYPTO_NETWORKS.flatMap((network) => [
      [`GATEWAY_RPC_${network.toUpperCase()}`, rpcUrlListSchema.optional()],
      ...(TOKEN_NETWORKS.includes(network) ? [[`GATEWAY_TOKENS_${network.toUpperCase()}`, json.pipe(tokenContractsSchema(tokenAddressOf(network))).optional()]] : []),
      [`GATEWAY_CONFIRMATIONS_${network.toUpperCase()}`, z.coerce.number().int().min(1).max(1000).optional()],
      [`GATEWAY_EXPLORER_${network.toUpperCase()}`, explorerPageSchema.optional()],
    ]),
  ),
  GATEWAY_API_KEY_TRON: z.string().optional(),
  /** Set by the stack, whose functions other than the watcher are not given the nodes' URLs. */
  GATEWAY_WATCHED_NETWORKS: z
    .string()
    .optional()
    .transform((text) =>
      (text ?? '')
        .split(',')
        .map((name) => name.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.enum(CRYPTO_NETWORKS))),
});

/** The variables' values as chainEnvSchema reads them. */
type ChainEnv = Record<string, unknown> & { GATEWAY_API_KEY_TRON?: string; GATEWAY_WATCHED_NETWORKS: readonly CryptoNetwork[] };

/** The gateway's payout fee of each crypto currency the document sets; the others keep DEFAULT_PAYOUT_FEES. */
const payoutFeesSchema = z.partialRecord(z.enum(Object.keys(DEFAULT_PAYOUT_FEES) as [CryptoAssetCode, ...CryptoAssetCode[]]), z.string().regex(/^\d+(\.\d+)?$/, 'must be a decimal string'));

/**
 * The stage's configuration document (docs/operations.md#stage-configuration): its providers,
 * each secret by its ARN, the token contracts replacing a network's built-in ones, the payout
 * fees and block explorers replacing the defaults, and the retired receipt keys.
 */
const stageDocumentSchema = z.strictObject({
  providers: providerListSchema,
  payoutFees: payoutFeesSchema.optional(),
  /** The block explorers the dashboard links transactions to, per network, where they are not the stage's own. */
  explorers: z.partialRecord(z.enum(CRYPTO_NETWORKS), explorerPageSchema).optional(),
  /** Receipt keys rotated out (KMS key ARNs), still listed in the JWKS for the receipts they signed (docs/operations.md#receipt-keys). */
  retiredReceiptKeys: z.array(z.string().min(1)).optional(),
  tokens: z.strictObject(Object.fromEntries(TOKEN_NETWORKS.map((network) => [network, tokenContractsSchema(tokenAddressOf(network)).optional()]))),
});

/** What the chain watcher alone reads beside it: each watched network's node endpoints, and Tron's API key (empty when there is none). */
const chainEndpointsSchema = z.strictObject({
  rpc: z.partialRecord(z.enum(CRYPTO_NETWORKS), rpcUrlListSchema),
  tronApiKey: z.string(),
});

export type StageDocument = z.input<typeof stageDocumentSchema>;
export type ChainEndpointsDocument = z.input<typeof chainEndpointsSchema>;

const envSchema = z.object({
  STAGE: z.enum(STAGES),
  /** Origin the hosted checkout is served from; invoice links are `{PUBLIC_BASE_URL}/checkout/{id}`. */
  PUBLIC_BASE_URL: z.url().transform((url) => url.replace(/\/+$/, '')),
  GATEWAY_INVOICE_LIFETIME_S: positiveNumber(DEFAULTS.invoiceLifetimeSeconds),
  GATEWAY_PROVIDERS: providersSchema,
  /**
   * AWS: the SSM parameters holding the stage's configuration document and, for the chain watcher,
   * its networks' endpoints (docs/operations.md#stage-configuration); given only to the functions
   * that read them. One machine: the environment's own variables stand for both.
   */
  GATEWAY_STAGE_CONFIGURATION_PARAMETER: z.string().min(1).optional(),
  GATEWAY_CHAIN_ENDPOINTS_PARAMETER: z.string().min(1).optional(),
  /** How long a provider's decision is awaited before the reconciliation asks for it (docs/provider-protocol.md: 10 minutes; tests shorten it). */
  GATEWAY_RECONCILE_AFTER_S: positiveNumber(RECONCILIATION_POLICY.askAfterSeconds),
  GATEWAY_RETRY_SCALE: positiveNumber(DEFAULTS.callbackRetryScale),
  GATEWAY_SECRET_OVERLAP_S: positiveNumber(DEFAULTS.callbackSecretOverlapSeconds),
  /** How often a chain watcher's invocation reads its network (docs/operations.md#watching-chains). */
  GATEWAY_CHAIN_POLL_S: positiveNumber(DEFAULTS.chainPollSeconds),
  GATEWAY_PAYOUT_STUCK_S: positiveNumber(DEFAULTS.payoutStuckSeconds),
  /** One machine: the directory of the treasury's key files. In AWS the treasury's keys are the stage's KMS keys, by their aliases. */
  GATEWAY_TREASURY_DIR: z.string().min(1).optional(),
  /** One machine: the directory of the transaction receipts' key files. In AWS the receipt key is the stage's KMS key, by its alias. */
  GATEWAY_RECEIPT_KEY_DIR: z.string().min(1).optional(),
  /**
   * Which addresses callbacks may reach: `public` (the default, every deployed stage) or `any`,
   * which only the local runtime sets, so that a merchant's receiver on the same machine is reached.
   */
  GATEWAY_CALLBACK_TARGETS: z.enum(CALLBACK_TARGETS).default('public'),
  CALLBACK_QUEUE_URL: z.url(),
  /** Only the callback sender, which parks a callback there itself once its retries are spent. */
  CALLBACK_DLQ_URL: z.url().optional(),
  /** The vault's master key: a KMS key in AWS, a key file on one machine. */
  VAULT_KMS_KEY_ID: z.string().min(1).optional(),
  GATEWAY_KEY_FILE: z.string().min(1).optional(),
  /** Where receipts are kept: an S3 bucket in AWS, a directory on one machine. */
  RECEIPTS_BUCKET: z.string().min(1).optional(),
  GATEWAY_RECEIPTS_DIR: z.string().min(1).optional(),
  /** Reports: the builder's queue; where files are kept, an S3 bucket in AWS, a directory on one machine. */
  REPORT_QUEUE_URL: z.url().optional(),
  /** The payout senders' FIFO queue; the functions that hand payouts over require it. */
  PAYOUT_QUEUE_URL: z.url().optional(),
  REPORTS_BUCKET: z.string().min(1).optional(),
  GATEWAY_REPORTS_DIR: z.string().min(1).optional(),
  /**
   * Account-level extended public keys: m/44'/60'/0' (EVM), m/84'/0'/0' (BTC), m/44'/195'/0' (TRON).
   * One machine: the keys themselves, parsed by the functions that use them, on first use.
   */
  WALLET_EVM_XPUB: z.string().min(1).optional(),
  WALLET_BTC_XPUB: z.string().min(1).optional(),
  WALLET_TRON_XPUB: z.string().min(1).optional(),
  /** AWS: the names of the SSM parameters holding them, given only to the functions that read them. */
  WALLET_EVM_XPUB_PARAMETER: z.string().min(1).optional(),
  WALLET_BTC_XPUB_PARAMETER: z.string().min(1).optional(),
  WALLET_TRON_XPUB_PARAMETER: z.string().min(1).optional(),
  /**
   * Where the functions that issue and revoke API keys (`managesApiKeys`) register them for the
   * per-key throttle. AWS: the name of the SSM parameter holding the stage's usage plan id (the id
   * itself cannot be in a function's environment: the plan is made after the API's deployment,
   * which needs the route functions first). One machine: `local`, whose gateway keeps no list.
   */
  API_KEY_USAGE_PLAN_PARAMETER: z.string().min(1).optional(),
  GATEWAY_API_KEY_REGISTRY: z.literal('local').optional(),
  // A table `namedWhereGranted` is named only to the functions granted it.
  ...Object.fromEntries(TABLE_KEYS.map((key) => [tableEnvVar(key), namedEverywhere(key) ? z.string().min(1) : z.string().min(1).optional()])),
});

const ratesEnvSchema = z
  .object({
    /** A ticker to price currencies live from (with GATEWAY_RATE_PAIRS); without it, the fixed demo table. */
    GATEWAY_RATES_URL: z.url({ protocol: /^https?$/ }).optional(),
    GATEWAY_RATE_PAIRS: ratePairsSchema,
    /** A live price older than this is not used for a new invoice. */
    GATEWAY_RATE_MAX_AGE_S: positiveNumber(300),
  })
  .superRefine((e, ctx) => {
    if ((e.GATEWAY_RATES_URL === undefined) !== (e.GATEWAY_RATE_PAIRS === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['GATEWAY_RATE_PAIRS'], message: 'GATEWAY_RATES_URL and GATEWAY_RATE_PAIRS go together' });
    }
  });

/** One message naming every problem, as a cold start reports it. */
function invalidEnvironment(issues: readonly z.core.$ZodIssue[]): Error {
  return new Error(`Invalid environment: ${issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
}

/** Where exchange rates come from: the fixed demo table, or a ticker whose prices the fetch-rates schedule stores. */
export type RatesConfig = { kind: 'static' } | { kind: 'live'; url: string; pairs: Partial<Record<PricedCurrency, RatePair>>; maxAgeSeconds: number };

function ratesConfig(e: z.infer<typeof ratesEnvSchema>): RatesConfig {
  if (!e.GATEWAY_RATES_URL || !e.GATEWAY_RATE_PAIRS) return { kind: 'static' };
  return { kind: 'live', url: e.GATEWAY_RATES_URL, pairs: e.GATEWAY_RATE_PAIRS, maxAgeSeconds: e.GATEWAY_RATE_MAX_AGE_S };
}

/** The rate variables alone, as the functions read them: for the stack to check what it hands them. */
export function parseRatesConfig(env: Record<string, string | undefined>): RatesConfig {
  const result = ratesEnvSchema.safeParse(env);
  if (!result.success) throw invalidEnvironment(result.error.issues);
  return ratesConfig(result.data);
}

/** Tokens, node endpoints and Tron's key laid over a network's settings, from the environment or the stage's documents. */
interface ChainsLayer {
  tokens: Partial<Record<CryptoNetwork, Partial<Record<string, string | TokenContract>>>>;
  rpc: Partial<Record<CryptoNetwork, string>>;
  tronApiKey?: string;
}

/** `chains` with `layer` laid over, each bare token address at its asset's usual decimals on that network. */
function layChains(chains: Chains, { tokens, rpc, tronApiKey }: ChainsLayer): Chains {
  const laid = structuredClone(chains);
  for (const network of CRYPTO_NETWORKS) {
    const chain = laid[network];
    const given = tokens[network];
    if (given) {
      chain.tokens = Object.fromEntries(
        Object.entries(given).map(([asset, token]) => [asset, typeof token === 'string' ? { address: token, decimals: chain.tokens[asset as CryptoAssetCode]?.decimals ?? decimalsOf(asset) } : token!]),
      );
    }
    chain.rpcUrl = rpc[network] ?? chain.rpcUrl;
    chain.watched ||= chain.rpcUrl !== undefined;
  }
  laid.tron.apiKey = tronApiKey || laid.tron.apiKey;
  return laid;
}

/** The stage's networks with this deployment's variables laid over: what it watches, the depths, and on one machine tokens and nodes too. */
function chainsOf(stage: Stage, e: ChainEnv): Chains {
  const chains = defaultChains(stage);
  for (const network of CRYPTO_NETWORKS) {
    chains[network].confirmations = (e[`GATEWAY_CONFIRMATIONS_${network.toUpperCase()}`] as number | undefined) ?? chains[network].confirmations;
    chains[network].watched = e.GATEWAY_WATCHED_NETWORKS.includes(network);
  }
  const ofNetworks = (prefix: string) =>
    Object.fromEntries(CRYPTO_NETWORKS.flatMap((network) => (e[`${prefix}${network.toUpperCase()}`] === undefined ? [] : [[network, e[`${prefix}${network.toUpperCase()}`]]])));
  return layChains(chains, { tokens: ofNetworks('GATEWAY_TOKENS_'), rpc: ofNetworks('GATEWAY_RPC_'), tronApiKey: e.GATEWAY_API_KEY_TRON });
}

/** Each network's block explorer: the stage's, unless the deployment names another. */
const explorersOf = (stage: Stage, e: ChainEnv): NetworkExplorers =>
  Object.fromEntries(CRYPTO_NETWORKS.map((network) => [network, (e[`GATEWAY_EXPLORER_${network.toUpperCase()}`] as string | undefined) ?? NETWORK_EXPLORERS[stage][network]])) as NetworkExplorers;

/** The networks' variables alone, as the functions read them. */
export function parseChainsConfig(stage: Stage, env: Record<string, string | undefined>): Chains {
  const result = chainEnvSchema.safeParse(env);
  if (!result.success) throw invalidEnvironment(result.error.issues);
  return chainsOf(stage, result.data as ChainEnv);
}

/** Where a provider's secret is read from: the configuration itself (one machine) or Secrets Manager (AWS), once per container. */
export type ProviderSecretSource = { kind: 'inline'; value: string } | { kind: 'secretsManager'; arn: string };

export interface ProviderConfig extends ProviderRoute {
  kind: ConnectorKind;
  url: string;
  secret: ProviderSecretSource;
}

const providerConfigsOf = (providers: z.output<typeof providerListSchema>): ProviderConfig[] =>
  providers.map(({ id, kind, name, url, secret, secretArn, priority, methods }) => ({
    id,
    kind,
    name: name ?? id,
    url,
    priority,
    methods,
    secret: secret !== undefined ? { kind: 'inline', value: secret } : { kind: 'secretsManager', arn: secretArn! },
  }));

/**
 * What grows with a stage (docs/operations.md#stage-configuration): its payment providers, its
 * networks with their tokens and, for the chain watcher, their node endpoints, its payout fees and
 * the block explorers its dashboard links to.
 */
export interface StageConfiguration {
  /** The stage's payment providers; none where no local-fiat method is offered. */
  providers: ProviderConfig[];
  /** Every network: chain ids and tokens for payment links, node endpoints and confirmations for the chain watchers. */
  chains: Chains;
  /** The gateway's fee of a crypto payout, per currency. */
  payoutFees: Readonly<Record<CryptoAssetCode, string>>;
  /** Where the dashboard links a transaction's hash, per network. */
  explorers: NetworkExplorers;
  /** AWS: the receipt keys rotated out, which the JWKS still lists; none until a rotation (the key files' own directory keeps them locally). */
  retiredReceiptKeys?: readonly string[];
}

/** A stage's configuration before any document or variable is laid over it: no providers, and the stage's own networks, payout fees and explorers. */
export const defaultStageConfiguration = (stage: Stage): StageConfiguration => ({
  providers: [],
  chains: defaultChains(stage),
  payoutFees: DEFAULT_PAYOUT_FEES,
  explorers: NETWORK_EXPLORERS[stage],
});

/** The stage's configuration as the environment gives it (one machine), or the SSM parameters it is read from, laid over the environment's part (AWS). */
export type StageConfigurationSource =
  | { kind: 'environment'; configuration: StageConfiguration }
  | { kind: 'parameters'; parameterNames: { configuration?: string; chainEndpoints?: string }; base: StageConfiguration };

/** Documents' problems, each with where it is in its document. */
function invalidDocument(name: string, issues: readonly z.core.$ZodIssue[]): Error {
  return new Error(`Invalid stage configuration: ${issues.map((i) => `${[name, ...i.path].join('.')}: ${i.message}`).join('; ')}`);
}

function parsedDocument<S extends z.ZodType>(name: string, schema: S, text: string): z.output<S> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new Error(`Invalid stage configuration: ${name} is not JSON`);
  }
  const result = schema.safeParse(value);
  if (!result.success) throw invalidDocument(name, result.error.issues);
  return result.data;
}

/**
 * `base` with the stage's documents laid over, as the functions read them (and the stack checks
 * what it writes): `configuration` (its providers and tokens) and, for the chain watcher,
 * `chainEndpoints`. A document not given leaves that part of `base`.
 */
export function stageConfigurationOf(base: StageConfiguration, documents: { configuration?: string; chainEndpoints?: string }): StageConfiguration {
  const document = documents.configuration === undefined ? undefined : parsedDocument('configuration', stageDocumentSchema, documents.configuration);
  const endpoints = documents.chainEndpoints === undefined ? undefined : parsedDocument('chainEndpoints', chainEndpointsSchema, documents.chainEndpoints);
  return {
    providers: document ? providerConfigsOf(document.providers) : base.providers,
    chains: layChains(base.chains, { tokens: document?.tokens ?? {}, rpc: endpoints?.rpc ?? {}, tronApiKey: endpoints?.tronApiKey }),
    payoutFees: { ...base.payoutFees, ...document?.payoutFees },
    explorers: { ...base.explorers, ...document?.explorers },
    ...(document?.retiredReceiptKeys ? { retiredReceiptKeys: document.retiredReceiptKeys } : {}),
  };
}

/** Where the wallets' extended public keys come from: the environment itself, or SSM parameters. */
export type WalletKeysConfig = { kind: 'inline'; xpubs: WalletXpubs } | { kind: 'ssm'; parameterNames: Record<AddressFamily, string> };

function walletKeysConfig(e: z.infer<typeof envSchema>): WalletKeysConfig | undefined {
  if (e.WALLET_EVM_XPUB && e.WALLET_BTC_XPUB && e.WALLET_TRON_XPUB) {
    return { kind: 'inline', xpubs: { evm: e.WALLET_EVM_XPUB, btc: e.WALLET_BTC_XPUB, tron: e.WALLET_TRON_XPUB } };
  }
  if (e.WALLET_EVM_XPUB_PARAMETER && e.WALLET_BTC_XPUB_PARAMETER && e.WALLET_TRON_XPUB_PARAMETER) {
    return { kind: 'ssm', parameterNames: { evm: e.WALLET_EVM_XPUB_PARAMETER, btc: e.WALLET_BTC_XPUB_PARAMETER, tron: e.WALLET_TRON_XPUB_PARAMETER } };
  }
  return undefined;
}

/** Where the treasury's keys are: KMS keys by id or alias in AWS, key files on one machine. */
export type TreasurySignerConfig = { kind: 'aws'; keyIds: Record<TreasuryFamily, string> } | { kind: 'local'; directory: string };

/** The aliases the stack gives the stage's treasury keys (infra/aws/gateway-data.ts), by which the functions name them. */
export const treasuryKeyAliases = (stage: Stage): Record<TreasuryFamily, string> =>
  Object.fromEntries(TREASURY_FAMILIES.map((family) => [family, `alias/${SERVICE_NAME}-${stage}-treasury-${family}`])) as Record<TreasuryFamily, string>;

/** Where the transaction receipts' key is: a KMS key by its alias in AWS (retired ones in the stage's configuration), key files on one machine. */
export type ReceiptSignerConfig = { kind: 'aws'; keyId: string } | { kind: 'local'; directory: string };

/** The alias the stack gives the stage's current receipt key (infra/aws/gateway-data.ts), by which the functions name it. */
export const receiptKeyAlias = (stage: Stage): string => `alias/${SERVICE_NAME}-${stage}-receipts`;

export type VaultKeyConfig = { kind: 'aws'; kmsKeyId: string } | { kind: 'local'; keyFile: string };
export type ReceiptsConfig = { kind: 'aws'; bucket: string } | { kind: 'local'; directory: string };
/** On one machine, report links are signed with a key derived from the vault's key file. */
export type ReportFilesConfig = { kind: 'aws'; bucket: string } | { kind: 'local'; directory: string; keyFile: string };

function vaultKeyConfig(e: { VAULT_KMS_KEY_ID?: string; GATEWAY_KEY_FILE?: string }): VaultKeyConfig | undefined {
  if (e.VAULT_KMS_KEY_ID) return { kind: 'aws', kmsKeyId: e.VAULT_KMS_KEY_ID };
  if (e.GATEWAY_KEY_FILE) return { kind: 'local', keyFile: e.GATEWAY_KEY_FILE };
  return undefined;
}

function receiptsConfig(e: { RECEIPTS_BUCKET?: string; GATEWAY_RECEIPTS_DIR?: string }): ReceiptsConfig | undefined {
  if (e.RECEIPTS_BUCKET) return { kind: 'aws', bucket: e.RECEIPTS_BUCKET };
  if (e.GATEWAY_RECEIPTS_DIR) return { kind: 'local', directory: e.GATEWAY_RECEIPTS_DIR };
  return undefined;
}

function reportFilesConfig(e: { REPORTS_BUCKET?: string; GATEWAY_REPORTS_DIR?: string; GATEWAY_KEY_FILE?: string }): ReportFilesConfig | undefined {
  if (e.REPORTS_BUCKET) return { kind: 'aws', bucket: e.REPORTS_BUCKET };
  if (e.GATEWAY_REPORTS_DIR && e.GATEWAY_KEY_FILE) return { kind: 'local', directory: e.GATEWAY_REPORTS_DIR, keyFile: e.GATEWAY_KEY_FILE };
  return undefined;
}

/**
 * The names of the function's tables: reading the name of one it was not given (a table named only
 * where granted, and not granted it) fails at once, naming the variable, rather than sending the
 * SDK a request without a table.
 */
function grantedTables(names: Partial<Record<TableKey, string>>): Record<TableKey, string> {
  return new Proxy(names as Record<TableKey, string>, {
    get(target, property, receiver) {
      if (typeof property === 'string' && (TABLE_KEYS as readonly string[]).includes(property) && !Object.hasOwn(target, property)) {
        throw new Error(`Invalid environment: ${tableEnvVar(property as TableKey)} is required`);
      }
      return Reflect.get(target, property, receiver);
    },
  });
}

/** Where new API keys are registered: the stage's usage plan, its id read from an SSM parameter (AWS), or nowhere (one machine). */
export type ApiKeyRegistryConfig = { kind: 'usagePlan'; usagePlanParameter: string } | { kind: 'local' };

function apiKeyRegistryConfig(e: { API_KEY_USAGE_PLAN_PARAMETER?: string; GATEWAY_API_KEY_REGISTRY?: 'local' }): ApiKeyRegistryConfig | undefined {
  if (e.API_KEY_USAGE_PLAN_PARAMETER) return { kind: 'usagePlan', usagePlanParameter: e.API_KEY_USAGE_PLAN_PARAMETER };
  if (e.GATEWAY_API_KEY_REGISTRY === 'local') return { kind: 'local' };
  return undefined;
}

export interface Config {
  stage: (typeof STAGES)[number];
  publicBaseUrl: string;
  invoiceLifetimeSeconds: number;
  /** Where the stage's providers and networks are read from (docs/operations.md#stage-configuration). */
  stageConfiguration: StageConfigurationSource;
  /** The networks the deployment watches: only these are offered outside the demo stage. */
  watchedNetworks: CryptoNetwork[];
  reconciliationPolicy: ReconciliationPolicy;
  retryScale: number;
  /** Seconds a rotated callback secret keeps signing beside its successor. */
  secretOverlapSeconds: number;
  /** Seconds between a chain watcher's runs within one invocation. */
  chainPollSeconds: number;
  /** Seconds a payout's transaction may wait unmined before it is replaced. */
  payoutStuckSeconds: number;
  /** The treasury's signer: a directory of key files on one machine, the stage's KMS keys in AWS. */
  treasurySigner: TreasurySignerConfig;
  receiptSigner: ReceiptSignerConfig;
  /** Where callbacks may go: https only in production, public addresses only in every deployed stage. */
  callbackGuard: DeliveryGuard;
  /** The master key of sealed secrets (card numbers, callback secrets); the functions that seal or open them require it. */
  vaultKeys?: VaultKeyConfig;
  /** Where receipts are stored; the functions that take them require it. */
  receipts?: ReceiptsConfig;
  callbackQueueUrl: string;
  callbackDlqUrl?: string;
  /** The report builder's queue; the function that asks for reports requires it. */
  reportQueueUrl?: string;
  payoutQueueUrl?: string;
  /** Where report files are kept; the functions that write them or link to them require it. */
  reportFiles?: ReportFilesConfig;
  /** Where the wallet keys are read from; the functions that derive addresses require it. */
  walletKeys?: WalletKeysConfig;
  /** Where API keys are registered for the per-key throttle; the functions that issue or revoke keys require it. */
  apiKeyRegistry?: ApiKeyRegistryConfig;
  rates: RatesConfig;
  tables: Record<TableKey, string>;
}

export function parseConfig(env: NodeJS.ProcessEnv): Config {
  const result = envSchema.safeParse(env);
  const chainResult = chainEnvSchema.safeParse(env);
  const ratesResult = ratesEnvSchema.safeParse(env);
  if (!result.success || !chainResult.success || !ratesResult.success) {
    throw invalidEnvironment([...(result.error?.issues ?? []), ...(chainResult.error?.issues ?? []), ...(ratesResult.error?.issues ?? [])]);
  }
  const e = result.data as z.infer<typeof envSchema> & Record<string, string>;
  const chains = chainsOf(e.STAGE, chainResult.data as ChainEnv);
  const fromEnvironment: StageConfiguration = {
    providers: providerConfigsOf(e.GATEWAY_PROVIDERS ?? []),
    chains,
    payoutFees: DEFAULT_PAYOUT_FEES,
    explorers: explorersOf(e.STAGE, chainResult.data as ChainEnv),
  };
  const parameterNames = { configuration: e.GATEWAY_STAGE_CONFIGURATION_PARAMETER, chainEndpoints: e.GATEWAY_CHAIN_ENDPOINTS_PARAMETER };
  return {
    stage: e.STAGE,
    publicBaseUrl: e.PUBLIC_BASE_URL,
    invoiceLifetimeSeconds: e.GATEWAY_INVOICE_LIFETIME_S,
    stageConfiguration:
      parameterNames.configuration || parameterNames.chainEndpoints ? { kind: 'parameters', parameterNames, base: fromEnvironment } : { kind: 'environment', configuration: fromEnvironment },
    watchedNetworks: watchedNetworks(chains),
    reconciliationPolicy: {
      ...RECONCILIATION_POLICY,
      askAfterSeconds: e.GATEWAY_RECONCILE_AFTER_S,
      resendAfterSeconds: Math.min(RECONCILIATION_POLICY.resendAfterSeconds, e.GATEWAY_RECONCILE_AFTER_S),
    },
    retryScale: e.GATEWAY_RETRY_SCALE,
    secretOverlapSeconds: e.GATEWAY_SECRET_OVERLAP_S,
    chainPollSeconds: e.GATEWAY_CHAIN_POLL_S,
    payoutStuckSeconds: e.GATEWAY_PAYOUT_STUCK_S,
    receiptSigner: e.GATEWAY_RECEIPT_KEY_DIR ? { kind: 'local', directory: e.GATEWAY_RECEIPT_KEY_DIR } : { kind: 'aws', keyId: receiptKeyAlias(e.STAGE) },
    treasurySigner: e.GATEWAY_TREASURY_DIR ? { kind: 'local', directory: e.GATEWAY_TREASURY_DIR } : { kind: 'aws', keyIds: treasuryKeyAliases(e.STAGE) },
    callbackGuard: { httpsOnly: e.STAGE === 'prod', targets: e.GATEWAY_CALLBACK_TARGETS },
    vaultKeys: vaultKeyConfig(e),
    receipts: receiptsConfig(e),
    callbackQueueUrl: e.CALLBACK_QUEUE_URL,
    callbackDlqUrl: e.CALLBACK_DLQ_URL,
    reportQueueUrl: e.REPORT_QUEUE_URL,
    payoutQueueUrl: e.PAYOUT_QUEUE_URL,
    reportFiles: reportFilesConfig(e),
    walletKeys: walletKeysConfig(e),
    apiKeyRegistry: apiKeyRegistryConfig(e),
    rates: ratesConfig(ratesResult.data),
    tables: grantedTables(Object.fromEntries(TABLE_KEYS.flatMap((key) => (e[tableEnvVar(key)] ? [[key, e[tableEnvVar(key)]]] : [])))),
  };
}

let loaded: Config | undefined;

/** The container's config, parsed on first use (module load of the function that needs it). */
export function config(): Config {
  loaded ??= parseConfig(process.env);
  return loaded;
}
