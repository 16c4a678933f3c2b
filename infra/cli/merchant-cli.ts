/**
 * `npm run merchant -- <command>`: creates merchants, issues, lists and revokes their keys
 * (docs/operations.md#merchants-and-keys). A new key and callback secret are printed once and never again. It also
 * redelivers the callbacks parked in the local gateway's dead-letter queue (docs/merchant-guide.md#delivery-retries-and-pauses),
 * and keeps the merchants' books: prints balances and entries, adjusts a balance, rebuilds a
 * merchant's books from its transactions (docs/merchant-guide.md#balances), clears the hold the
 * books check put on a merchant's payouts and asks it for a full pass (docs/operations.md#the-hourly-check),
 * counts a merchant's day totals again from its records (docs/operations.md#day-totals), and keeps
 * the merchants' payout addresses and their delay (docs/merchant-guide.md#payout-addresses). It
 * prints the treasury's addresses, holdings and what queued payouts need (docs/operations.md#the-treasury).
 */
import { parseArgs } from 'node:util';
import { chartDays } from '../../shared/dashboard/volume-chart.js';
import { type AdjustmentRequest, type Balance, type BalanceEntry, balanceEntryView, type DayTotals } from '../../shared/domain/ledger/index.js';
import {
  API_KEY_SCOPES,
  type BooksHold,
  MAX_ALLOWED_IPS,
  MAX_PAYOUT_ADDRESS_DELAY_SECONDS,
  merchantUrlProblem,
  newApiKeyRequestSchema,
  type NewMerchantInput,
  normalizedUrl,
} from '../../shared/domain/merchants/index.js';
import { invitationRequestSchema, type InvitationRequest } from '../../shared/domain/dashboard/index.js';
import { CRYPTO_NETWORKS, Decimal } from '../../shared/domain/kernel/index.js';
import { newPayoutAddressRequestSchema, type NewPayoutAddressRequest, type PayoutAddressView, type TreasuryAmount, treasuryReport } from '../../shared/domain/payouts/index.js';
import { nonPublicUrlProblem } from '../../shared/outbound/address-guard.js';
import { STAGES, type Stage } from '../../shared/stage.js';
import { DEFAULT_DATA_DIR, LOCAL_STAGE } from '../local/environment.js';
import { CLI_KEY_NAME, type KeyRequest } from './merchant-admin.js';
import { awsTarget, localTarget, type Target } from './targets.js';

