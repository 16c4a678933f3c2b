/**
 * `npm run verify-receipt`: a merchant's check of a transaction receipt without trusting the
 * gateway. The signature is verified offline (ES256 only, the key found by `kid` in the JWKS), and
 * the chain evidence on the chain's own node. Nothing here is the gateway's code: the receipt's
 * format is the contract (docs/merchant-guide.md).
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { createLocalJWKSet, createRemoteJWKSet, decodeJwt, errors, type JSONWebKeySet, type JWTVerifyGetKey, jwtVerify } from 'jose';
import { CRYPTO_NETWORKS } from '../../shared/domain/kernel/index.js';
import { chainChecks } from './receipt-chains.js';
import { type Check, chainClaimOf, check, isVerified, missingChecks, offChainChecks, type ReceiptPayload, receiptJwsOf, receiptPayloadSchema, renderReport } from './receipt-checks.js';

export const USAGE = `Usage: npm run verify-receipt -- FILE [--jwks URL|FILE] [--rpc NETWORK=URL ...] [--json]

Checks a transaction receipt of the gateway (GET /api/v2/transaction/{id}/receipt) without
trusting the gateway: its ES256 signature against the gateway's published keys, and, given a node
of the receipt's network, that the transfer it states is on the chain as stated.

  FILE                the receipt: the compact JWS, or the route's JSON answer holding it
  --jwks URL|FILE     the gateway's keys (JWKS), from a URL or a file; by default the receipt's
                      issuer + /.well-known/jwks.json. Fetch them once from the gateway you know
                      and keep the file: keys taken from the issuer the receipt names prove only
                      that whoever runs that address signed it.
  --rpc NETWORK=URL   a node to check chain evidence on, NETWORK one of
                      ${CRYPTO_NETWORKS.join(', ')}:
                      an EVM JSON-RPC URL, or a Bitcoin Core-compatible RPC URL with its
                      credentials (http://user:password@host:port). Repeat for more networks.
                      Tron is not read: its evidence is printed as not checked.
  --json              the checks as JSON instead of lines

EVM evidence: the transaction's receipt succeeded in the block stated (number and hash), that block
is still the chain's at its height (else "reorganised away"), and the ERC-20 Transfer log at
logIndex was emitted by the contract and pays 'to' exactly the amount (by the contract's
decimals()); for a native coin, the transaction pays 'to' exactly the amount in wei.
Bitcoin evidence: the block at the height stated is the one stated (else "reorganised away"),
holds the transaction, and its output outputIndex pays 'to' exactly the amount in satoshis.
On either, the block stands at least as deep now as the confirmations the receipt says were
counted when the transfer was credited.
Provider and simulated evidence have no chain: the signature proves what the gateway states.
Fields the receipt lists in "missing" are printed as not established.

Each check prints a line: ok, FAILED, not checked, not applicable or not established, with
the reason.
Exit code 0: the signature verified and every check that ran passed; 1: it did not; 2: the
command was used wrongly, or the receipt or the JWKS file could not be read (keys that could not
be fetched from a URL fail the signature line).
`;

export interface VerifyOptions {
  /** The receipt file's text. */
  receipt: string;
  /** A JWKS URL, or a JWKS document already read; by default the issuer's. */
  jwks?: URL | JSONWebKeySet;
  /** A node's URL for each network. */
  rpc?: Readonly<Record<string, string>>;
}

export interface Verification {
  verified: boolean;
  checks: Check[];
  /** The payload, once its signature verified. */
  payload?: ReceiptPayload;
}

const firstLine = (error: unknown): string => (error instanceof Error ? error.message.split('\n')[0]! : String(error));

/** Why the signature did not verify, in a merchant's words. */
function signatureProblem(error: unknown): string {
  if (error instanceof errors.JWSSignatureVerificationFailed) return 'the signature does not match the receipt: it was altered, or signed by another key';
  if (error instanceof errors.JWKSNoMatchingKey) return "no key of the JWKS has the receipt's kid (with alg ES256): an unknown key";
  if (error instanceof errors.JOSEAlgNotAllowed) return 'the receipt is not signed with ES256';
  return firstLine(error);
}

/** Where the issuer the receipt names publishes its keys: what it claims, to be trusted only as far as the issuer is. */
function issuerJwksUrl(jws: string): URL {
  const { iss } = decodeJwt(jws);
  if (!iss) throw new Error('the receipt names no issuer to fetch keys from: give --jwks');
  // Appended, not resolved: a stage's base URL may carry a path (API Gateway's /prod).
  return new URL(`${iss.replace(/\/+$/, '')}/.well-known/jwks.json`);
}

