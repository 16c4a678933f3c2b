import type { DashboardCatalogue } from './en.js';
import { en } from './en.js';

/** Azerbaijani. */
export const az: DashboardCatalogue = { ...en };
