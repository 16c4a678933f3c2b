import type { DashboardCatalogue } from './en.js';
import { en } from './en.js';

/** Urdu. */
export const ur: DashboardCatalogue = { ...en };
