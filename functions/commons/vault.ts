/** The vault of this container, when its function may use it: the data-key source and the callback secrets. */
import { KMSClient } from '@aws-sdk/client-kms';
import { config } from '../../shared/config.js';
import { traced } from '../../shared/observability/tracer.js';
import { CallbackSecretVault } from '../../shared/vault/callback-secrets.js';
import type { DataKeySource } from '../../shared/vault/envelope.js';
import { KeyFileDataKeySource, KmsDataKeySource } from '../../shared/vault/key-sources.js';

const { vaultKeys } = config();

/** Absent for functions without access to the vault key (AWS grants it route by route). */
export const dataKeys: DataKeySource | undefined =
  vaultKeys && (vaultKeys.kind === 'aws' ? new KmsDataKeySource(traced(new KMSClient({})), vaultKeys.kmsKeyId) : new KeyFileDataKeySource(vaultKeys.keyFile));

export const callbackSecrets = dataKeys && new CallbackSecretVault(dataKeys);

/** The vault, for a function that cannot work without it: fails the cold start when it is not configured. */
export function requireVault(): { dataKeys: DataKeySource; callbackSecrets: CallbackSecretVault } {
  if (!dataKeys || !callbackSecrets) throw new Error('Invalid environment: VAULT_KMS_KEY_ID (AWS) or GATEWAY_KEY_FILE is required');
  return { dataKeys, callbackSecrets };
}
