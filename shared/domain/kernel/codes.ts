/**
 * Codes (currencies, networks) as the OpenAPI document lists them, and so the client generated from it: an enum of the codes
 * as the gateway writes them.
 */
import type * as z from 'zod';

/**
 * `schema`, listed in the document as one of `codes`. What it accepts stays its own: requests are read as they always were
 * (trimmed, in any case) and an unknown code is refused by the rule that names its field and message, so a client sends
 * what the document lists and a merchant's existing requests are answered as before.
 */
export const listedAs = <Schema extends z.ZodType>(schema: Schema, codes: readonly (string | null)[]): Schema => schema.meta({ enum: [...codes] });
