/**
 * The demo provider's environment, read and validated once when it starts: a missing or bad
 * value stops the start (the local process, a Lambda container's cold start), never a request.
 * One machine and AWS share the settings of the service; each has its own for where things are.
 */
import * as z from 'zod';
import { isProviderSecret } from '../shared/connectors/protocol/messages.js';
import { DEFAULTS } from '../shared/defaults.js';

/** The path the demo provider is served under on the gateway's API in AWS. */
export const DEMO_PROVIDER_PATH = '/demo-provider';

/** An unset or empty variable takes its default. */
const withDefault = <S extends z.ZodType>(schema: S, fallback: z.input<S>) => z.preprocess((value) => (value === undefined || value === '' ? fallback : value), schema);

const webAddress = z.url({ protocol: /^https?$/, error: 'must be an http or https URL' }).transform((url) => url.replace(/\/+$/, ''));

const serviceSchema = z.object({
  /** How long a UTR, or a refund, waits for its decision; the gateway's variable, so that both sides say the same. */
  GATEWAY_PROVIDER_DELAY_S: withDefault(z.coerce.number().min(0).max(3600), DEFAULTS.demoProviderDelaySeconds),
  /** Its DynamoDB table. */
  DEMO_PROVIDER_TABLE: withDefault(z.string().regex(/^[A-Za-z0-9_.-]{3,255}$/, 'must be a DynamoDB table name'), 'demo-provider'),
});

const localSchema = serviceSchema.extend({
  /** The port on 127.0.0.1; 0 takes a free one. */
  PORT: withDefault(z.coerce.number().int().min(0).max(65535), 0),
  /** The secret shared with the gateway, as the gateway's provider configuration holds it. */
  DEMO_PROVIDER_SECRET: z.string().refine(isProviderSecret, 'must be the base64 of at least 24 bytes, with or without whsec_ in front'),
  /** Where customers' browsers reach it, when not at the address it listens on. */
  DEMO_PROVIDER_PUBLIC_URL: webAddress.optional(),
  DEMO_PROVIDER_DYNAMODB_ENDPOINT: webAddress,
  /**
   * What DynamoDB Local files its table under: an access key id of its own, so that it keeps a
   * database apart from the gateway's (DynamoDB Local keeps one per access key id).
   */
  DEMO_PROVIDER_DYNAMODB_ACCESS_KEY_ID: z.string().regex(/^[0-9A-Za-z]{32,128}$/, 'must be 32 to 128 letters or digits'),
});

const lambdaSchema = serviceSchema.extend({
  /** The Secrets Manager secret holding the shared secret, read once per container. */
  DEMO_PROVIDER_SECRET_ARN: z.string().startsWith('arn:', 'must be a Secrets Manager ARN'),
  DEMO_PROVIDER_PUBLIC_URL: webAddress,
  /** The queue that holds its waiting work back (SQS delays). */
  DEMO_PROVIDER_QUEUE_URL: z.url(),
});

interface ServiceSettings {
  utrDecisionDelaySeconds: number;
  tableName: string;
}

export interface LocalSettings extends ServiceSettings {
  port: number;
  secret: string;
  /** Undefined: the address it listens on. */
  publicUrl?: string;
  dynamodbEndpoint: string;
  dynamodbAccessKeyId: string;
}

export interface LambdaSettings extends ServiceSettings {
  secretArn: string;
  publicUrl: string;
  queueUrl: string;
}

function parsed<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv): z.output<S> {
  const result = schema.safeParse(env);
  if (!result.success) throw new Error(`Invalid environment: ${result.error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`).join('; ')}`);
  return result.data;
}

export function parseLocalSettings(env: NodeJS.ProcessEnv): LocalSettings {
  const e = parsed(localSchema, env);
  return {
    utrDecisionDelaySeconds: e.GATEWAY_PROVIDER_DELAY_S,
    tableName: e.DEMO_PROVIDER_TABLE,
    port: e.PORT,
    secret: e.DEMO_PROVIDER_SECRET,
    publicUrl: e.DEMO_PROVIDER_PUBLIC_URL,
    dynamodbEndpoint: e.DEMO_PROVIDER_DYNAMODB_ENDPOINT,
    dynamodbAccessKeyId: e.DEMO_PROVIDER_DYNAMODB_ACCESS_KEY_ID,
  };
}

export function parseLambdaSettings(env: NodeJS.ProcessEnv): LambdaSettings {
  const e = parsed(lambdaSchema, env);
  return {
    utrDecisionDelaySeconds: e.GATEWAY_PROVIDER_DELAY_S,
    tableName: e.DEMO_PROVIDER_TABLE,
    secretArn: e.DEMO_PROVIDER_SECRET_ARN,
    publicUrl: e.DEMO_PROVIDER_PUBLIC_URL,
    queueUrl: e.DEMO_PROVIDER_QUEUE_URL,
  };
}