export const USAGE = `Usage: npm run merchant -- <command> [options]

Commands:
  create --name NAME [--callback-url URL] [--return-url URL] [--fee PERCENT] [--scopes LIST] [--allowed-ips LIST] [--json]
      Creates a merchant with one API key; prints the key and the callback secret once.
  add-key --merchant MERCHANT_ID [--name KEY_NAME] [--scopes LIST] [--allowed-ips LIST] [--json]
      Issues another key (rotation: add, switch over, then revoke the old one), named as the
      merchant sees it in its dashboard (1 to 64 characters; ${CLI_KEY_NAME} unless given). A merchant's
      first key, made by create, is named ${CLI_KEY_NAME}.
      --scopes: what the key may do, comma-separated, of ${API_KEY_SCOPES.join(', ')}; all of them
      unless given. --allowed-ips: the only source addresses it may be used from, comma-separated
      IPv4 or IPv6 addresses or CIDR ranges (at most ${MAX_ALLOWED_IPS}); any address unless given. Neither
      changes after the key is made: issue another key instead.
  revoke-key --merchant MERCHANT_ID --key KEY_ID
  invite --merchant MERCHANT_ID --email ADDRESS [--role owner|developer|viewer] [--json]
      Invites a person to the merchant's dashboard (an owner unless --role says otherwise): prints
      a one-time link, valid 72 hours, to hand them; the gateway sends no e-mail. A merchant's
      owners invite the others from the dashboard.
  list [--json]
      Merchants and their keys (ids, names, hints, status and last use; never the keys themselves).
  onchain-deposits --merchant MERCHANT_ID --on|--off [--json]
      Whether transfers seen on chain to the merchant's customers are credited. While off they
      are held; once on, the chain watchers credit the held ones on their next runs.
  add-payout-address --merchant MERCHANT_ID --network NETWORK --address ADDRESS [--label LABEL] [--json]
      Adds an address the merchant's crypto payouts may go to, on one of ${CRYPTO_NETWORKS.join(', ')}:
      checked for its network and kept in its canonical form, pending for the merchant's delay
      (set-payout-address-delay), then active. Recorded in the merchant's audit log as operator.
      Owners add theirs in the dashboard; no API key can.
  remove-payout-address --merchant MERCHANT_ID --id ADDRESS_ID
      Removes the address at once: no payout goes to it from then on. Recorded in the audit log.
  payout-addresses --merchant MERCHANT_ID [--json]
      The merchant's payout addresses, newest first, with their status and when each is active.
  set-payout-address-delay --merchant MERCHANT_ID --seconds SECONDS [--json]
      How long the merchant's new payout addresses wait before they are active (0 to ${MAX_PAYOUT_ADDRESS_DELAY_SECONDS});
      addresses added before keep their time. Unless set: 86400 in prod, 0 on the demo stage and locally.
  held-deposits [--merchant MERCHANT_ID] [--json]
      On-chain transfers held, and why: the merchant does not take on-chain deposits, or the
      customer has no invoice to credit.
  balances --merchant MERCHANT_ID [--json]
      The merchant's balance in each currency, with every entry that made it, in the order posted;
      without --json, first the hold on its payouts, if the books check placed one, and the hold
      cleared last.
  adjust --merchant MERCHANT_ID --currency CODE --amount=SIGNED_AMOUNT --reason TEXT [--json]
      Corrects the merchant's available balance by the amount (--amount=250.00, --amount=-12.50),
      recorded as an adjustment entry with the reason. Refused if it would take available below zero.
  rebuild-balances --merchant MERCHANT_ID [--json]
      Writes the entries of the merchant's transactions recorded before the books existed (each
      once: running it again writes nothing more), then sets each balance to the sums of its
      entries, and prints what it found.
  clear-books-hold --merchant MERCHANT_ID --reason TEXT [--json]
      Accepts the merchant's withdrawals again after the books check found its books off and held
      its payouts: clears the hold as read, kept with the reason as the hold cleared last. If the
      books still differ, the next check holds the payouts again.
  full-books-check [--json]
      Asks the books check for a full pass: its next hourly run begins one (a pass under way
      begins again), reading every merchant's books from the first entry, and the runs after go
      on with it until every merchant is read. Prints where the passes stand.
  recount-daily-totals --merchant MERCHANT_ID [--json]
      Counts the merchant's totals of the overview's 30 UTC days (confirmed volume per currency,
      invoices created and completed) again from its transactions and invoices, and sets them:
      for merchants whose records predate the totals. Running it again writes the same.
  backfill-addresses [--json]
      Names the owner of every customer's Bitcoin and Tron address, for wallets allocated while
      only EVM addresses were watched, so that the chain watchers see payments to them. Running
      it again writes nothing more.
  treasury [--json]
      The treasury's account of each chain family (evm, tron, bitcoin): its address, what it holds
      of each asset on each network the environment has a node of, and what the payouts waiting
      to be sent need of it.
  rotate-receipt-key [--json]
      Makes a new transaction receipt key the one receipts are signed with; the keys before it stay
      in GET /.well-known/jwks.json, so receipts they signed still verify. Local gateway only: in
      AWS a rotation is a deployment (docs/operations.md#receipt-keys).
  redrive-callbacks [--json]
      Delivers again every callback parked after its 72-hour retry window, each with a new
      window. Local gateway only: its queues live in memory, so the callback outbox, which
      records every parked callback, is the source; the gateway's outbox sweep publishes
      them within seconds. Not with --aws: in AWS, move the messages of the dead-letter queue
      (stack output CallbackDlqUrl) into the callbacks queue (CallbackQueueUrl) with SQS's own
      redrive, StartMessageMoveTask, naming the callbacks queue as the destination (the sender
      parks messages itself, so SQS knows no source queue for them):
        aws sqs start-message-move-task --source-arn <DLQ ARN> --destination-arn <queue ARN>
      The callback sender reopens each parked entry, with a new window, as it receives it.

Where:
  default                                the local gateway running from $GATEWAY_DATA_DIR (${DEFAULT_DATA_DIR})
  --aws --stage prod|demo [--region R]   a deployed environment, with the usual AWS credentials
`;

