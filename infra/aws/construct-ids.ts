/** `create-invoice` -> `CreateInvoice`, `apiKeys` -> `ApiKeys`: construct and output ids. */
export const pascalCase = (name: string): string => name.replace(/(?:^|-)(\w)/g, (_, first: string) => first.toUpperCase());

/** A stage's stacks, one concern each (docs/operations.md#what-a-stage-is-made-of), in the order they deploy. */
export const STACK_CONCERNS = ['data', 'api', 'jobs', 'monitoring'] as const;
export type StackConcern = (typeof STACK_CONCERNS)[number];

/** `PaymentGateway-prod-data`: a stage's stack of one concern, as `cdk deploy` and the admin CLI name it. */
export const gatewayStackName = (stage: string, concern: StackConcern): string => `PaymentGateway-${stage}-${concern}`;
