/** The providers the domain's tests route payments to, as each stage is usually configured. */
import { FIAT_METHOD_LIMITS } from '../../shared/domain/currencies.js';
import { demoProviderRoute, providerMethods, type ProviderRoute } from '../../shared/domain/providers.js';
import type { Stage } from '../../shared/routes.js';

/** A production partner serving every method of section 4 with its limits. */
export const SECTION_FOUR_PROVIDER: ProviderRoute = { id: 'psp', name: 'PSP', priority: 0, methods: providerMethods(FIAT_METHOD_LIMITS) };

/** Production with a partner serving section 4; demo and local with the demo provider. */
export const stageProviders = (stage: Stage): ProviderRoute[] => (stage === 'prod' ? [SECTION_FOUR_PROVIDER] : [demoProviderRoute()]);