const OPTIONS = {
  name: { type: 'string' },
  scopes: { type: 'string' },
  'allowed-ips': { type: 'string' },
  'callback-url': { type: 'string' },
  'return-url': { type: 'string' },
  fee: { type: 'string' },
  merchant: { type: 'string' },
  key: { type: 'string' },
  currency: { type: 'string' },
  amount: { type: 'string' },
  reason: { type: 'string' },
  email: { type: 'string' },
  role: { type: 'string' },
  network: { type: 'string' },
  address: { type: 'string' },
  label: { type: 'string' },
  id: { type: 'string' },
  seconds: { type: 'string' },
  json: { type: 'boolean' },
  on: { type: 'boolean' },
  off: { type: 'boolean' },
  aws: { type: 'boolean' },
  stage: { type: 'string' },
  region: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const;

type OptionName = keyof typeof OPTIONS;
type Values = { [K in OptionName]?: (typeof OPTIONS)[K]['type'] extends 'boolean' ? boolean : string };

const COMMAND_OPTIONS = {
  create: ['name', 'callback-url', 'return-url', 'fee', 'scopes', 'allowed-ips', 'json'],
  'add-key': ['merchant', 'name', 'scopes', 'allowed-ips', 'json'],
  'revoke-key': ['merchant', 'key'],
  invite: ['merchant', 'email', 'role', 'json'],
  list: ['json'],
  'redrive-callbacks': ['json'],
  'onchain-deposits': ['merchant', 'on', 'off', 'json'],
  'held-deposits': ['merchant', 'json'],
  'add-payout-address': ['merchant', 'network', 'address', 'label', 'json'],
  'remove-payout-address': ['merchant', 'id'],
  'payout-addresses': ['merchant', 'json'],
  'set-payout-address-delay': ['merchant', 'seconds', 'json'],
  balances: ['merchant', 'json'],
  adjust: ['merchant', 'currency', 'amount', 'reason', 'json'],
  'rebuild-balances': ['merchant', 'json'],
  'clear-books-hold': ['merchant', 'reason', 'json'],
  'full-books-check': ['json'],
  'recount-daily-totals': ['merchant', 'json'],
  'backfill-addresses': ['json'],
  treasury: ['json'],
  'rotate-receipt-key': ['json'],
} as const satisfies Record<string, readonly OptionName[]>;
const TARGET_OPTIONS: readonly OptionName[] = ['aws', 'stage', 'region', 'help'];

type CommandName = keyof typeof COMMAND_OPTIONS;

type Command =
  | { name: 'create'; input: NewMerchantInput; key: KeyRequest; json: boolean }
  | { name: 'add-key'; merchantId: string; key: KeyRequest; json: boolean }
  | { name: 'revoke-key'; merchantId: string; keyId: string }
  | { name: 'invite'; merchantId: string; invitation: InvitationRequest; json: boolean }
  | { name: 'list'; json: boolean }
  | { name: 'redrive-callbacks'; json: boolean }
  | { name: 'onchain-deposits'; merchantId: string; on: boolean; json: boolean }
  | { name: 'held-deposits'; merchantId?: string; json: boolean }
  | { name: 'add-payout-address'; merchantId: string; address: NewPayoutAddressRequest; json: boolean }
  | { name: 'remove-payout-address'; merchantId: string; id: string }
  | { name: 'payout-addresses'; merchantId: string; json: boolean }
  | { name: 'set-payout-address-delay'; merchantId: string; seconds: number; json: boolean }
  | { name: 'balances'; merchantId: string; json: boolean }
  | { name: 'adjust'; merchantId: string; adjustment: AdjustmentRequest; json: boolean }
  | { name: 'rebuild-balances'; merchantId: string; json: boolean }
  | { name: 'clear-books-hold'; merchantId: string; reason: string; json: boolean }
  | { name: 'recount-daily-totals'; merchantId: string; json: boolean }
  | { name: 'backfill-addresses'; json: boolean }
  | { name: 'treasury'; json: boolean }
  | { name: 'rotate-receipt-key'; json: boolean }
  | { name: 'full-books-check'; json: boolean };

type Where = { aws: false } | { aws: true; stage: Stage; region?: string };

class UsageError extends Error {}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const FEE = /^\d{1,3}(\.\d{1,4})?$/;

const SIGNED_AMOUNT = /^-?\d+(\.\d+)?$/;

function required(values: Values, option: 'name' | 'merchant' | 'key' | 'id' | 'currency' | 'amount' | 'reason' | 'seconds'): string {
  const value = values[option]?.trim();
  if (!value) throw new UsageError(`--${option} is required`);
  return value;
}

function id(values: Values, option: 'merchant' | 'key' | 'id'): string {
  const value = required(values, option);
  if (!UUID.test(value)) throw new UsageError(`--${option} must be an id as printed by create or list`);
  return value;
}

/** The rules `PATCH /api/v2/merchant` applies: https only in production. */
function url(values: Values, option: 'callback-url' | 'return-url', stage: Stage): string | undefined {
  const value = values[option];
  if (value === undefined) return undefined;
  const problem = merchantUrlProblem(value, stage);
  if (problem) throw new UsageError(`--${option} ${problem}`);
  return normalizedUrl(value);
}

const listOption = (value: string | undefined): string[] | undefined =>
  value === undefined
    ? undefined
    : value
        .split(',')
        .map((entry) => entry.trim())
        .filter((entry) => entry !== '');

/** A key's name, scopes and addresses, by the rules of the dashboard's form (docs/merchant-guide.md#key-scopes). */
function keyRequest(values: Values, { named }: { named: boolean }): KeyRequest {
  const parsed = newApiKeyRequestSchema.partial().safeParse({
    ...(named && values.name !== undefined && { name: values.name }),
    ...(values.scopes !== undefined && { scopes: listOption(values.scopes) }),
    ...(values['allowed-ips'] !== undefined && { allowedIps: listOption(values['allowed-ips']) }),
  });
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const option = { name: '--name', scopes: '--scopes', allowedIps: '--allowed-ips' }[String(issue.path[0]) as 'name' | 'scopes' | 'allowedIps'];
    throw new UsageError(option === '--scopes' ? `--scopes is a comma-separated list of ${API_KEY_SCOPES.join(', ')}` : `${option} ${issue.message}`);
  }
  return parsed.data;
}

