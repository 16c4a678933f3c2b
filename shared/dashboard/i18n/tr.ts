import type { DashboardCatalogue } from './en.js';
import { en } from './en.js';

/** Turkish. */
export const tr: DashboardCatalogue = { ...en };
