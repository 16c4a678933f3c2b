/**
 * The files made from the OpenAPI documents and kept in the repository (infra/openapi/generated-files.ts): the merchant
 * client's types and the payment providers' document are what the documents make now, so a route or a description
 * changed without `npm run openapi` fails here.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { GENERATED_PATHS, generatedFiles } from '../../infra/openapi/generated-files.js';

const ROOT = new URL('../../', import.meta.url);

describe('the files generated from the OpenAPI documents', async () => {
  const generated = await generatedFiles();

  it.each(Object.values(GENERATED_PATHS))('%s is what its document makes now (run `npm run openapi` when it is not)', async (path) => {
    expect(await readFile(new URL(path, ROOT), 'utf8')).toBe(generated[path]);
  });

  it("types the merchant's currencies and networks as the codes the gateway takes, and holds no route of the providers'", () => {
    const client = generated[GENERATED_PATHS.client];
    expect(client).toContain('baseCurrency: "USD" | "EUR" | "TRY" | "INR" | "PKR" | "AZN" | "BTC" | "ETH" | "BNB" | "POL" | "TRX" | "FTN" | "USDT" | "USDC";');
    expect(client).toContain('network?: "bitcoin" | "ethereum" | "bsc" | "polygon" | "tron" | "bahamut";');
    expect(client).not.toContain('/api/v2/providers/');
    expect(client).not.toContain('"/api/v2/openapi.json"');
    expect(JSON.parse(generated[GENERATED_PATHS.providers]).paths).toHaveProperty(['/api/v2/providers/{providerId}/events']);
  });
});
