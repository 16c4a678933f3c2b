/**
 * Redocly's recommended ruleset (the pinned @redocly/cli, run offline as a process of its own)
 * finding no error in either stage's OpenAPI document nor in the payment providers', and reporting an example its schema refuses.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CRYPTO_NETWORKS } from '../../shared/domain/kernel/currencies.js';
import { buildOpenApiDocument, buildProvidersOpenApiDocument } from '../../shared/openapi.js';
import { STAGES, type Stage } from '../../shared/stage.js';

const ROOT = new URL('../../', import.meta.url).pathname;

const documents = Object.fromEntries(STAGES.map((stage) => [stage, buildOpenApiDocument('https://gateway.example', stage, CRYPTO_NETWORKS)])) as Record<Stage, ReturnType<typeof buildOpenApiDocument>>;

describe('Redocly lint, recommended ruleset', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'openapi-lint-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  /** The problems `redocly lint` reports; no telemetry and no update check, so nothing leaves the machine. */
  async function lint(name: string, doc: unknown): Promise<{ totals: { errors: number; warnings: number }; problems: { ruleId: string; severity: string; message: string }[] }> {
    const file = join(dir, `${name}.json`);
    await writeFile(file, JSON.stringify(doc, null, 2));
    const { stdout } = await promisify(execFile)(join(ROOT, 'node_modules/.bin/redocly'), ['lint', '--extends', 'recommended', '--format', 'json', file], {
      cwd: dir,
      env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
    }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
    return JSON.parse(stdout);
  }

  it.each(STAGES)('finds no error in the %s document, and no example its schema refuses', async (stage) => {
    const { totals, problems } = await lint(stage, documents[stage]);
    expect(problems.filter((p) => p.severity === 'error')).toEqual([]);
    expect(totals.errors).toBe(0);
    expect(problems.filter((p) => p.ruleId.includes('example'))).toEqual([]);
  });

  it("finds no error in the payment providers' document, and no example its schema refuses", async () => {
    const { totals, problems } = await lint('providers', buildProvidersOpenApiDocument('https://gateway.example'));
    expect(problems.filter((p) => p.severity === 'error')).toEqual([]);
    expect(totals.errors).toBe(0);
    expect(problems.filter((p) => p.ruleId.includes('example'))).toEqual([]);
  });

  it('is a lint that fails: an example against its schema is reported', async () => {
    const broken = structuredClone(documents.demo) as any;
    broken.paths['/api/v2/invoices/{invoiceId}'].get.responses['200'].content['application/json'].example.data.status = 'lost';
    const { problems } = await lint('broken', broken);
    expect(problems).toContainEqual(expect.objectContaining({ ruleId: 'no-invalid-media-type-examples' }));
  });
});
