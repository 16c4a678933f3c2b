/**
 * The payouts page's roles and codes (docs/merchant-guide.md#crypto-payouts), over stub services:
 * every role reads the payouts waiting for approval; only an owner sees the buttons and the new
 * payout form, and a developer's or a viewer's forged form is refused (403) and reaches no service;
 * a code that is missing, wrong or used already decides nothing; a chain transaction is linked to
 * the stage's block explorer.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it, vi } from 'vitest';
import { Dashboard } from '../../shared/dashboard/dashboard.js';
import { NETWORK_EXPLORERS } from '../../shared/domain/chains/index.js';
import type { DashboardServices } from '../../shared/dashboard/page.js';
import { SESSION_COOKIE } from '../../shared/domain/dashboard/dashboard-sessions.js';
import type { DashboardRole } from '../../shared/domain/dashboard/dashboard-users.js';
import { Invalid } from '../../shared/domain/kernel/errors.js';
import type { TransactionView } from '../../shared/domain/transactions/index.js';

const CSRF = 'csrf-token-of-the-session';
const ADDRESS = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const HASH = `0x${'ab'.repeat(32)}`;

const payoutView = (fields: Partial<TransactionView>): TransactionView =>
  ({
    id: randomUUID(),
    invoiceId: null,
    type: 'withdraw',
    status: 'pending_approval',
    amount: '2500.000000',
    currency: 'USDT',
    network: 'ethereum',
    transactionHash: null,
    address: ADDRESS,
    customerId: '',
    orderId: null,
    applicationId: null,
    hash: '',
    createdAt: '2026-11-29T10:00:00.000Z',
    updatedAt: '2026-11-29T10:00:00.000Z',
    fees: { processing: '1.000000', technical: '0.067200' },
    ...fields,
  }) as TransactionView;

function setup(role: DashboardRole, options: { code?: 'used' | 'wrong'; decideRefuses?: boolean } = {}) {
  const waiting = payoutView({});
  const sent = payoutView({ status: 'processing', transactionHash: HASH });
  const payouts = {
    quote: vi.fn(),
    create: vi.fn(),
    decide: vi.fn(async () => {
      if (options.decideRefuses) throw Invalid.of('code', 'code was used already: enter the next one');
      return {};
    }),
  };
  const freshCode = vi.fn(async () => options.code ?? { email: 'person@shop.example', step: 100 });
  const services = {
    access: {
      signedIn: async () => ({
        session: { id: 's', merchantId: 'm-1', userId: 'person@shop.example', role, createdAt: '', lastSeenAt: '', expiresAt: 0, csrf: CSRF },
        user: { email: 'person@shop.example', merchantId: 'm-1', role },
      }),
      freshCode,
    },
    account: { view: async () => ({ id: 'm-1', name: 'Shop', payoutAddressDelaySeconds: 0 }) },
    transactions: {
      list: vi.fn(async (_merchantId: string, query: { status?: string }) => ({ items: query.status === 'pending_approval' ? [waiting] : [waiting, sent], nextCursor: null })),
      view: async () => sent,
    },
    callbacks: { deliveries: async () => [] },
    balances: { view: async () => ({ items: [] }) },
    payoutAddresses: { list: async () => ({ items: [{ id: 'a-1', network: 'ethereum', address: ADDRESS, label: 'Treasury', status: 'active', activatesAt: '', createdAt: '' }] }) },
    payouts,
    clock: () => new Date('2026-11-29T12:00:00Z'),
  } as unknown as DashboardServices;
  const dashboard = new Dashboard(services, { stage: 'demo', publicBaseUrl: 'https://pay.example', explorers: () => NETWORK_EXPLORERS.demo });
  const serve = async (method: 'GET' | 'POST', page: string, form: Record<string, string> = {}) => {
    const answer = await dashboard.serve({ method, page, query: {}, form: { csrf: CSRF, ...form }, headers: { cookie: `${SESSION_COOKIE}=token` }, language: { language: 'en', explicit: false } });
    if (answer.kind === 'file') throw new Error(`The payouts pages answered a file, ${answer.name}`);
    return answer.kind === 'page' ? { status: answer.page.status, html: answer.page.html } : { status: 303, html: answer.location };
  };
  return { serve, payouts, freshCode, waiting, sent, lists: services.transactions.list as ReturnType<typeof vi.fn> };
}

describe('the payouts waiting for approval', () => {
  it.each(['developer', 'viewer'] as const)('are listed to a %s, with no button, and a forged decision is refused, deciding nothing', async (role) => {
    const { serve, payouts, freshCode, waiting } = setup(role);
    const { status, html } = await serve('GET', 'payouts');
    expect(status).toBe(200);
    expect(html).toContain(ADDRESS);
    expect(html).toContain('<td data-label="Amount" class="num">2,500.000000 USDT</td>');
    expect(html).not.toContain('value="approve"');
    expect(html).not.toContain('New payout');
    for (const [page, form] of [
      [`payouts/${waiting.id}/decision`, { decision: 'approve', code: '123456' }],
      ['payouts/quote', { asset: 'USDT:ethereum', address: `ethereum:${ADDRESS}`, amount: '10' }],
      ['payouts/new', { asset: 'USDT:ethereum', address: `ethereum:${ADDRESS}`, amount: '10', code: '123456' }],
    ] as const) {
      const refused = await serve('POST', page, form);
      expect(refused.status, page).toBe(403);
      expect(refused.html).toContain(`Your role (${role}) does not allow this.`);
    }
    expect([payouts.decide, payouts.quote, payouts.create, freshCode].map((fn) => fn.mock.calls.length)).toEqual([0, 0, 0, 0]);
  });

  it('show an owner Approve and Reject with a code field, and the new payout form with the active addresses', async () => {
    const { serve, waiting } = setup('owner');
    const { html } = await serve('GET', 'payouts');
    expect(html).toContain(`action="https://pay.example/dashboard/payouts/${waiting.id}/decision"`);
    expect(html).toContain('value="approve"');
    expect(html).toContain('value="reject"');
    expect(html).toContain(`<input id="code-${waiting.id}" name="code" required`);
    expect(html).toContain('<option value="USDT:ethereum">USDT · ethereum</option>');
    expect(html).not.toContain('USDT:tron');
    expect(html).toContain(`<option value="ethereum:${ADDRESS}">Treasury: ${ADDRESS}</option>`);
  });

  it("approve with an owner's fresh code, and refuse a missing, wrong or used one, deciding nothing", async () => {
    const approving = setup('owner');
    const approved = await approving.serve('POST', `payouts/${approving.waiting.id}/decision`, { decision: 'approve', code: '123456' });
    expect(approved).toEqual({ status: 303, html: 'https://pay.example/dashboard/payouts?done=approved' });
    expect(approving.payouts.decide).toHaveBeenCalledWith('m-1', approving.waiting.id, 'approve', { email: 'person@shop.example', step: 100 });

    const missing = await approving.serve('POST', `payouts/${approving.waiting.id}/decision`, { decision: 'reject', code: '' });
    expect([missing.status, missing.html.includes('Enter the code your app shows.')]).toEqual([422, true]);
    for (const code of ['used', 'wrong'] as const) {
      const { serve, payouts, waiting } = setup('owner', { code });
      const refused = await serve('POST', `payouts/${waiting.id}/decision`, { decision: 'reject', code: '123456' });
      expect(refused.status).toBe(422);
      expect(refused.html).toContain('role="alert"');
      expect(payouts.decide).not.toHaveBeenCalled();
    }
    const raced = setup('owner', { decideRefuses: true });
    const lost = await raced.serve('POST', `payouts/${raced.waiting.id}/decision`, { decision: 'approve', code: '123456' });
    expect([lost.status, lost.html.includes('This code was used already.')]).toEqual([422, true]);
  });
});

describe('a refund waiting for approval', () => {
  it('is listed with the payouts waiting: the list asks for every transaction pending approval, whatever its type', async () => {
    const { serve, lists, waiting } = setup('owner');
    const { html } = await serve('GET', 'payouts');
    expect(lists).toHaveBeenCalledWith('m-1', expect.objectContaining({ status: 'pending_approval' }));
    const waitingQuery = lists.mock.calls.map(([, query]) => query).find((query) => query.status === 'pending_approval');
    expect(waitingQuery).not.toHaveProperty('type');
    expect(html).toContain(`payouts/${waiting.id}/decision`);
  });
});

describe('a chain transaction', () => {
  it("links its hash to the stage's block explorer, in the listing and on its page", async () => {
    const { serve, sent } = setup('viewer');
    const link = `href="https://sepolia.etherscan.io/tx/${HASH}" rel="noopener noreferrer"`;
    expect((await serve('GET', 'transactions')).html).toContain(link);
    const detail = await serve('GET', `transactions/${sent.id}`);
    expect(detail.html).toContain(link);
    expect(detail.html).toContain(ADDRESS);
  });
});
