/** The chains' functions: the watcher of every configured network. */
import { BOTH, LIVE_PRICES, POSTS_TO_BALANCES, COUNTS_DAY_TOTALS, type GatewayFunction } from './function-definition.js';

export const CHAINS_FUNCTIONS = [
  {
    // Reads each configured network (EVM, Bitcoin, Tron) for deposits to customers' addresses (docs/merchant-guide.md#on-chain-deposits).
    kind: 'schedule',
    name: 'watch-chain',
    everySeconds: 60,
    perNetwork: true,
    stages: BOTH,
    // A settlement that changes nothing on the invoice only checks it; a deposit whose block left
    // the chain gives up its claim; a held transfer credited or gone is deleted. A transfer in
    // another currency than its invoice's is valued at the current rates.
    tables: {
      chain: ['GetItem', 'PutItem', 'DeleteItem'],
      wallets: ['GetItem', 'BatchGetItem'],
      invoices: ['GetItem', 'UpdateItem', 'ConditionCheckItem'],
      // A refund that fails gives back what it held of its deposit (an update of the deposit's item).
      transactions: ['GetItem', 'PutItem', 'UpdateItem'],
      outbox: ['PutItem', 'UpdateItem'],
      uniques: ['GetItem', 'PutItem', 'DeleteItem'],
      merchants: ['GetItem'],
      rates: LIVE_PRICES,
      ...POSTS_TO_BALANCES,
      ...COUNTS_DAY_TOTALS,
    },
    queries: { chain: ['held'], invoices: ['byCustomer'], transactions: ['pendingOnChain'], wallets: ['ownersByFamily'] },
    sendsTo: ['callbacks', 'payouts'],
    // The treasury's payouts on the network are followed too: its public keys name its addresses, and it never signs.
    readsTreasuryKeys: true,
    // An invocation polls until one poll interval before the next (chainWatchSecondsOf: 55 s of its
    // minute); the timeout, no longer than the period, cuts off a last run that hangs before the next
    // invocation begins.
    timeoutSeconds: 60,
  },
] as const satisfies readonly GatewayFunction[];
