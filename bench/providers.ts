/**
 * What a payment provider costs the gateway (docs/provider-protocol.md), with the demo provider in its own
 * process over HTTP, as `npm start` runs it, and the functions in this process behind the local
 * API Gateway emulation (its per-key throttle lifted: the route's cost is measured, not the usage
 * plan's):
 * - the checkout: the step that makes the payment at the provider (gateway to provider and back),
 *   beside the same step once the payment exists (no provider call) and beside a signed
 *   `POST /payments` sent to the provider directly; what the gateway adds around the provider's
 *   own answer is the difference;
 * - the events route: confirmed payments signed as a provider signs them, beside the
 *   simulate-deposit route recording the same deposits for a merchant.
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { startBenchStores } from './bench-stores.js';
import { figures, loadEach, round, type LoadFigures } from './load.js';
import { positiveOption } from './options.js';

export const DESCRIPTION = 'latency a provider adds to the checkout beside a direct call to it; the provider events route beside simulate-deposit';

const GOALS = {
  /** The checkout's own work around the provider's answer: one conditional write and a page. */
  checkoutOverheadMs: 50,
  /** The events route does what simulate-deposit does, plus a signature and a deduplication claim. */
  eventsThroughput: 0.8,
} as const;

interface Options {
  payments: number;
  events: number;
  concurrency: number;
}

function parseOptions(args: string[]): Options {
  const { values } = parseArgs({
    args,
    strict: true,
    options: { payments: { type: 'string', default: '40' }, events: { type: 'string', default: '200' }, concurrency: { type: 'string', default: '10' } },
  });
  return {
    payments: positiveOption('payments', values.payments, true),
    events: positiveOption('events', values.events, true),
    concurrency: positiveOption('concurrency', values.concurrency, true),
  };
}

const timed = async <T>(work: () => Promise<T>): Promise<[T, number]> => {
  const started = performance.now();
  const result = await work();
  return [result, performance.now() - started];
};

const row = (label: string, figures: LoadFigures) =>
  console.log(`${label.padEnd(44)}${String(figures.p50).padStart(9)}${String(figures.p95).padStart(9)}${String(figures.rps).padStart(10)}${String(figures.failures).padStart(9)}`);

