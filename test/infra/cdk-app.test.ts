/**
 * The CDK app through the real CLI, offline: `cdk synth` with no stage emits both stacks, bundling
 * every function with the local esbuild, and bad context fails before anything is built.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FUNCTIONS, STAGES } from '../../shared/routes.js';

const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const STACK_NAMES = STAGES.map((stage) => `PaymentGateway-${stage}`);
const CERTIFICATE_ARN = 'arn:aws:acm:eu-west-1:123456789012:certificate/0a1b2c3d-4e5f-6789-abcd-ef0123456789';

interface Run {
  code: number | null;
  stderr: string;
}

function cdkSynth(outdir: string, ...context: string[]): Promise<Run> {
  const args = ['cdk', 'synth', '--quiet', '--no-notices', '-o', outdir, ...context.flatMap((c) => ['-c', c])];
  return new Promise((resolve, reject) => {
    const child = spawn('npx', args, {
      cwd: PROJECT_ROOT,
      env: { ...process.env, CI: 'true', CDK_DISABLE_CLI_TELEMETRY: 'true' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

let workdir: string;
let synth: Run;
let unknownStage: Run;
let baseUrlWithoutStage: Run;
let plainHttpBaseUrl: Run;
let domainWithoutCertificate: Run;
let badDomainName: Run;

beforeAll(async () => {
  workdir = mkdtempSync(join(tmpdir(), 'cdk-app-test-'));
  // Concurrently: the full synth takes a while, the failures are over in seconds.
  [synth, unknownStage, baseUrlWithoutStage, plainHttpBaseUrl, domainWithoutCertificate, badDomainName] = await Promise.all([
    cdkSynth(join(workdir, 'all')),
    cdkSynth(join(workdir, 'unknown-stage'), 'stage=staging'),
    cdkSynth(join(workdir, 'base-url'), 'publicBaseUrl=https://pay.example.com'),
    cdkSynth(join(workdir, 'plain-http'), 'stage=demo', 'publicBaseUrl=http://pay.example.com'),
    cdkSynth(join(workdir, 'domain-alone'), 'stage=prod', 'domainName=pay.example.com'),
    cdkSynth(join(workdir, 'bad-domain'), 'stage=prod', 'domainName=https://pay.example.com', `certificateArn=${CERTIFICATE_ARN}`),
  ]);
}, 300_000);

afterAll(() => {
  if (workdir) rmSync(workdir, { recursive: true, force: true });
});

describe('cdk synth without a stage', () => {
  const template = (stackName: string) => JSON.parse(readFileSync(join(workdir, 'all', `${stackName}.template.json`), 'utf8'));

  it('succeeds offline and emits both stacks', () => {
    expect(synth.code, synth.stderr).toBe(0);
    for (const stackName of STACK_NAMES) expect(existsSync(join(workdir, 'all', `${stackName}.template.json`))).toBe(true);
    const manifest = JSON.parse(readFileSync(join(workdir, 'all', 'manifest.json'), 'utf8'));
    expect(Object.keys(manifest.artifacts)).toEqual(expect.arrayContaining(STACK_NAMES));
  });

  it.each(STACK_NAMES)('%s: every function is a minified ES module bundle with a source map', (stackName) => {
    // The gateway's own functions (by their route-table name); CDK's prebuilt handlers are not bundled here.
    const names = new Set<string>(FUNCTIONS.map((f) => f.name));
    const functions = Object.values(template(stackName).Resources as Record<string, any>).filter((r) => r.Type === 'AWS::Lambda::Function' && names.has(r.Properties.Description));
    expect(functions.length).toBeGreaterThan(0);
    for (const fn of functions) {
      const assetDir = join(workdir, 'all', fn.Metadata['aws:asset:path']);
      const bundle = readFileSync(join(assetDir, 'index.mjs'), 'utf8');
      expect(bundle.startsWith("import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);")).toBe(true);
      expect(bundle).toMatch(/sourceMappingURL=index\.mjs\.map/);
      expect(existsSync(join(assetDir, 'index.mjs.map'))).toBe(true);
    }
  });
});

describe('cdk synth with bad context', () => {
  it('rejects an unknown stage, naming the valid ones', () => {
    expect(unknownStage.code).not.toBe(0);
    expect(unknownStage.stderr).toContain('Context "stage" must be one of prod, demo (got "staging")');
  });

  it('rejects publicBaseUrl without a stage, since it belongs to one deployment', () => {
    expect(baseUrlWithoutStage.code).not.toBe(0);
    expect(baseUrlWithoutStage.stderr).toContain('Context "publicBaseUrl" belongs to one deployment');
  });

  it('rejects a publicBaseUrl that is not https', () => {
    expect(plainHttpBaseUrl.code).not.toBe(0);
    expect(plainHttpBaseUrl.stderr).toContain('Context "publicBaseUrl" must be an https URL');
  });

  it('rejects a custom domain without its certificate', () => {
    expect(domainWithoutCertificate.code).not.toBe(0);
    expect(domainWithoutCertificate.stderr).toContain('Context "domainName" and "certificateArn" go together');
  });

  it('rejects a custom domain that is not a host name', () => {
    expect(badDomainName.code).not.toBe(0);
    expect(badDomainName.stderr).toContain('Context "domainName" must be a lower-case host name');
  });
});
