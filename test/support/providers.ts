/**
 * Payment providers in tests: the routes the domain's tests use for each stage, and for the tests
 * of the functions, the run's demo provider (its own process, started by the global setup), the
 * reconciliation that settles what it decided, and events signed as a provider signs them.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { FIAT_METHOD_LIMITS } from '../../shared/domain/kernel/currencies.js';
import { DEMO_PROVIDER_ID, demoProviderRoute, providerMethods, type ProviderRoute } from '../../shared/domain/providers/providers.js';
import { signMessage } from '../../shared/connectors/protocol/messages.js';
import type { Stage } from '../../shared/stage.js';
import { invoke, loadFunction, type GatewayResult } from './invoke.js';
import { localStageConfiguration } from './stage-configuration.js';

/** A production partner serving every method of the payment limits (docs/merchant-guide.md#payment-limits). */
export const SECTION_FOUR_PROVIDER: ProviderRoute = { id: 'psp', name: 'PSP', priority: 0, methods: providerMethods(FIAT_METHOD_LIMITS) };

/** Production with a partner serving every method; demo and local with the demo provider. */
export const stageProviders = (stage: Stage): ProviderRoute[] => (stage === 'prod' ? [SECTION_FOUR_PROVIDER] : [demoProviderRoute()]);

/** A configured provider's address and secret, as the functions of this test run know them. */
export function configuredProvider(id = DEMO_PROVIDER_ID): { url: string; secret: string } {
  const provider = localStageConfiguration().providers.find((candidate) => candidate.id === id);
  if (provider?.secret.kind !== 'inline') throw new Error(`The test run configures no provider ${id} with its secret`);
  return { url: provider.url, secret: provider.secret.value };
}

/** The test run's demo provider decides a UTR after this long (global-setup.ts). */
const DEMO_PROVIDER_DELAY_MS = 200;

/**
 * What the providers decided, settled: the run's demo provider sends its events to an address
 * where nothing listens, so its decisions reach the gateway as the reconciliation reads them
 * (docs/provider-protocol.md), which is what this runs, once the provider's delay is over.
 */
export async function settleProviderDecisions(): Promise<void> {
  await sleep(DEMO_PROVIDER_DELAY_MS + 100);
  const reconcile = (await loadFunction('reconcile-provider-payments'))!;
  await reconcile({} as never, {} as never);
}

/** The customer's click on the demo provider's page: it records the outcome, then sends the customer back (303). */
export async function payOnDemoProviderPage(pageUrl: string, outcome: 'confirmed' | 'failed'): Promise<Response> {
  return fetch(pageUrl, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ outcome }), redirect: 'manual' });
}

export interface SignedEventOptions {
  providerId?: string;
  /** Signed with another secret than the provider's: a forgery. */
  secret?: string;
  webhookId?: string;
  at?: Date;
}

/** An event to `POST /api/v2/providers/{providerId}/events`, signed as the provider signs it. */
export function sendProviderEvent(event: unknown, options: SignedEventOptions = {}): Promise<GatewayResult> {
  const providerId = options.providerId ?? DEMO_PROVIDER_ID;
  const body = JSON.stringify(event);
  const signed = signMessage(options.secret ?? configuredProvider(providerId).secret, options.webhookId ?? `evt_${randomUUID()}`, body, options.at ?? new Date());
  return invoke('receive-provider-event', { pathParameters: { providerId }, headers: signed.headers, body });
}
