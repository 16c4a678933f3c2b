/** The demo provider's page text in each of the checkout's languages (shared/checkout/language.ts). */
import type { Language } from '../../shared/checkout/language.js';
import { az } from './az.js';
import { en, type DemoCatalogue } from './en.js';
import { hi } from './hi.js';
import { tr } from './tr.js';
import { ur } from './ur.js';

export type { DemoCatalogue, DemoMessageKey } from './en.js';

export const DEMO_CATALOGUES: Record<Language, DemoCatalogue> = { en, tr, hi, ur, az };
