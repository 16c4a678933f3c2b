/**
 * The stage's payment providers, built once per container from its configuration: each reached
 * by the connector of its protocol (docs/provider-protocol.md for every provider so far), each
 * secret read when first needed from where the configuration says it is, and kept for a while.
 */
import type { ProviderConfig, ProviderSecretSource } from '../config.js';
import type { PaymentProvider, ProviderRegistry, ProviderRoute } from '../domain/providers.js';
import { ProtocolProvider } from './protocol-provider.js';

/** Reads a secret kept in a secret store (AWS Secrets Manager), by its ARN. */
export type SecretStoreReader = (arn: string) => Promise<string>;

/**
 * How long a secret read from the store is used before it is read again: a secret replaced in the
 * store (docs/operations.md#payment-providers) reaches every running function within this.
 */
export const STORED_SECRET_MAX_AGE_MS = 5 * 60_000;

/**
 * The secret of `source`, read from the store at most once per `STORED_SECRET_MAX_AGE_MS`. A read
 * that fails leaves the last secret read in use, or fails the call when there is none yet; the
 * next call reads again.
 */
function cachedSecret(providerId: string, source: ProviderSecretSource, readSecretStore: SecretStoreReader | undefined, now: () => number): () => Promise<string> {
  if (source.kind === 'inline') return async () => source.value;
  let cached: { value: string; at: number } | undefined;
  let reading: Promise<string> | undefined;
  return async () => {
    if (!readSecretStore) throw new Error(`Provider ${providerId}'s secret is in a secret store, and this function was given no reader of it`);
    if (cached && now() - cached.at < STORED_SECRET_MAX_AGE_MS) return cached.value;
    reading ??= readSecretStore(source.arn)
      .then((value) => {
        cached = { value, at: now() };
        return value;
      })
      .finally(() => {
        reading = undefined;
      });
    try {
      return await reading;
    } catch (error) {
      if (cached) return cached.value;
      throw error;
    }
  };
}

export function providerRegistry(providers: readonly ProviderConfig[], readSecretStore?: SecretStoreReader, now: () => number = Date.now): ProviderRegistry {
  const connectors = new Map<string, PaymentProvider>(
    providers.map((provider) => [provider.id, new ProtocolProvider({ id: provider.id, url: provider.url, secret: cachedSecret(provider.id, provider.secret, readSecretStore, now) })]),
  );
  const routes: ProviderRoute[] = providers.map(({ id, name, priority, methods }) => ({ id, name, priority, methods }));
  return { routes, get: (id) => connectors.get(id) };
}