/** The address to add, by the dashboard's form's rules; whether it is an address of its network is the service's to say. */
function payoutAddressRequest(values: Values): NewPayoutAddressRequest {
  const parsed = newPayoutAddressRequestSchema.safeParse({ network: values.network, address: values.address ?? '', ...(values.label !== undefined && { label: values.label }) });
  if (parsed.success) return parsed.data;
  const option = String(parsed.error.issues[0]!.path[0]);
  if (option === 'network') throw new UsageError(`--network is one of ${CRYPTO_NETWORKS.join(', ')}`);
  if (option === 'address') throw new UsageError('--address is required');
  throw new UsageError(`--label ${parsed.error.issues[0]!.message}`);
}

function fee(values: Values): string | undefined {
  const value = values.fee;
  if (value === undefined) return undefined;
  if (!FEE.test(value) || Number(value) > 100) throw new UsageError('--fee must be a percentage from 0 to 100, e.g. 1.5');
  return value;
}

function parseWhere(values: Values): Where {
  if (!values.aws) {
    if (values.stage !== undefined || values.region !== undefined) throw new UsageError('--stage and --region go with --aws');
    return { aws: false };
  }
  const stage = values.stage;
  if (!stage || !(STAGES as readonly string[]).includes(stage)) throw new UsageError(`--aws needs --stage ${STAGES.join('|')}`);
  return { aws: true, stage: stage as Stage, region: values.region };
}

function parseCommand(name: CommandName, values: Values, stage: Stage): Command {
  switch (name) {
    case 'create':
      return {
        name,
        input: {
          name: required(values, 'name'),
          callbackUrl: url(values, 'callback-url', stage),
          returnUrl: url(values, 'return-url', stage),
          processingFeePercent: fee(values),
        },
        key: keyRequest(values, { named: false }),
        json: values.json ?? false,
      };
    case 'add-key':
      return { name, merchantId: id(values, 'merchant'), key: keyRequest(values, { named: true }), json: values.json ?? false };
    case 'revoke-key':
      return { name, merchantId: id(values, 'merchant'), keyId: id(values, 'key') };
    case 'invite': {
      const invitation = invitationRequestSchema.safeParse({ email: values.email ?? '', role: values.role ?? 'owner' });
      if (!invitation.success) throw new UsageError(invitation.error.issues[0]!.path[0] === 'role' ? '--role is owner, developer or viewer' : '--email must be an e-mail address');
      return { name, merchantId: id(values, 'merchant'), invitation: invitation.data, json: values.json ?? false };
    }
    case 'list':
    case 'redrive-callbacks':
    case 'backfill-addresses':
    case 'full-books-check':
    case 'treasury':
    case 'rotate-receipt-key':
      return { name, json: values.json ?? false };
    case 'onchain-deposits':
      if (values.on === values.off) throw new UsageError('onchain-deposits needs exactly one of --on and --off');
      return { name, merchantId: id(values, 'merchant'), on: values.on === true, json: values.json ?? false };
    case 'held-deposits':
      return { name, merchantId: values.merchant === undefined ? undefined : id(values, 'merchant'), json: values.json ?? false };
    case 'add-payout-address':
      return { name, merchantId: id(values, 'merchant'), address: payoutAddressRequest(values), json: values.json ?? false };
    case 'remove-payout-address':
      return { name, merchantId: id(values, 'merchant'), id: id(values, 'id') };
    case 'payout-addresses':
      return { name, merchantId: id(values, 'merchant'), json: values.json ?? false };
    case 'set-payout-address-delay': {
      const seconds = required(values, 'seconds');
      if (!/^\d{1,7}$/.test(seconds) || Number(seconds) > MAX_PAYOUT_ADDRESS_DELAY_SECONDS) {
        throw new UsageError(`--seconds must be a whole number of seconds from 0 to ${MAX_PAYOUT_ADDRESS_DELAY_SECONDS}`);
      }
      return { name, merchantId: id(values, 'merchant'), seconds: Number(seconds), json: values.json ?? false };
    }
    case 'balances':
    case 'rebuild-balances':
    case 'recount-daily-totals':
      return { name, merchantId: id(values, 'merchant'), json: values.json ?? false };
    case 'clear-books-hold':
      return { name, merchantId: id(values, 'merchant'), reason: required(values, 'reason'), json: values.json ?? false };
    case 'adjust': {
      const amount = required(values, 'amount');
      if (!SIGNED_AMOUNT.test(amount)) throw new UsageError('--amount must be a signed decimal amount, e.g. --amount=250.00 or --amount=-12.50');
      const adjustment = { currency: required(values, 'currency').toUpperCase(), amount: new Decimal(amount), reason: required(values, 'reason') };
      return { name, merchantId: id(values, 'merchant'), adjustment, json: values.json ?? false };
    }
  }
}

