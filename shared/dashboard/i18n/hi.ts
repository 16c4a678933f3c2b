import type { DashboardCatalogue } from './en.js';
import { en } from './en.js';

/** Hindi. */
export const hi: DashboardCatalogue = { ...en };
