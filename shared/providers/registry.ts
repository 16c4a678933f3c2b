/**
 * The stage's payment providers, built once per container from its configuration: each reached
 * by the connector of its protocol (the section 18 protocol for every provider so far), each
 * secret read once, when first needed, from where the configuration says it is.
 */
import type { ProviderConfig, ProviderSecretSource } from '../config.js';
import type { PaymentProvider, ProviderRegistry, ProviderRoute } from '../domain/providers.js';
import { ProtocolProvider } from './protocol-provider.js';

/** Reads a secret kept in a secret store (AWS Secrets Manager), by its ARN. */
export type SecretStoreReader = (arn: string) => Promise<string>;

/** The secret of `source`, read once; a failed read is tried again on the next call. */
function secretOnce(providerId: string, source: ProviderSecretSource, readSecretStore?: SecretStoreReader): () => Promise<string> {
  if (source.kind === 'inline') return async () => source.value;
  let reading: Promise<string> | undefined;
  return () => {
    if (!readSecretStore) throw new Error(`Provider ${providerId}'s secret is in a secret store, and this function was given no reader of it`);
    reading ??= readSecretStore(source.arn).catch((error: unknown) => {
      reading = undefined;
      throw error;
    });
    return reading;
  };
}

export function providerRegistry(providers: readonly ProviderConfig[], readSecretStore?: SecretStoreReader): ProviderRegistry {
  const connectors = new Map<string, PaymentProvider>(
    providers.map((provider) => [provider.id, new ProtocolProvider({ id: provider.id, url: provider.url, secret: secretOnce(provider.id, provider.secret, readSecretStore) })]),
  );
  const routes: ProviderRoute[] = providers.map(({ id, name, priority, methods }) => ({ id, name, priority, methods }));
  return { routes, get: (id) => connectors.get(id) };
}
