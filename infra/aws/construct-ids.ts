import { SERVICE_NAME } from '../../shared/observability/catalogue.js';
import type { Stage } from '../../shared/stage.js';

/** `create-invoice` -> `CreateInvoice`, `apiKeys` -> `ApiKeys`: construct and output ids. */
export const pascalCase = (name: string): string => name.replace(/(?:^|-)(\w)/g, (_, first: string) => first.toUpperCase());

/** A stage's stacks, one concern each (docs/operations.md#what-a-stage-is-made-of), in the order they deploy. */
export const STACK_CONCERNS = ['data', 'api', 'jobs', 'monitoring'] as const;
export type StackConcern = (typeof STACK_CONCERNS)[number];

/** `PaymentGateway-prod-data`: a stage's stack of one concern, as `cdk deploy` and the admin CLI name it. */
export const gatewayStackName = (stage: string, concern: StackConcern): string => `PaymentGateway-${stage}-${concern}`;

/** The SSM parameters of a stage's configuration (docs/operations.md#stage-configuration): its document, and the networks' node endpoints beside it. */
export const stageConfigurationParameterName = (stage: Stage): string => `/${SERVICE_NAME}/${stage}/configuration`;
export const chainEndpointsParameterName = (stage: Stage): string => `/${SERVICE_NAME}/${stage}/chain-endpoints`;
