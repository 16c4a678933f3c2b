/**
 * `npm run synth`: `cdk synth` of the app (app.ts), which then prints the stacks it synthesized and
 * where their templates are rather than a line per function it bundled. Everything else the CLI
 * and the app say (warnings, cdk-nag's findings, errors) passes through, and it exits with the
 * CLI's code.
 *
 *   npm run synth                                   both stages, into cdk.out/
 *   npm run synth -- -c stage=demo -o /tmp/out      any further argument goes to `cdk synth`
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const CDK_CLI = fileURLToPath(new URL('../../node_modules/aws-cdk/bin/cdk', import.meta.url));
/** The CLI's default, which cdk.json keeps. */
const DEFAULT_OUTDIR = 'cdk.out';
/**
 * CDK announces each asset it bundles on stderr whatever the bundler's log level (esbuild's own
 * summary is turned off in FUNCTION_BUNDLING); no setting of the app or the CLI leaves it out.
 */
const BUNDLING_ANNOUNCEMENT = /^Bundling asset \S+\.\.\.$/;

interface StackArtifact {
  type: string;
  displayName?: string;
  properties?: { templateFile?: string };
}

function outdirOf(args: readonly string[]): string {
  const flag = args.findIndex((arg) => arg === '-o' || arg === '--output');
  if (flag >= 0 && args[flag + 1] !== undefined) return args[flag + 1]!;
  return args.find((arg) => arg.startsWith('--output='))?.slice('--output='.length) ?? DEFAULT_OUTDIR;
}

/** The cloud assembly's stacks, in its manifest's order, with their templates' paths under `outdir`. */
function stacksOf(outdir: string): Array<{ name: string; template: string }> {
  const manifest = JSON.parse(readFileSync(join(outdir, 'manifest.json'), 'utf8')) as { artifacts: Record<string, StackArtifact> };
  return Object.entries(manifest.artifacts)
    .filter(([, artifact]) => artifact.type === 'aws:cloudformation:stack' && artifact.properties?.templateFile !== undefined)
    .map(([id, artifact]) => ({ name: artifact.displayName ?? id, template: join(outdir, artifact.properties!.templateFile!) }));
}

const args = process.argv.slice(2);
// --quiet: the templates go to files only, not to stdout as well.
const cli = spawn(process.execPath, [CDK_CLI, 'synth', '--quiet', '--no-notices', ...args], { stdio: ['inherit', 'pipe', 'pipe'] });
// Both streams: with CI=true the CLI writes to stdout what it otherwise writes to stderr.
for (const [from, to] of [
  [cli.stdout, process.stdout],
  [cli.stderr, process.stderr],
] as const) {
  createInterface({ input: from }).on('line', (line) => {
    if (!BUNDLING_ANNOUNCEMENT.test(line)) to.write(`${line}\n`);
  });
}
const code = await new Promise<number>((resolve) => cli.once('close', (exitCode) => resolve(exitCode ?? 1)));
if (code === 0) {
  const stacks = stacksOf(outdirOf(args));
  const width = Math.max(...stacks.map(({ name }) => name.length));
  console.log(`Synthesized ${stacks.length} stacks:`);
  for (const { name, template } of stacks) console.log(`  ${name.padEnd(width)}  ${template}`);
}
process.exitCode = code;
