/** Provider secrets kept in AWS Secrets Manager (docs/operations.md#payment-providers): never in a template or an environment variable. */
import { GetSecretValueCommand, type SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { isProviderSecret } from '../domain/providers/index.js';
import type { SecretStoreReader } from './registry.js';

/** Reads a provider's secret by its ARN, refusing what is not one. */
export const secretsManagerReader =
  (client: SecretsManagerClient): SecretStoreReader =>
  async (arn) => {
    const { SecretString } = await client.send(new GetSecretValueCommand({ SecretId: arn }));
    if (SecretString === undefined || !isProviderSecret(SecretString)) throw new Error(`${arn} does not hold a provider secret (the base64 of at least 24 bytes)`);
    return SecretString;
  };