type Invocation = { help: true } | { help: false; where: Where; command: Command };

function parseInvocation(argv: string[]): Invocation {
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
  const { values, positionals } = parsed;
  if (values.help) return { help: true };
  const [name, ...extra] = positionals;
  if (name === undefined) throw new UsageError('a command is required');
  if (!Object.hasOwn(COMMAND_OPTIONS, name)) throw new UsageError(`unknown command ${name}`);
  if (extra.length > 0) throw new UsageError(`unexpected argument ${extra[0]}`);
  const commandName = name as CommandName;
  const allowed: readonly OptionName[] = [...COMMAND_OPTIONS[commandName], ...TARGET_OPTIONS];
  const stray = (Object.keys(values) as OptionName[]).find((option) => !allowed.includes(option));
  if (stray) throw new UsageError(`--${stray} is not an option of ${commandName}`);
  const where = parseWhere(values);
  if (commandName === 'redrive-callbacks' && where.aws) {
    throw new UsageError('redrive-callbacks works on the local gateway only; in AWS use SQS redrive (StartMessageMoveTask) from CallbackDlqUrl, see below');
  }
  return { help: false, where, command: parseCommand(commandName, values, where.aws ? where.stage : LOCAL_STAGE) };
}

const json = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

/** An entry as the merchant sees it, with an adjustment's reason, which only the operator sees. */
const entryOf = (entry: BalanceEntry) => ({ ...balanceEntryView(entry), ...(entry.reason === undefined ? {} : { reason: entry.reason }) });

const balanceLine = ({ currency, available, reserved }: Pick<Balance, 'currency' | 'available' | 'reserved'>, entries: number): string =>
  `${currency}  available ${available}  reserved ${reserved}  (${entries} ${entries === 1 ? 'entry' : 'entries'})`;

/** The days that had anything, oldest first: the invoices created and completed, and the volume per currency. */
function countedDays(days: readonly string[], totals: DayTotals) {
  const currencies = [...totals.volumes.keys()].sort();
  return days.flatMap((day) => {
    const volumes = Object.fromEntries(
      currencies.flatMap((currency) => {
        const amount = totals.volumes.get(currency)!.get(day);
        return amount === undefined ? [] : [[currency, amount]];
      }),
    );
    const invoices = totals.invoices.get(day) ?? { created: 0, completed: 0 };
    return invoices.created + invoices.completed > 0 || Object.keys(volumes).length > 0 ? [{ day, ...invoices, volumes }] : [];
  });
}

/** A hold on payouts, for a person: when, which run of the check, and what it found. */
const holdText = ({ heldAt, run, differences, currencies, transactionIds }: BooksHold): string =>
  [
    `placed ${heldAt} by the books check of ${run.at} (request id ${run.id}): ${differences} ${differences === 1 ? 'difference' : 'differences'}`,
    ...(currencies.length > 0 ? [`balances off in ${currencies.join(', ')}`] : []),
    ...(transactionIds.length > 0 ? [`entries missing for transactions ${transactionIds.join(', ')}`] : []),
  ].join('; ');

const entryLine = (entry: BalanceEntry): string => {
  const { createdAt, type, amount, availableAfter, reservedAfter, transactionId } = balanceEntryView(entry);
  const signed = amount.startsWith('-') ? amount : `+${amount}`;
  return `  ${createdAt}  ${type.padEnd(14)}  ${signed.padStart(16)}  available ${availableAfter}  reserved ${reservedAfter}  ${transactionId ? `transaction ${transactionId}` : `(${entry.reason})`}`;
};

