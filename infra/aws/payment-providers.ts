/**
 * A stage's partner providers' secrets (docs/operations.md#payment-providers), kept in Secrets
 * Manager: generated here, then shared with the partner, or replaced by the one agreed with it.
 * The stage's configuration names each by its ARN only (stage-configuration.ts): no secret is ever
 * in a template, a document or an environment variable.
 */
import type { CfnOutputProps, RemovalPolicy } from 'aws-cdk-lib';
import { Secret, type ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import type { ProviderMethod } from '../../shared/domain/providers/index.js';
import { pascalCase } from './construct-ids.js';
import { acknowledge } from './nag.js';
import type { ConnectorKind } from '../../shared/connectors/kinds.js';

/** What a generated secret must look like to be a provider secret (the demo provider's too): 64 letters and digits are the base64 of 48 bytes. */
export const GENERATED_SECRET = { excludePunctuation: true, passwordLength: 64 } as const;

/** A provider as the stage's context gives it: everything but its secret. */
export interface ProviderDeployment {
  id: string;
  /** Its connector (shared/connectors/kinds.ts); the provider protocol when absent. */
  kind?: ConnectorKind;
  name?: string;
  url: string;
  priority: number;
  methods: readonly ProviderMethod[];
}

/** A provider with the secret it shares with the gateway. */
export interface ProviderWithSecret {
  provider: ProviderDeployment;
  secret: ISecret;
}

export interface PartnerSecretsProps {
  /** The stage's partners (context `providers`). */
  partners: readonly ProviderDeployment[];
  removalPolicy: RemovalPolicy;
}

export class PartnerSecrets extends Construct {
  readonly partners: ProviderWithSecret[];
  /** Each secret's ARN, `ProviderSecret{Id}`: what an operator reads and puts the secret agreed with the partner by. */
  readonly outputs: Record<string, CfnOutputProps>;

  constructor(scope: Construct, id: string, { partners, removalPolicy }: PartnerSecretsProps) {
    super(scope, id);
    this.partners = partners.map((provider) => {
      // No name: CloudFormation names it for each creation, so that a provider removed and added
      // again, or a stage made again, does not meet the secret a prod stage kept ("already exists").
      const secret = new Secret(this, `${pascalCase(provider.id)}Secret`, {
        description: `The secret shared with the payment provider ${provider.id}: it signs requests both ways (Standard Webhooks)`,
        generateSecretString: GENERATED_SECRET,
        removalPolicy,
      });
      acknowledge(secret, ['AwsSolutions-SMG4'], 'Shared with the partner: a rotation is agreed with it and made on both sides at once (docs/operations.md#payment-providers).');
      return { provider, secret };
    });
    this.outputs = Object.fromEntries(
      this.partners.map(({ provider, secret }) => [`ProviderSecret${pascalCase(provider.id)}`, { value: secret.secretArn, description: `The secret shared with the payment provider ${provider.id}` }]),
    );
  }
}
