/**
 * The app's stages from its context (`-c name=value`, docs/operations.md#context), each checked
 * before anything is built: the CDK app (app.ts) and the templates' lint (lint-templates.ts) build
 * them alike.
 */
import type { App } from 'aws-cdk-lib';
import { STAGES, type Stage } from '../../shared/stage.js';
import { CRYPTO_NETWORKS } from '../../shared/domain/kernel/index.js';
import { parseRatesConfig } from '../../shared/config.js';
import type { CustomDomain } from './gateway-api.js';
import { GatewayStage, type GatewayStageProps } from './gateway-stage.js';
import { DEFAULT_LIVE_RATES, type LiveRates } from './live-rates.js';

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

/** Lower-case labels of letters, digits and hyphens: what API Gateway takes as a domain name. */
const HOST_NAME = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
const ACM_CERTIFICATE_ARN = /^arn:aws[a-z-]*:acm:[a-z0-9-]+:\d{12}:certificate\/[0-9a-f-]+$/;

function customDomainFromContext(domainName: unknown, certificateArn: unknown, stages: readonly Stage[]): CustomDomain | undefined {
  if (domainName === undefined && certificateArn === undefined) return undefined;
  if (stages.length !== 1) throw new Error('Context "domainName" and "certificateArn" belong to one deployment: pass "stage" with them');
  if (domainName === undefined || certificateArn === undefined) throw new Error('Context "domainName" and "certificateArn" go together: pass both or neither');
  if (typeof domainName !== 'string' || !HOST_NAME.test(domainName)) {
    throw new Error(`Context "domainName" must be a lower-case host name such as pay.example.com (got ${JSON.stringify(domainName)})`);
  }
  if (typeof certificateArn !== 'string' || !ACM_CERTIFICATE_ARN.test(certificateArn)) {
    throw new Error(`Context "certificateArn" must be the ARN of an ACM certificate in the stack's region (got ${JSON.stringify(certificateArn)})`);
  }
  return { domainName, certificateArn };
}

