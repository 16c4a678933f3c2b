/**
 * The DynamoDB tables, defined once. The CDK stacks and the local runtime both create their
 * tables from this list, and every function finds a table's name in the environment variable
 * `tableEnvVar(key)`.
 */
export type AttributeType = 'S' | 'N';

export interface KeyAttribute {
  name: string;
  type: AttributeType;
}

export interface IndexDefinition {
  name: string;
  partitionKey: KeyAttribute;
  sortKey?: KeyAttribute;
  /** Attributes copied into the index besides the keys; `all` copies the whole item. */
  projection: 'all' | 'keys' | readonly string[];
}

export interface TableDefinition {
  partitionKey: KeyAttribute;
  sortKey?: KeyAttribute;
  indexes?: readonly IndexDefinition[];
  /** Epoch-seconds attribute after which DynamoDB deletes the item. */
  ttlAttribute?: string;
  /**
   * Its name is given only to the functions granted it, where the others' names go to every
   * function: Lambda's environment holds 4 KB, which every name for every function outgrows.
   */
  namedWhereGranted?: true;
}

export const TABLES = {
  /** Merchant profiles: callback URL and secret, fee, checkout settings. */
  merchants: {
    partitionKey: { name: 'id', type: 'S' },
    indexes: [
      {
        // Every merchant, for the books check. Keys only: a profile's changes never rewrite it.
        name: 'directory',
        partitionKey: { name: 'directory', type: 'S' },
        sortKey: { name: 'createdAt', type: 'S' },
        projection: 'keys',
      },
    ],
  },
  /** API keys by SHA-256 digest; the key text itself is never stored. */
  apiKeys: {
    partitionKey: { name: 'digest', type: 'S' },
    indexes: [
      {
        name: 'byMerchant',
        partitionKey: { name: 'merchantId', type: 'S' },
        sortKey: { name: 'createdAt', type: 'S' },
        projection: 'all',
      },
    ],
  },
  invoices: {
    partitionKey: { name: 'id', type: 'S' },
    indexes: [
      {
        // Sparse: only open invoices carry `expiryShard`, so the expiry sweep reads what is due
        // and nothing else. The owner comes along because the cancellation rewrites the
        // merchant's status key, which would otherwise cost a read of each invoice.
        name: 'openByExpiry',
        partitionKey: { name: 'expiryShard', type: 'S' },
        sortKey: { name: 'expiresAt', type: 'S' },
        projection: ['merchantId'],
      },
      // The merchant's listings, newest first. Sort keys are `createdAt`; ties are kept apart by
      // the table key, which every page's position (ExclusiveStartKey) carries.
      {
        name: 'byMerchant',
        partitionKey: { name: 'merchantId', type: 'S' },
        sortKey: { name: 'createdAt', type: 'S' },
        projection: 'all',
      },
      {
        // `merchantStatus` = JSON [merchantId, status], rewritten in every write that moves the status.
        name: 'byMerchantStatus',
        partitionKey: { name: 'merchantStatus', type: 'S' },
        sortKey: { name: 'createdAt', type: 'S' },
        projection: 'all',
      },
      {
        // Sparse: only invoices with a payment at a provider that has not decided it carry
        // `awaitingProvider` (the provider's id), so the reconciliation reads just those.
        name: 'awaitingProvider',
        partitionKey: { name: 'awaitingProvider', type: 'S' },
        sortKey: { name: 'createdAt', type: 'S' },
        projection: 'all',
      },
      {
        // A customer's invoices by age (`customerKey` = JSON of [merchantId, customerId]): the
        // customer filter of the merchant's listing, and which invoice a transfer to the
        // customer's address pays.
        name: 'byCustomer',
        partitionKey: { name: 'customerKey', type: 'S' },
        sortKey: { name: 'createdAt', type: 'S' },
        projection: 'all',
      },
    ],
  },
  transactions: {
    partitionKey: { name: 'id', type: 'S' },
    indexes: [
      {
        name: 'byInvoice',
        partitionKey: { name: 'invoiceId', type: 'S' },
        sortKey: { name: 'createdAt', type: 'S' },
        projection: 'all',
      },
      {
        // Sparse: only on-chain deposits still short of their confirmations carry `pendingChain`
        // (their network), so each watcher run reads just the ones it must follow.
        name: 'pendingOnChain',
        partitionKey: { name: 'pendingChain', type: 'S' },
        sortKey: { name: 'createdAt', type: 'S' },
        projection: 'all',
      },
      {
        // Sparse: only processing transactions a provider decides (UTR deposits, payouts) carry
        // `awaitingProvider` (the provider's id), for the reconciliation.
        name: 'awaitingProvider',
        partitionKey: { name: 'awaitingProvider', type: 'S' },
        sortKey: { name: 'createdAt', type: 'S' },
        projection: 'all',
      },
      // The merchant's listings, newest first, as on the invoices table. The keys of the last
      // three are JSON [merchantId, value], written with every version of the record.
      {
        name: 'byMerchant',
        partitionKey: { name: 'merchantId', type: 'S' },
        sortKey: { name: 'createdAt', type: 'S' },
        projection: 'all',
      },
      {
        name: 'byMerchantStatus',
        partitionKey: { name: 'merchantStatus', type: 'S' },
        sortKey: { name: 'createdAt', type: 'S' },
        projection: 'all',
      },
      {
        name: 'byMerchantType',
        partitionKey: { name: 'merchantType', type: 'S' },
        sortKey: { name: 'createdAt', type: 'S' },
        projection: 'all',
      },
      {
        // Sparse: transactions without an orderId stay out.
        name: 'byOrder',
        partitionKey: { name: 'orderKey', type: 'S' },
        sortKey: { name: 'createdAt', type: 'S' },
        projection: 'all',
      },
      {
        // Every transaction by when it last changed, spread over CHANGE_SHARDS partitions
        // (`changeShard`), for the books check's hourly run: what its state calls for in the books.
        name: 'changes',
        partitionKey: { name: 'changeShard', type: 'S' },
        sortKey: { name: 'updatedAt', type: 'S' },
        projection: ['merchantId', 'type', 'status', 'amount', 'fees', 'currency'],
      },
    ],
  },
  /**
   * The books: each merchant's `available` and `reserved` money per currency (`id` = JSON
   * [merchantId, currency]), rewritten with every posting, in the same transaction as the
   * posting's entries. Read by key, and by when they last changed for the books check.
   */
  balances: {
    partitionKey: { name: 'id', type: 'S' },
    indexes: [
      {
        // Every balance by when it was last written, spread over CHANGE_SHARDS partitions
        // (`changeShard`): the balances the books check's hourly run reads again.
        name: 'changes',
        partitionKey: { name: 'changeShard', type: 'S' },
        sortKey: { name: 'updatedAt', type: 'S' },
        projection: ['merchantId', 'currency'],
      },
    ],
  },
  /**
   * The entries of the books, never changed once written; their ids are derived from their
   * transaction and type, so none is written twice. The merchant's listing and its filters, newest
   * first, as on the transactions table; the keys of the last three are JSON [merchantId, value].
   */
  balanceEntries: {
    partitionKey: { name: 'id', type: 'S' },
    indexes: [
      {
        name: 'byMerchant',
        partitionKey: { name: 'merchantId', type: 'S' },
        sortKey: { name: 'createdAt', type: 'S' },
        projection: 'all',
      },
      {
        name: 'byMerchantCurrency',
        partitionKey: { name: 'merchantCurrency', type: 'S' },
        sortKey: { name: 'createdAt', type: 'S' },
        projection: 'all',
      },
      {
        name: 'byMerchantType',
        partitionKey: { name: 'merchantType', type: 'S' },
        sortKey: { name: 'createdAt', type: 'S' },
        projection: 'all',
      },
      {
        // Sparse: adjustments, which account for no transaction, stay out.
        name: 'byTransaction',
        partitionKey: { name: 'transactionKey', type: 'S' },
        sortKey: { name: 'createdAt', type: 'S' },
        projection: 'all',
      },
      {
        // A balance's entries in the order posted, with what each did: the books check sums them
        // from where it last stopped, never from the first again (docs/operations.md#the-hourly-check).
        name: 'bySequence',
        partitionKey: { name: 'merchantCurrency', type: 'S' },
        sortKey: { name: 'sequence', type: 'N' },
        projection: ['availableChange', 'reservedChange'],
      },
    ],
  },
  /**
   * The books check's own state (docs/operations.md#the-hourly-check): `state`, how far its runs
   * have read the changes and where its full pass is; and per balance (`id` = JSON [merchantId,
   * currency]) the sums of its entries up to a sequence, where the next run's reading starts.
   */
  booksCheck: {
    namedWhereGranted: true,
    partitionKey: { name: 'id', type: 'S' },
  },
  /**
   * Each merchant's totals per UTC day for its dashboard's overview (shared/store/daily-totals.ts):
   * `dayKey` `YYYY-MM-DD#volume#CUR` holds the confirmed deposit volume in a currency,
   * `YYYY-MM-DD#invoices#N` the invoices created and completed (counted on one of a few items per
   * day), each added to in the same transaction as the change it counts. A month of them is one
   * Query of the merchant's key range.
   */
  dailyTotals: {
    partitionKey: { name: 'merchantId', type: 'S' },
    sortKey: { name: 'dayKey', type: 'S' },
  },
  /** Uniqueness claims (a merchant's orderId, a UTR), written in the same transaction as the record they guard. */
  uniques: {
    partitionKey: { name: 'id', type: 'S' },
  },
  /** Idempotency records in the layout of Powertools for AWS Lambda. */
  idempotency: {
    partitionKey: { name: 'id', type: 'S' },
    ttlAttribute: 'expiration',
  },
  /**
   * Callbacks to deliver, written in the same transaction as the state they announce. Entries not
   * yet handed to the queue carry `pendingShard`, so the publisher's sweep reads only those.
   * Settled entries expire (OUTBOX_RETENTION_DAYS); parked ones wait for their redrive.
   */
  outbox: {
    partitionKey: { name: 'id', type: 'S' },
    ttlAttribute: 'expiration',
    indexes: [
      {
        name: 'unpublished',
        partitionKey: { name: 'pendingShard', type: 'S' },
        sortKey: { name: 'createdAt', type: 'S' },
        projection: 'keys',
      },
      {
        // A transaction's callbacks. Keys only: delivery attempts rewrite an entry often, and an
        // index holding only keys that never change is not rewritten with it.
        name: 'byTransaction',
        partitionKey: { name: 'transactionId', type: 'S' },
        sortKey: { name: 'createdAt', type: 'S' },
        projection: 'keys',
      },
      {
        // An invoice's events (docs/merchant-guide.md#invoice-events), for its delivery log.
        name: 'byInvoice',
        partitionKey: { name: 'invoiceId', type: 'S' },
        sortKey: { name: 'createdAt', type: 'S' },
        projection: 'keys',
      },
      {
        // A merchant's callbacks of every kind, newest first, for the dashboard's delivery log.
        name: 'byMerchant',
        partitionKey: { name: 'merchantId', type: 'S' },
        sortKey: { name: 'createdAt', type: 'S' },
        projection: 'keys',
      },
    ],
  },
  /**
   * The chain watchers' state: a cursor per network (`cursor#{network}`), and transfers held for
   * merchants that do not take on-chain deposits yet (`held` index, sparse by network).
   */
  chain: {
    partitionKey: { name: 'id', type: 'S' },
    indexes: [
      {
        name: 'held',
        partitionKey: { name: 'heldNetwork', type: 'S' },
        sortKey: { name: 'seenAt', type: 'S' },
        projection: 'all',
      },
    ],
  },
  /** Reports a merchant asked for (docs/merchant-guide.md#reports): read by id, deleted REPORT_RETENTION_DAYS after they were asked for. */
  reports: {
    partitionKey: { name: 'id', type: 'S' },
    ttlAttribute: 'expiration',
    indexes: [
      {
        // The merchant's latest reports, for the dashboard's reports page.
        name: 'byMerchant',
        partitionKey: { name: 'merchantId', type: 'S' },
        sortKey: { name: 'createdAt', type: 'S' },
        projection: 'all',
      },
    ],
  },
  /** The newest live USD price of each currency (`id` is its code), with the time it was quoted. */
  rates: {
    partitionKey: { name: 'id', type: 'S' },
  },
  /** Permanent deposit addresses per (merchant, customer) and the derivation-index counter. */
  wallets: {
    partitionKey: { name: 'id', type: 'S' },
    indexes: [
      {
        // Sparse: the owner item of each customer address carries its family, so a chain watcher
        // loads its family's addresses, and then those added since, without a scan. Keys only:
        // the item's id holds the address as the watcher knows it (docs/operations.md#watching-chains).
        name: 'ownersByFamily',
        partitionKey: { name: 'addressFamily', type: 'S' },
        sortKey: { name: 'createdAt', type: 'S' },
        projection: 'keys',
      },
    ],
  },
  /** The dashboard's people (docs/merchant-guide.md#dashboard), by lower-cased e-mail: one user per address across the gateway. */
  dashboardUsers: {
    namedWhereGranted: true,
    partitionKey: { name: 'email', type: 'S' },
    indexes: [
      {
        name: 'byMerchant',
        partitionKey: { name: 'merchantId', type: 'S' },
        sortKey: { name: 'createdAt', type: 'S' },
        projection: 'all',
      },
    ],
  },
  /** Invitations by the digest of their link's token, forgotten once expired. */
  dashboardInvitations: {
    namedWhereGranted: true,
    partitionKey: { name: 'id', type: 'S' },
    ttlAttribute: 'expiresAtEpoch',
  },
  /** Dashboard sessions by the digest of their cookie's token, forgotten after 12 hours idle. */
  dashboardSessions: {
    namedWhereGranted: true,
    partitionKey: { name: 'id', type: 'S' },
    ttlAttribute: 'expiresAt',
    indexes: [
      {
        // A user's sessions, to end them all (signing out everywhere, a user removed).
        name: 'byUser',
        partitionKey: { name: 'userId', type: 'S' },
        projection: 'keys',
      },
    ],
  },
  /**
   * Merchants' payout addresses (docs/merchant-guide.md#payout-addresses): a merchant's partition,
   * an item per network and address (`addressKey` = `{network}#{address}`, canonical), so the key
   * refuses one twice; read whole by the merchant's key, consistently.
   */
  payoutAddresses: {
    namedWhereGranted: true,
    partitionKey: { name: 'merchantId', type: 'S' },
    sortKey: { name: 'addressKey', type: 'S' },
  },
  /** Every change made through the dashboard, never changed once written; the merchant's, newest first, by index (`position` = `{at}#{id}`). */
  auditLog: {
    namedWhereGranted: true,
    partitionKey: { name: 'id', type: 'S' },
    indexes: [
      {
        name: 'byMerchant',
        partitionKey: { name: 'merchantId', type: 'S' },
        sortKey: { name: 'position', type: 'S' },
        projection: 'all',
      },
    ],
  },
} as const satisfies Record<string, TableDefinition>;

export type TableKey = keyof typeof TABLES;

export const TABLE_KEYS = Object.keys(TABLES) as TableKey[];

/** Whether every function is given the table's name (`namedWhereGranted` says why not all are). */
export const namedEverywhere = (key: TableKey): boolean => !(TABLES[key] as TableDefinition).namedWhereGranted;

/** `invoices` -> `TABLE_INVOICES`, `apiKeys` -> `TABLE_API_KEYS`. */
export function tableEnvVar(key: TableKey): string {
  return `TABLE_${key.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase()}`;
}
