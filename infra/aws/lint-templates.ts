/**
 * cfn-lint over every template the app synthesizes: both stages as `npm run synth` makes them,
 * and a stage grown to every option of its context (partner providers, every network watched, a
 * custom domain), nested stacks included. The findings the project judges false are dropped here
 * alone, each with its reason.
 *
 *   npm run lint:templates          (CI runs it: .ci/run; cfn-lint is a Python tool, README.md says how to install it)
 *
 * Prints nothing and exits 0 when every template is clean; otherwise prints each finding and exits 1.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { App } from 'aws-cdk-lib';
import { CRYPTO_NETWORKS } from '../../shared/domain/kernel/index.js';
import { addStages } from './stages.js';

const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** One of cfn-lint's findings (`--format json`). */
interface Finding {
  Filename: string;
  Level: string;
  Message: string;
  Rule: { Id: string };
  Location: { Start: { LineNumber: number }; Path: Array<string | number> };
}

/** A finding the project judges false, by its rule and what it is about, with why it is false. */
interface FalseFinding {
  rule: string;
  matches: (finding: Finding, resourceType: string | undefined) => boolean;
  reason: string;
}

const FALSE_FINDINGS: readonly FalseFinding[] = [
  {
    rule: 'E3002',
    matches: (finding, resourceType) => resourceType === 'AWS::CloudWatch::Dashboard' && finding.Location.Path.at(-1) === 'Tags',
    reason: "CloudFormation takes tags on a dashboard, and CDK writes the stage's tags there; cfn-lint's schema of AWS::CloudWatch::Dashboard predates them.",
  },
  {
    rule: 'W3005',
    matches: (finding) => /dependency already enforced by a 'GetAtt' at 'Resources\/[^/]+\/Properties\/Role'$/.test(finding.Message),
    reason:
      "CDK makes each function depend on its role beside its role's policy, so that the policy exists before the function runs: the role's own entry is redundant with the function's Role, and harmless.",
  },
];

/** The context of a stage with every option given (docs/operations.md#context). */
const GROWN_CONTEXT = {
  stage: 'prod',
  watchNetworks: CRYPTO_NETWORKS.join(','),
  watchTokens: JSON.stringify({ ethereum: { USDT: `0x${'1'.repeat(40)}` }, tron: { USDT: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t' } }),
  domainName: 'pay.example.com',
  certificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/0a1b2c3d-4e5f-6789-abcd-ef0123456789',
  providers: JSON.stringify([{ id: 'psp-one', url: 'https://psp-one.example/gw', priority: 1, methods: [{ currency: 'INR', method: 'p2p', min: '300', max: '49000' }] }]),
};

/** The app's templates with `context`, synthesized into `outdir` (its functions are not bundled: their code changes nothing in a template). */
function synthesize(outdir: string, context: Record<string, string>): string[] {
  const { context: flags } = JSON.parse(readFileSync(join(PROJECT_ROOT, 'cdk.json'), 'utf8')) as { context: Record<string, unknown> };
  const app = new App({ outdir, context: { ...flags, ...context, 'aws:cdk:bundling-stacks': [] } });
  addStages(app);
  app.synth();
  return readdirSync(outdir)
    .filter((file) => file.endsWith('.template.json'))
    .map((file) => join(outdir, file));
}

/** The type of the resource a finding is about, if it is about one. */
function resourceTypeOf(finding: Finding): string | undefined {
  const [section, logicalId] = finding.Location.Path;
  if (section !== 'Resources' || typeof logicalId !== 'string') return undefined;
  const template = JSON.parse(readFileSync(finding.Filename, 'utf8')) as { Resources: Record<string, { Type: string }> };
  return template.Resources[logicalId]?.Type;
}

const workdir = mkdtempSync(join(tmpdir(), 'lint-templates-'));
try {
  const templates = [...synthesize(join(workdir, 'stages'), {}), ...synthesize(join(workdir, 'grown'), GROWN_CONTEXT)];
  const run = spawnSync('cfn-lint', ['--format', 'json', '--non-zero-exit-code', 'none', '--', ...templates], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (run.error || run.status !== 0) {
    console.error(`cfn-lint did not run (${run.error?.message ?? run.stderr.trim()}): install it as README.md says.`);
    process.exitCode = 1;
  } else {
    const findings = (JSON.parse(run.stdout || '[]') as Finding[]).filter((finding) => !FALSE_FINDINGS.some(({ rule, matches }) => finding.Rule.Id === rule && matches(finding, resourceTypeOf(finding))));
    for (const finding of findings) {
      console.error(`${finding.Filename.slice(workdir.length + 1)}:${finding.Location.Start.LineNumber} ${finding.Rule.Id} ${finding.Location.Path.join('/')}: ${finding.Message}`);
    }
    if (findings.length > 0) process.exitCode = 1;
  }
} finally {
  rmSync(workdir, { recursive: true, force: true });
}