/** The receipt's signature and evidence checked; a receipt that cannot even be read throws. */
export async function verifyReceipt(options: VerifyOptions): Promise<Verification> {
  const jws = receiptJwsOf(options.receipt);
  const jwks = options.jwks ?? issuerJwksUrl(jws);
  const keys: JWTVerifyGetKey = jwks instanceof URL ? createRemoteJWKSet(jwks) : createLocalJWKSet(jwks);
  const source = jwks instanceof URL ? jwks.href : 'the JWKS file';
  let verified: Awaited<ReturnType<typeof jwtVerify>>;
  try {
    verified = await jwtVerify(jws, keys, { algorithms: ['ES256'] });
  } catch (error) {
    const checks = [check('FAILED', 'signature', signatureProblem(error)), check('not checked', 'evidence', 'nothing a receipt states counts unless its signature verifies')];
    return { verified: false, checks };
  }
  const checks = [check('ok', 'signature', `ES256 by key ${verified.protectedHeader.kid ?? '(no kid)'} of ${source}`)];
  const parsed = receiptPayloadSchema.safeParse(verified.payload);
  if (!parsed.success) {
    checks.push(check('FAILED', 'payload', `not a transaction receipt: ${parsed.error.issues.map((issue) => `${issue.path.join('.')} ${issue.message}`).join('; ')}`));
    return { verified: false, checks };
  }
  const payload = parsed.data;
  if (payload.evidence.source === 'chain') {
    const { claim, checks: claimChecks } = chainClaimOf(payload, payload.evidence);
    checks.push(...claimChecks);
    if (claim) checks.push(...(await chainChecks(claim, options.rpc?.[claim.network])));
  } else {
    checks.push(...offChainChecks(payload.evidence));
  }
  checks.push(...missingChecks(payload.missing));
  return { verified: isVerified(checks), checks, payload };
}

export interface VerifyCliIo {
  out: (text: string) => void;
  err: (text: string) => void;
}

const isUrl = (value: string): boolean => /^https?:\/\//i.test(value);

function rpcOption(values: readonly string[]): Record<string, string> {
  const rpc: Record<string, string> = {};
  for (const value of values) {
    const [network, ...rest] = value.split('=');
    const url = rest.join('=');
    if (!network || !(CRYPTO_NETWORKS as readonly string[]).includes(network)) throw new Error(`--rpc takes NETWORK=URL, NETWORK one of ${CRYPTO_NETWORKS.join(', ')}, not ${value}`);
    if (!isUrl(url) || !URL.canParse(url)) throw new Error(`--rpc ${network}= must be an http or https URL, not ${url || 'nothing'}`);
    rpc[network] = url;
  }
  return rpc;
}

/** Runs the command with `args` (after `--`); resolves to its exit code. */
export async function runVerifyReceipt(args: readonly string[], io: VerifyCliIo): Promise<number> {
  let parsed: ReturnType<typeof parseCommand>;
  try {
    parsed = parseCommand(args);
  } catch (error) {
    io.err(`${firstLine(error)}\n\n${USAGE}`);
    return 2;
  }
  if (parsed.help) {
    io.out(USAGE);
    return 0;
  }
  let verification: Verification;
  try {
    const jwks = parsed.jwks === undefined ? undefined : isUrl(parsed.jwks) ? new URL(parsed.jwks) : JSON.parse(await readFile(parsed.jwks, 'utf8'));
    verification = await verifyReceipt({ receipt: await readFile(parsed.file, 'utf8'), jwks, rpc: parsed.rpc });
  } catch (error) {
    io.err(`Could not verify ${parsed.file}: ${firstLine(error)}\n`);
    return 2;
  }
  io.out(parsed.json ? `${JSON.stringify({ verified: verification.verified, checks: verification.checks }, null, 2)}\n` : renderReport(verification.checks, verification.payload));
  return verification.verified ? 0 : 1;
}

function parseCommand(args: readonly string[]) {
  const { values, positionals } = parseArgs({
    args: [...args],
    allowPositionals: true,
    options: { jwks: { type: 'string' }, rpc: { type: 'string', multiple: true }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
  });
  if (values.help) return { help: true as const };
  const [file, ...extra] = positionals;
  if (file === undefined) throw new Error('FILE, the receipt, is required');
  if (extra.length > 0) throw new Error(`unexpected argument ${extra[0]}`);
  return { help: false as const, file, jwks: values.jwks, rpc: rpcOption(values.rpc ?? []), json: values.json ?? false };
}