const payoutAddressLine = (address: PayoutAddressView): string =>
  `${address.id}  ${address.network}  ${address.address}  ${address.label === null ? '(no label)' : JSON.stringify(address.label)}  ${address.status}${address.status === 'pending' ? ` until ${address.activatesAt}` : ''}  added ${address.createdAt}`;
const amountLines = (amounts: readonly TreasuryAmount[]): string[] => amounts.map(({ network, asset, amount }) => `    ${network.padEnd(9)} ${asset.padEnd(5)} ${amount}`);

const describeAllowedIps = (allowedIps: readonly string[]): string => (allowedIps.length === 0 ? 'any address' : allowedIps.join(', '));

async function run(command: Command, target: Target): Promise<string> {
  const { admin, description } = target;
  switch (command.name) {
    case 'create': {
      const { merchant, callbackSecret, key } = await admin.createMerchant(command.input, command.key);
      const created = { merchantId: merchant.id, keyId: key.keyId, apiKey: key.apiKey, callbackSecret };
      if (command.json) return json(created);
      return [
        `Created merchant ${merchant.id} (${merchant.name}) in ${description}.`,
        `Key id:          ${key.keyId}`,
        `API key:         ${key.apiKey}`,
        `Scopes:          ${key.scopes.join(', ')}`,
        `Allowed from:    ${describeAllowedIps(key.allowedIps)}`,
        `Callback secret: ${callbackSecret}`,
        'The API key and the callback secret are shown this once; keep them now.',
        '',
      ].join('\n');
    }
    case 'add-key': {
      const key = await admin.addKey(command.merchantId, command.key);
      if (command.json) return json({ merchantId: key.merchantId, keyId: key.keyId, apiKey: key.apiKey });
      return [
        `Added key ${key.keyId} to merchant ${key.merchantId}.`,
        `API key: ${key.apiKey}`,
        `Scopes: ${key.scopes.join(', ')}`,
        `Allowed from: ${describeAllowedIps(key.allowedIps)}`,
        'It is shown this once; keep it now.',
        '',
      ].join('\n');
    }
    case 'invite': {
      const { access, publicBaseUrl } = target.dashboard();
      const { token, invitation } = await admin.invite(command.merchantId, command.invitation, access);
      const link = `${publicBaseUrl}/dashboard/join/${token}`;
      if (command.json) return json({ merchantId: invitation.merchantId, email: invitation.email, role: invitation.role, link, expiresAt: invitation.expiresAt });
      return [
        `Invited ${invitation.email} (${invitation.role}) to merchant ${invitation.merchantId}'s dashboard.`,
        `Link: ${link}`,
        `It works once, until ${invitation.expiresAt}; hand it to them now.`,
        '',
      ].join('\n');
    }
    case 'revoke-key':
      await admin.revokeKey(command.merchantId, command.keyId);
      return `Revoked key ${command.keyId} of merchant ${command.merchantId}.\n`;
    case 'list': {
      const merchants = (await admin.list()).map(({ merchant, keys, onchainDeposits }) => ({
        merchantId: merchant.id,
        name: merchant.name,
        callbackUrl: merchant.callbackUrl,
        returnUrl: merchant.returnUrl,
        processingFeePercent: merchant.processingFeePercent,
        onchainDeposits,
        createdAt: merchant.createdAt,
        // As the merchant's dashboard lists them: never a key's text or digest.
        keys,
      }));
      if (command.json) return json(merchants);
      if (merchants.length === 0) return `No merchants in ${description}.\n`;
      return merchants
        .map((m) =>
          [
            `${m.merchantId}  ${m.name}  fee ${m.processingFeePercent}%  callback ${m.callbackUrl ?? 'none'}  on-chain deposits ${m.onchainDeposits ? 'on' : 'off'}`,
            ...m.keys.map(
              (k) =>
                `  key ${k.id}  ${k.hint}  ${k.status}${k.revokedAt ? ` ${k.revokedAt}` : ''}  ${k.name === null ? '(no name)' : JSON.stringify(k.name)}  ` +
                `last used ${k.lastUsedAt ?? 'never'}\n    scopes ${k.scopes.join(', ')}; from ${describeAllowedIps(k.allowedIps)}`,
            ),
          ].join('\n'),
        )
        .join('\n')
        .concat('\n');
    }
    case 'onchain-deposits': {
      const merchant = await admin.setOnchainDeposits(command.merchantId, command.on);
      if (command.json) return json({ merchantId: merchant.id, onchainDeposits: command.on });
      return `On-chain deposits are ${command.on ? 'on' : 'off'} for merchant ${merchant.id} in ${description}.${command.on ? ' Held transfers are credited by the next chain watcher runs.' : ''}\n`;
    }
    case 'add-payout-address': {
      const added = await admin.addPayoutAddress(command.merchantId, command.address, target.payoutAddresses());
      if (command.json) return json(added);
      return `Added payout address ${added.id} of merchant ${command.merchantId} in ${description}: ${added.network} ${added.address}, ${added.status === 'active' ? 'active now' : `active from ${added.activatesAt}`}.\n`;
    }
    case 'remove-payout-address':
      await admin.removePayoutAddress(command.merchantId, command.id, target.payoutAddresses());
      return `Removed payout address ${command.id} of merchant ${command.merchantId}: no payout goes to it from now on.\n`;
    case 'payout-addresses': {
      const addresses = await admin.payoutAddresses(command.merchantId, target.payoutAddresses());
      if (command.json) return json(addresses);
      if (addresses.length === 0) return `Merchant ${command.merchantId} has no payout addresses in ${description}.\n`;
      return addresses.map(payoutAddressLine).join('\n').concat('\n');
    }
    case 'set-payout-address-delay': {
      const merchant = await admin.setPayoutAddressDelay(command.merchantId, command.seconds);
      if (command.json) return json({ merchantId: merchant.id, payoutAddressDelaySeconds: command.seconds });
      return `New payout addresses of merchant ${merchant.id} are active ${command.seconds} seconds after they are added, in ${description}; those added before keep their time.\n`;
    }
    case 'held-deposits': {
      const held = await admin.heldDeposits(command.merchantId);
      if (command.json) return json(held);
      if (held.length === 0) return `No held on-chain transfers in ${description}.\n`;
      return held
        .map((h) => `${h.seenAt}  ${h.network}  ${h.amount} ${h.asset}  to ${h.to}  merchant ${h.merchantId} customer ${h.customerId}  tx ${h.transactionHash}  (${h.reason})`)
        .join('\n')
        .concat('\n');
    }
    case 'balances': {
      const { booksHold, booksHoldCleared, balances } = await target.books().statement(command.merchantId);
      if (command.json) {
        return json(balances.map(({ balance: { currency, available, reserved }, entries }) => ({ currency, available, reserved, entries: entries.map(entryOf) })));
      }
      return [
        ...(booksHold ? [`Payouts held (withdrawals answer 423 until clear-books-hold): ${holdText(booksHold)}`] : []),
        ...(booksHoldCleared ? [`Hold cleared last ${booksHoldCleared.clearedAt} (${booksHoldCleared.reason}), ${holdText(booksHoldCleared)}`] : []),
        ...(balances.length === 0
          ? [`Merchant ${command.merchantId} has no balance in ${description}.`]
          : balances.map(({ balance, entries }) => [balanceLine(balance, entries.length), ...entries.map(entryLine)].join('\n'))),
        '',
      ].join('\n');
    }
    case 'adjust': {
      const { balance, entries } = await target.books().adjust(command.merchantId, command.adjustment);
      const [entry] = entries;
      if (command.json) return json({ entry: entryOf(entry!), balance: { currency: balance.currency, available: balance.available, reserved: balance.reserved } });
      return `Adjusted the ${balance.currency} balance of merchant ${command.merchantId} by ${balanceEntryView(entry!).amount} (${entry!.reason}) in ${description}: available ${balance.available}, reserved ${balance.reserved}.\n`;
    }
    case 'rebuild-balances': {
      const report = await target.books().rebuild(command.merchantId);
      if (command.json) return json(report);
      return [
        `Booked ${report.booked} transaction${report.booked === 1 ? '' : 's'} of merchant ${command.merchantId} recorded before the books, in ${description}.`,
        ...report.balances.map((check) => `${balanceLine(check, check.entries)}  ${check.corrected ? 'corrected to the sums of its entries' : 'already the sums of its entries'}`),
        '',
      ].join('\n');
    }
    case 'clear-books-hold': {
      const cleared = await target.books().clearHold(command.merchantId, command.reason);
      if (command.json) return json({ merchantId: command.merchantId, cleared: cleared ?? null });
      if (!cleared) return `The payouts of merchant ${command.merchantId} are not held in ${description}; nothing was cleared.\n`;
      return [
        `Cleared the hold on the payouts of merchant ${command.merchantId} in ${description} (${cleared.reason}): withdrawals are accepted again.`,
        `The hold was ${holdText(cleared)}.`,
        'If the books still differ, the next books check holds the payouts again.',
        '',
      ].join('\n');
    }
    case 'full-books-check': {
      const { passAskedAt, pass, lastPass } = await target.booksCheck().askForPass(new Date());
      if (command.json) return json({ askedAt: passAskedAt, pass: pass ? { startedAt: pass.startedAt, merchants: pass.merchants } : null, lastPass: lastPass ?? null });
      return [
        `Asked for a full pass of the books check in ${description} at ${passAskedAt}: the next hourly run of check-books begins it, and the runs after go on with it until every merchant is read.`,
        pass ? `A pass under way since ${pass.startedAt} (${pass.merchants} merchants read) begins again.` : 'No pass is under way.',
        lastPass ? `The last full pass began ${lastPass.startedAt} and finished ${lastPass.finishedAt}.` : 'No full pass has finished yet.',
        '',
      ].join('\n');
    }
    case 'recount-daily-totals': {
      const days = chartDays(new Date());
      const counted = countedDays(days, await target.dailyTotals().recount(command.merchantId, days));
      const [from, to] = [days[0]!, days.at(-1)!];
      if (command.json) return json({ merchantId: command.merchantId, from, to, days: counted });
      return [
        `Counted the day totals of merchant ${command.merchantId} from ${from} to ${to} (UTC) again in ${description}${counted.length === 0 ? ': nothing on any day.' : ':'}`,
        ...counted.map(({ day, created, completed, volumes }) => {
          const volume = Object.entries(volumes).map(([currency, amount]) => `${amount} ${currency}`);
          return `${day}  invoices created ${created}  completed ${completed}  confirmed volume ${volume.length === 0 ? 'none' : volume.join(', ')}`;
        }),
        '',
      ].join('\n');
    }
    case 'backfill-addresses': {
      const { customers, written } = await target.wallets().backfillOwners();
      if (command.json) return json({ customers, written });
      return `Read ${customers} customer wallet${customers === 1 ? '' : 's'} in ${description} and named the owner of ${written} address${written === 1 ? '' : 'es'} that had none.\n`;
    }
    case 'treasury': {
      const report = await treasuryReport(await target.treasury());
      if (command.json) return json(report);
      return [
        `The treasury of ${description}:`,
        ...report.families.flatMap(({ family, address, balances, needed }) => [
          `${family.padEnd(8)} ${address}`,
          ...(balances.length === 0 ? ['  holds: no network of this family has a node here'] : ['  holds:', ...amountLines(balances)]),
          ...(needed.length === 0 ? ['  needed: nothing queued'] : ['  needed by queued payouts:', ...amountLines(needed)]),
        ]),
        '',
      ].join('\n');
    }
    case 'rotate-receipt-key': {
      if (!target.receiptKeys) throw new Error(`rotate-receipt-key is not available for ${description}: in AWS a rotation is a deployment (docs/operations.md#receipt-keys)`);
      const current = await target.receiptKeys.rotate();
      const retired = (await target.receiptKeys.publicKeys()).map(({ kid }) => kid).filter((kid) => kid !== current);
      if (command.json) return json({ current, retired });
      return `Receipts of ${description} are signed with key ${current} from now on; the JWKS keeps ${retired.length} retired key${retired.length === 1 ? '' : 's'} for the receipts signed before: ${retired.join(', ')}\n`;
    }
    case 'redrive-callbacks': {
      if (!target.callbacks) throw new Error(`redrive-callbacks is not available for ${description}`);
      const requeued = await target.callbacks.redriveParked();
      if (command.json) return json({ requeued });
      if (requeued === 0) return `No parked callbacks in ${description}.\n`;
      return `Handed ${requeued} parked callback${requeued === 1 ? '' : 's'} back for delivery in ${description}, each with a new 72-hour window; the outbox sweep publishes them within seconds.\n`;
    }
  }
}

