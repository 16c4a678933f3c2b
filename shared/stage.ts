/**
 * The stages a gateway is deployed as: `prod` takes real money, `demo` adds the simulation API
 * and the demo provider (docs/merchant-guide.md#the-demo-environment-and-the-simulation-api). Every
 * layer may import this file: it imports nothing.
 */
export const STAGES = ['prod', 'demo'] as const;
export type Stage = (typeof STAGES)[number];