export async function providersBenchmark(args: string[]): Promise<void> {
  const options = parseOptions(args);
  const stores = await startBenchStores('providers-bench', { demoProvider: true });
  const { tables } = stores;
  try {
    const [{ createTestGateway, invoke }, { seedMerchant }, { TokenBucketThrottle }, { localStageConfiguration }, { signMessage }, { DynamoInvoiceStore }, { documentClient }] = await Promise.all([
      import('../test/support/invoke.js'),
      import('../test/support/merchants.js'),
      import('../infra/local/throttle.js'),
      import('../test/support/stage-configuration.js'),
      import('../shared/connectors/protocol/messages.js'),
      import('../shared/store/invoices.js'),
      import('../shared/store/dynamo.js'),
    ]);
    const gateway = createTestGateway({ throttle: new TokenBucketThrottle({ ratePerSecond: 1_000_000, burst: 1_000_000 }) });
    const merchant = await seedMerchant({ name: 'Bench shop' });
    const provider = localStageConfiguration().providers[0]!;
    if (provider.secret.kind !== 'inline') throw new Error('The demo provider is configured without its secret');
    const secret = provider.secret.value;

    const createInvoice = async (fields: Record<string, unknown>): Promise<string> => {
      const created = await invoke('create-invoice', { gateway, apiKey: merchant.apiKey, body: { orderId: `bench-${randomUUID()}`, customerId: `cust-${randomUUID().slice(0, 8)}`, ...fields } });
      if (created.status !== 200) throw new Error(`create-invoice answered ${created.status}: ${JSON.stringify(created.body)}`);
      return created.body.data.id;
    };

    // The checkout: INR invoices with every detail, whose customer picks the provider.
    const INR = { baseCurrency: 'INR', amount: 1500, customerFirstName: 'Asha', customerLastName: 'Rao', customerEmail: 'asha@example.com' };
    const checkout = { first: [] as number[], again: [] as number[], direct: [] as number[] };
    let [checkoutFailures, directFailures] = [0, 0];
    // The first round loads the functions and opens the connections: it is not counted.
    for (let i = -1; i < options.payments; i++) {
      const invoiceId = await createInvoice(INR);
      const step = () => invoke('get-checkout-provider', { gateway, pathParameters: { invoiceId }, query: { provider: provider.id } });
      const [first, firstMs] = await timed(step);
      const [again, againMs] = await timed(step);
      if (first.status !== 200 || again.status !== 200 || !String(first.body).includes('upi')) checkoutFailures++;
      // The same request as the gateway's, for a reference of no invoice.
      const body = JSON.stringify({
        reference: randomUUID(),
        amount: '1500.00',
        currency: 'INR',
        method: 'p2p',
        customer: { id: 'bench', fullName: null, firstName: 'Asha', lastName: 'Rao', email: 'asha@example.com', phone: null, account: null, country: null },
        returnUrl: 'http://localhost:3000/checkout/x/provider?from=provider',
        notifyUrl: `http://localhost:3000/api/v2/providers/${provider.id}/events`,
      });
      const signed = signMessage(secret, `payment:${randomUUID()}`, body, new Date());
      const [direct, directMs] = await timed(() =>
        fetch(`${provider.url}/payments`, { method: 'POST', headers: { 'content-type': 'application/json', ...signed.headers }, body }).then(async (response) => {
          await response.arrayBuffer();
          return response.status;
        }),
      );
      if (direct !== 201) directFailures++;
      if (i < 0) continue;
      checkout.first.push(firstMs);
      checkout.again.push(againMs);
      checkout.direct.push(directMs);
    }
    const elapsed = (ms: number[]) => ms.reduce((sum, value) => sum + value, 0) / 1000;
    const withProvider = figures(checkout.first, checkoutFailures, elapsed(checkout.first));
    const withoutProvider = figures(checkout.again, 0, elapsed(checkout.again));
    const direct = figures(checkout.direct, directFailures, elapsed(checkout.direct));
    const overhead = round(withProvider.p50 - withoutProvider.p50 - direct.p50);

    // The events route and simulate-deposit, each on invoices of its own whose payment is made.
    const TRY = { baseCurrency: 'TRY', amount: 1000, paymentMethod: 'wallet', customerFullName: 'Ada Lovelace' };
    const invoices = new DynamoInvoiceStore(documentClient, tables);
    const prepared = async (count: number) => {
      const ids: string[] = [];
      await loadEach(count, options.concurrency, async () => {
        ids.push(await createInvoice(TRY));
        return true;
      });
      return Promise.all(
        ids.map(async (id) => {
          const payment = (await invoices.get(id))?.providerPayment;
          if (!payment) throw new Error(`Invoice ${id} has no payment at the provider: is the provider up?`);
          return { id, providerReference: payment.providerReference };
        }),
      );
    };
    const [forEvents, forSimulation] = [await prepared(options.events), await prepared(options.events)];
    const events = await loadEach(forEvents.length, options.concurrency, async (i) => {
      const { id, providerReference } = forEvents[i]!;
      const body = JSON.stringify({ type: 'payment.confirmed', reference: id, providerReference, amount: '1000.00', currency: 'TRY' });
      const signed = signMessage(secret, `evt_${randomUUID()}`, body, new Date());
      const answer = await invoke('receive-provider-event', { gateway, pathParameters: { providerId: provider.id }, headers: signed.headers, body });
      return answer.status === 200;
    });
    const simulated = await loadEach(forSimulation.length, options.concurrency, async (i) => {
      const answer = await invoke('simulate-deposit', { gateway, apiKey: merchant.apiKey, body: { invoiceId: forSimulation[i]!.id } });
      return answer.status === 200;
    });

    console.log(`${'operation'.padEnd(44)}${'p50 ms'.padStart(9)}${'p95 ms'.padStart(9)}${'req/s'.padStart(10)}${'failures'.padStart(9)}`);
    row('checkout step, payment made at the provider', withProvider);
    row('checkout step, payment already made', withoutProvider);
    row('POST /payments to the provider directly', direct);
    console.log(`the checkout's own work around the provider's answer, p50: ${overhead} ms (goal ≤ ${GOALS.checkoutOverheadMs} ms)`);
    row(`provider events, ${options.concurrency} at a time`, events);
    row(`simulate-deposit, ${options.concurrency} at a time`, simulated);
    console.log(`events route throughput / simulate-deposit's: ${round(events.rps / simulated.rps)} (goal ≥ ${GOALS.eventsThroughput})`);
    documentClient.destroy();
  } finally {
    await stores.stop();
  }
}