export interface CliIo {
  env: NodeJS.ProcessEnv;
  out(text: string): void;
  err(text: string): void;
}

/** Runs one command; resolves to the exit code (0 done, 1 failed, 2 usage error). */
export async function runMerchantCli(argv: string[], io: CliIo): Promise<number> {
  let invocation: Invocation;
  try {
    invocation = parseInvocation(argv);
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.err(`merchant: ${error.message}\n\n${USAGE}`);
    return 2;
  }
  if (invocation.help) {
    io.out(USAGE);
    return 0;
  }

  const { where, command } = invocation;
  // A deployed stage calls back public addresses only: the URL is judged as PATCH /api/v2/merchant judges it.
  const guardProblem = where.aws && command.name === 'create' && command.input.callbackUrl ? await nonPublicUrlProblem(command.input.callbackUrl) : undefined;
  if (guardProblem) {
    io.err(`merchant: --callback-url ${guardProblem}\n\n${USAGE}`);
    return 2;
  }

  let target: Target | undefined;
  try {
    target = where.aws ? await awsTarget(where.stage, where.region) : await localTarget(io.env.GATEWAY_DATA_DIR || DEFAULT_DATA_DIR);
    io.out(await run(command, target));
    return 0;
  } catch (error) {
    io.err(`merchant: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  } finally {
    target?.close();
  }
}
