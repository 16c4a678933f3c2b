/** `create-invoice` -> `CreateInvoice`, `apiKeys` -> `ApiKeys`: construct and output ids. */
export const pascalCase = (name: string): string => name.replace(/(?:^|-)(\w)/g, (_, first: string) => first.toUpperCase());
