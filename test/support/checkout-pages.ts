/**
 * The hosted checkout of a running local runtime at every step a customer can see: invoices made
 * over HTTP as a merchant makes them, moved on through the checkout's own forms, the demo
 * provider's page and the simulation API, and, where no API reaches (a lapsed lifetime), written
 * in its database.
 */
import { randomInt, randomUUID } from 'node:crypto';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { GatewayProcess } from './gateway-process.js';
import { openRuntimeStack } from './runtime-stack.js';

export interface CheckoutDriver {
  /** `POST /api/v2/invoices` as the demo merchant; throws unless it answers 200. */
  createInvoice(fields: Record<string, unknown>): Promise<any>;
  /** A deposit of the whole amount through the simulation API. */
  /** Through the simulation API: the invoice's payment amount unless `amount` says less or more. */
  simulateDeposit(invoiceId: string, amount?: string): Promise<void>;
  /** A checkout form, posted as a browser posts it; throws unless it answers with a redirect. */
  postForm(link: string, step: string, fields: Record<string, string>): Promise<void>;
  /** A GET a browser makes, following no redirect; throws unless it answers 200 or 303. Resolves to where a 303 points. */
  visit(url: string): Promise<string | undefined>;
  /** The customer pays on the demo provider's page (the invoice has every detail); resolves once the provider sent them back. */
  payAtProvider(link: string, outcome: 'confirmed' | 'failed'): Promise<void>;
  /** Sets attributes on the invoice in the runtime's database, behind the API. */
  writeInvoice(invoiceId: string, values: Record<string, string>): Promise<void>;
  /** One invoice at each step a customer can see: page name to URL. The closed ones return to `returnUrl`. */
  everyCheckoutPage(returnUrl: (name: string) => string): Promise<Record<string, string>>;
}

const INR_DETAILS = { customerFirstName: 'Asha', customerLastName: 'Rao', customerEmail: 'asha@example.com' };

/** `gateway` should run with a long GATEWAY_PROVIDER_DELAY_S, so that a submitted UTR stays on the waiting page. */
export function checkoutDriver(gateway: GatewayProcess, dataDir: string): CheckoutDriver {
  const expectOk = async (response: Response, statuses: number[]) => {
    if (!statuses.includes(response.status)) throw new Error(`${response.url} answered ${response.status}: ${await response.text()}`);
    return response;
  };
  const driver: CheckoutDriver = {
    async createInvoice(fields) {
      const response = await fetch(`${gateway.baseUrl}/api/v2/invoices`, {
        method: 'POST',
        headers: { 'x-api-key': gateway.apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ orderId: randomUUID(), customerId: `c-${randomUUID()}`, ...fields }),
      });
      return ((await (await expectOk(response, [200])).json()) as { data: any }).data;
    },
    async simulateDeposit(invoiceId, amount) {
      const response = await fetch(`${gateway.baseUrl}/api/v2/simulate/deposit`, {
        method: 'POST',
        headers: { 'x-api-key': gateway.apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ invoiceId, amount }),
      });
      await expectOk(response, [200]);
    },
    async postForm(link, step, fields) {
      const response = await fetch(`${link}${step}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields).toString(),
        redirect: 'manual',
      });
      await expectOk(response, [303]);
    },
    async visit(url) {
      const response = await expectOk(await fetch(url, { redirect: 'manual' }), [200, 303]);
      await response.arrayBuffer();
      return response.headers.get('location') ?? undefined;
    },
    async payAtProvider(link, outcome) {
      const page = await driver.visit(`${link}/provider`);
      if (!page) throw new Error(`${link}/provider sent the customer to no provider`);
      await expectOk(await fetch(page, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ outcome }), redirect: 'manual' }), [303]);
    },
    async writeInvoice(invoiceId, values) {
      const stack = await openRuntimeStack(dataDir);
      try {
        const names = Object.keys(values);
        await stack.documentClient.send(
          new UpdateCommand({
            TableName: stack.info.tables.invoices,
            Key: { id: invoiceId },
            UpdateExpression: `SET ${names.map((name) => `#${name} = :${name}`).join(', ')}`,
            ExpressionAttributeNames: Object.fromEntries(names.map((name) => [`#${name}`, name])),
            ExpressionAttributeValues: Object.fromEntries(names.map((name) => [`:${name}`, values[name]])),
            ConditionExpression: 'attribute_exists(id)',
          }),
        );
      } finally {
        stack.close();
      }
    },
    async everyCheckoutPage(returnUrl) {
      const [crypto, partial, details, instructions, waiting, returned, paid, expired, rejected] = await Promise.all([
        driver.createInvoice({ baseCurrency: 'USDT', amount: 25 }),
        driver.createInvoice({ baseCurrency: 'USDT', amount: 25 }),
        driver.createInvoice({ baseCurrency: 'TRY', amount: 1000 }),
        // INR's one provider here leaves nothing to choose: its instructions come straight away.
        driver.createInvoice({ baseCurrency: 'INR', amount: 1000, ...INR_DETAILS }),
        driver.createInvoice({ baseCurrency: 'INR', amount: 1000, paymentMethod: 'p2p', ...INR_DETAILS }),
        driver.createInvoice({ baseCurrency: 'AZN', amount: 100, paymentMethod: 'p2p', customerFullName: 'Aysel Mammadova' }),
        driver.createInvoice({ baseCurrency: 'BTC', amount: 0.0015 }),
        driver.createInvoice({ baseCurrency: 'ETH', amount: 0.01, redirectUrl: returnUrl('expired') }),
        driver.createInvoice({ baseCurrency: 'PKR', amount: 1000, paymentMethod: 'wallet', customerFullName: 'Sana', redirectUrl: returnUrl('rejected') }),
      ]);
      await driver.simulateDeposit(partial.id, '10');
      await driver.visit(`${waiting.link}/provider`);
      await driver.postForm(waiting.link, '/utr', { utr: `UPI${randomInt(100_000_000_000, 1_000_000_000_000)}` });
      await driver.simulateDeposit(paid.id);
      await driver.writeInvoice(expired.id, { expiresAt: new Date(Date.now() - 1000).toISOString() });
      await driver.payAtProvider(rejected.link, 'failed');
      return {
        crypto: crypto.link,
        'crypto-network': `${crypto.link}?network=tron`,
        partial: partial.link,
        details: details.link,
        instructions: `${instructions.link}/provider`,
        waiting: `${waiting.link}/provider`,
        returned: `${returned.link}/provider?from=provider`,
        paid: paid.link,
        expired: expired.link,
        rejected: rejected.link,
        'not-found': `${gateway.baseUrl}/checkout/${randomUUID()}`,
      };
    },
  };
  return driver;
}

/** A checkout URL in a language. */
export const withLanguage = (url: string, language: string): string => `${url}${url.includes('?') ? '&' : '?'}lang=${language}`;