function watchedNetworksFromContext(networks: unknown, tokens: unknown, stages: readonly Stage[]): GatewayStageProps['watchedNetworks'] {
  if (networks === undefined && tokens === undefined) return undefined;
  if (stages.length !== 1) throw new Error('Context "watchNetworks" and "watchTokens" belong to one deployment: pass "stage" with them');
  const names = String(networks ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const unknown = names.filter((name) => !(CRYPTO_NETWORKS as readonly string[]).includes(name));
  if (names.length === 0 || unknown.length > 0) throw new Error(`Context "watchNetworks" must list networks among ${CRYPTO_NETWORKS.join(', ')} (got ${JSON.stringify(networks)})`);
  let parsed: Record<string, Record<string, unknown>> = {};
  try {
    parsed = tokens === undefined ? {} : typeof tokens === 'string' ? JSON.parse(tokens) : (tokens as typeof parsed);
  } catch {
    throw new Error('Context "watchTokens" must be JSON such as {"ethereum":{"USDT":"0x..."},"tron":{"USDT":"T..."}}');
  }
  // The contracts themselves are checked by the stack, as the functions read them.
  const unwatched = Object.keys(parsed).filter((network) => !names.includes(network));
  if (unwatched.length > 0) throw new Error(`Context "watchTokens" names ${unwatched.join(', ')}: only watched networks take token contracts`);
  return Object.fromEntries(names.map((network) => [network, parsed[network] ? { tokens: parsed[network] as Record<'USDT' | 'USDC', string> } : {}]));
}

function liveRatesFromContext(url: unknown, pairs: unknown, maxAgeSeconds: unknown, stages: readonly Stage[]): LiveRates | undefined {
  if (url === undefined && pairs === undefined && maxAgeSeconds === undefined) return undefined;
  if (stages.length !== 1) throw new Error('Context "ratesUrl", "ratePairs" and "rateMaxAgeSeconds" belong to one deployment: pass "stage" with them');
  let extraPairs: unknown = {};
  try {
    extraPairs = typeof pairs === 'string' ? JSON.parse(pairs) : (pairs ?? {});
  } catch {
    throw new Error('Context "ratePairs" must be JSON such as {"INR":"USDTINR"} or {"INR":{"symbol":"USDTINR","inverse":true}}');
  }
  try {
    const rates = parseRatesConfig({
      GATEWAY_RATES_URL: String(url ?? DEFAULT_LIVE_RATES.url),
      GATEWAY_RATE_PAIRS: JSON.stringify({ ...DEFAULT_LIVE_RATES.pairs, ...(extraPairs as object) }),
      GATEWAY_RATE_MAX_AGE_S: String(maxAgeSeconds ?? DEFAULT_LIVE_RATES.maxAgeSeconds),
    });
    return rates.kind === 'live' ? { url: rates.url, pairs: rates.pairs, maxAgeSeconds: rates.maxAgeSeconds } : undefined;
  } catch (error) {
    throw new Error(`Context "ratesUrl", "ratePairs" or "rateMaxAgeSeconds" is not usable: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function providersFromContext(value: unknown, stages: readonly Stage[]): GatewayStageProps['providers'] {
  if (value === undefined) return undefined;
  if (stages.length !== 1) throw new Error('Context "providers" belongs to one deployment: pass "stage" with it');
  try {
    const providers = typeof value === 'string' ? JSON.parse(value) : value;
    if (!Array.isArray(providers)) throw new Error('not a list');
    // The shape is checked as the functions check it, by the providers' construct.
    return providers as GatewayStageProps['providers'];
  } catch (error) {
    throw new Error(
      `Context "providers" must be a JSON list such as [{"id":"psp-one","url":"https://psp.example/gw","priority":1,"methods":[...]}]: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/** A part of the stage's configuration document given whole as a JSON object (`payoutFees`, `explorers`), for one deployment. */
function documentPartFromContext<Part>(name: string, example: string, value: unknown, stages: readonly Stage[]): Part | undefined {
  if (value === undefined) return undefined;
  if (stages.length !== 1) throw new Error(`Context "${name}" belongs to one deployment: pass "stage" with it`);
  try {
    const part = typeof value === 'string' ? JSON.parse(value) : value;
    if (part === null || typeof part !== 'object' || Array.isArray(part)) throw new Error('not an object');
    // Each value is checked as the functions check it, with the stage's configuration document.
    return part as Part;
  } catch (error) {
    throw new Error(`Context "${name}" must be JSON such as ${example}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

/** `receiptKeyGeneration` (a whole number from 1) and `retiredReceiptKeys` (KMS key ARNs, comma-separated): docs/operations.md#receipt-keys. */
function receiptKeysFromContext(generation: unknown, retired: unknown, stages: readonly Stage[]): GatewayStageProps['receiptKeys'] {
  if (generation === undefined && retired === undefined) return undefined;
  if (stages.length !== 1) throw new Error('Contexts "receiptKeyGeneration" and "retiredReceiptKeys" belong to one deployment: pass "stage" with them');
  const number = generation === undefined ? 1 : Number(generation);
  if (!Number.isInteger(number) || number < 1) throw new Error(`Context "receiptKeyGeneration" must be a whole number from 1, not ${String(generation)}`);
  const arns = String(retired ?? '')
    .split(',')
    .map((arn) => arn.trim())
    .filter(Boolean);
  const invalid = arns.find((arn) => !/^arn:aws[\w-]*:kms:[\w-]+:\d{12}:key\/[\w-]+$/.test(arn));
  if (invalid) throw new Error(`Context "retiredReceiptKeys" lists KMS key ARNs (arn:aws:kms:region:account:key/id), not ${invalid}`);
  return { generation: number, retired: arns };
}

/** The stages the app's context asks for (every stage without `stage`), each as its stacks. */
export function addStages(app: App): GatewayStage[] {
  const context = (key: string): unknown => app.node.tryGetContext(key);
  const stages = stagesFromContext(context('stage'));
  const publicBaseUrl = publicBaseUrlFromContext(context('publicBaseUrl'), stages);
  const customDomain = customDomainFromContext(context('domainName'), context('certificateArn'), stages);
  const watchedNetworks = watchedNetworksFromContext(context('watchNetworks'), context('watchTokens'), stages);
  const liveRates = liveRatesFromContext(context('ratesUrl'), context('ratePairs'), context('rateMaxAgeSeconds'), stages);
  const providers = providersFromContext(context('providers'), stages);
  const payoutFees = documentPartFromContext<GatewayStageProps['payoutFees']>('payoutFees', '{"USDT":"1.5","BTC":"0.0002"}', context('payoutFees'), stages);
  const explorers = documentPartFromContext<GatewayStageProps['explorers']>('explorers', '{"ethereum":"https://etherscan.io/tx/{hash}"}', context('explorers'), stages);
  const receiptKeys = receiptKeysFromContext(context('receiptKeyGeneration'), context('retiredReceiptKeys'), stages);
  return stages.map((stage) => new GatewayStage(app, { stage, publicBaseUrl, customDomain, watchedNetworks, liveRates, providers, payoutFees, explorers, receiptKeys }));
}
