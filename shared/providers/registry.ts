/**
 * The stage's payment providers, as its configuration names them (docs/operations.md#stage-configuration):
 * each reached by the connector of its protocol (docs/provider-protocol.md for every provider so
 * far), each secret read when first needed from where the configuration says it is, and kept for
 * a while (shared/refreshed.ts).
 */
import type { ProviderConfig, ProviderSecretSource } from '../config.js';
import type { PaymentProvider, ProviderRegistry, ProviderRoute } from '../domain/providers/index.js';
import { refreshed } from '../refreshed.js';
import { ProtocolProvider } from './protocol-provider.js';

/** Reads a secret kept in a secret store (AWS Secrets Manager), by its ARN. */
export type SecretStoreReader = (arn: string) => Promise<string>;

/** The secret of `source`, read from the store at most once per maximum age; a provider's connectors share it. */
function cachedSecret(providerId: string, source: ProviderSecretSource, readSecretStore: SecretStoreReader | undefined, now: () => number): () => Promise<string> {
  if (source.kind === 'inline') return async () => source.value;
  const secret = refreshed(
    async () => {
      if (!readSecretStore) throw new Error(`Provider ${providerId}'s secret is in a secret store, and this function was given no reader of it`);
      return readSecretStore(source.arn);
    },
    { now },
  );
  return secret.get;
}

/**
 * The registry of the providers `providers` answers, built again when it answers another list (the
 * stage's configuration changed); a provider's secret is kept across rebuilds while it stays where it was.
 */
export function providerRegistry(providers: () => readonly ProviderConfig[], readSecretStore?: SecretStoreReader, now: () => number = Date.now): ProviderRegistry {
  const secrets = new Map<string, () => Promise<string>>();
  const secretOf = ({ id, secret }: ProviderConfig) => {
    const key = JSON.stringify([id, secret]);
    if (!secrets.has(key)) secrets.set(key, cachedSecret(id, secret, readSecretStore, now));
    return secrets.get(key)!;
  };
  let built: { of: readonly ProviderConfig[]; routes: ProviderRoute[]; connectors: Map<string, PaymentProvider> } | undefined;
  const current = () => {
    const list = providers();
    if (built?.of !== list) {
      built = {
        of: list,
        routes: list.map(({ id, name, priority, methods }) => ({ id, name, priority, methods })),
        connectors: new Map(list.map((provider) => [provider.id, new ProtocolProvider({ id: provider.id, url: provider.url, secret: secretOf(provider) })])),
      };
    }
    return built;
  };
  return {
    get routes() {
      return current().routes;
    },
    get: (id) => current().connectors.get(id),
  };
}
