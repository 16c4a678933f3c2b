/**
 * A stage's payment providers (docs/operations.md#payment-providers): each one's secret in Secrets Manager (generated
 * here, then shared with the partner, or replaced by the one agreed with it), and the
 * `GATEWAY_PROVIDERS` the functions read, which names each secret by its ARN only: no secret is
 * ever in a template or an environment variable.
 */
import { Stack, Token, type RemovalPolicy } from 'aws-cdk-lib';
import { Secret, type ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { parseProviders } from '../../shared/config.js';
import { SERVICE_NAME } from '../../shared/observability/catalogue.js';
import type { ProviderMethod } from '../../shared/domain/providers.js';
import type { Stage } from '../../shared/stage.js';
import { pascalCase } from './construct-ids.js';
import { GENERATED_SECRET } from './demo-provider.js';
import { acknowledge } from './nag.js';

/** A provider as the stage's context gives it: everything but its secret. */
export interface ProviderDeployment {
  id: string;
  name?: string;
  url: string;
  priority: number;
  methods: readonly ProviderMethod[];
}

export interface PaymentProvidersProps {
  stage: Stage;
  /** The stage's partners (context `providers`). */
  partners: readonly ProviderDeployment[];
  /** The demo provider beside a demo stage, with the secret it made. */
  demo?: { provider: ProviderDeployment; secret: ISecret };
  removalPolicy: RemovalPolicy;
}

/** What a secret's ARN looks like to the functions' configuration, where the ARN is a token at synthesis. */
const PLACEHOLDER_ARN = 'arn:aws:secretsmanager:region:000000000000:secret:placeholder';
/** Likewise for a URL built from the API's id. */
const PLACEHOLDER_URL = 'https://api.example/demo-provider';

export class PaymentProviders extends Construct {
  /** Every provider's secret: the functions that talk to providers may read them, and nothing else may. */
  readonly secrets: ISecret[];
  /** `GATEWAY_PROVIDERS`, for the functions that read the providers (each validates it at cold start). */
  readonly environment: Record<string, string>;

  constructor(scope: Construct, id: string, { stage, partners, demo, removalPolicy }: PaymentProvidersProps) {
    super(scope, id);
    const withSecrets: Array<{ provider: ProviderDeployment; secret: ISecret }> = partners.map((provider) => {
      const secret = new Secret(this, `${pascalCase(provider.id)}Secret`, {
        secretName: `${SERVICE_NAME}/${stage}/providers/${provider.id}`,
        description: `The secret shared with the payment provider ${provider.id}: it signs requests both ways (Standard Webhooks)`,
        generateSecretString: GENERATED_SECRET,
        removalPolicy,
      });
      acknowledge(secret, ['AwsSolutions-SMG4'], 'Shared with the partner: a rotation is agreed with it and made on both sides at once (docs/operations.md#payment-providers).');
      return { provider, secret };
    });
    const all = [...(demo ? [demo] : []), ...withSecrets];
    // Checked at synthesis as the functions check it at cold start; what is known only at deployment stands in.
    parseProviders(
      JSON.stringify(all.map(({ provider }) => ({ ...provider, url: Token.isUnresolved(provider.url) ? PLACEHOLDER_URL : provider.url, secretArn: PLACEHOLDER_ARN }))),
    );
    this.secrets = all.map(({ secret }) => secret);
    this.environment = {
      GATEWAY_PROVIDERS: Stack.of(this).toJsonString(all.map(({ provider, secret }) => ({ ...provider, secretArn: secret.secretArn }))),
    };
  }
}
