/**
 * The stage's payment providers, as its configuration names them (docs/operations.md#stage-configuration):
 * each reached by the connector its `kind` names (`kinds.ts`: the provider protocol,
 * docs/provider-protocol.md, unless it names another), each secret read when first needed from where the configuration says it is, and kept for
 * a while (shared/refreshed.ts).
 */
import type { ProviderConfig, ProviderSecretSource } from '../config.js';
import type { PaymentProvider, ProviderRegistry, ProviderRoute } from '../domain/providers/index.js';
import { refreshed } from '../refreshed.js';
import { CONNECTORS, type Connector, type ConnectorKind } from './kinds.js';

/** A provider as the stage's configuration names it, reached by the connector of its `kind`. */
type ConfiguredProvider<Kind extends string> = Omit<ProviderConfig, 'kind'> & { kind: Kind };

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
export function providerRegistry<Kind extends string = ConnectorKind>(
  providers: () => readonly ConfiguredProvider<Kind>[],
  readSecretStore?: SecretStoreReader,
  now: () => number = Date.now,
  connectors: Readonly<Record<Kind, Connector>> = CONNECTORS as Readonly<Record<string, Connector>>,
): ProviderRegistry {
  const secrets = new Map<string, () => Promise<string>>();
  const secretOf = ({ id, secret }: ConfiguredProvider<Kind>) => {
    const key = JSON.stringify([id, secret]);
    if (!secrets.has(key)) secrets.set(key, cachedSecret(id, secret, readSecretStore, now));
    return secrets.get(key)!;
  };
  const connectorOf = (provider: ConfiguredProvider<Kind>) => {
    const connector: Connector = connectors[provider.kind];
    return connector({ id: provider.id, url: provider.url, secret: secretOf(provider) });
  };
  let built: { of: readonly ConfiguredProvider<Kind>[]; routes: ProviderRoute[]; connectors: Map<string, PaymentProvider> } | undefined;
  const current = () => {
    const list = providers();
    if (built?.of !== list) {
      built = {
        of: list,
        routes: list.map(({ id, name, priority, methods }) => ({ id, name, priority, methods })),
        connectors: new Map(list.map((provider) => [provider.id, connectorOf(provider)])),
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
