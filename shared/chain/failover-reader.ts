/**
 * A network read through several endpoints of its node's API, in order of preference
 * (docs/operations.md#watching-chains). A run of the watcher begins with the head: every endpoint
 * not cooling down is asked at once, and the run reads from the first whose head is not far behind
 * the best one answered. A call that fails or times out goes to the next endpoint, and the run stays
 * there. An endpoint that failed, was slow or lagged is passed over for a cool-down, then asked
 * again; while every endpoint cools down, they are all tried anyway rather than none.
 *
 * A range of blocks is always read whole from one endpoint, so that no range chains one node's
 * blocks onto another's; a switch between calls can at worst look like a reorganisation, which the
 * watcher handles (a range that breaks ends there; a cursor the node does not know is traced back).
 */
import { failureReason } from '../observability/failure-reason.js';
import type { BlockRef, NetworkReader, ScannedBlock } from '../domain/chains/index.js';

export interface RpcEndpoint<Client = NetworkReader> {
  /** How logs name it: its place in the list and its host, never its credentials, path or query (where providers put keys). */
  label: string;
  reader: Client;
}

export interface EndpointFailoverOptions {
  /** How long an endpoint that failed, was slow or lagged is passed over. */
  coolDownMs: number;
  /**
   * How long a head, a block's hash or a transaction's place may take: a backstop above the
   * readers' own request timeouts, which end a slow call first. A range of blocks has no such bound
   * (a catch-up over large blocks takes long): each of its requests has the reader's own.
   */
  callTimeoutMs: number;
  now?: () => number;
}

export interface FailoverOptions extends EndpointFailoverOptions {
  /** An endpoint whose head trails the best head answered by more blocks than this is lagging. */
  maxLagBlocks: number;
}

/** What one endpoint did in a run. */
export interface EndpointOutcome {
  /** 1 for the first of the list. */
  position: number;
  label: string;
  /** Calls it answered, and calls that failed or timed out on it. */
  answered: number;
  failed: number;
  /** Its head, when it trailed the best head by more than the lag allowed. */
  laggingHead?: number;
  /** Passed over at the run's start, cooling down after an earlier failure, slowness or lag. */
  coolingDown: boolean;
  /** Why its last failed call failed. */
  error?: string;
}

/** Which endpoints answered a run and which failed: reported once per run. */
export interface RpcRunReport {
  network: string;
  /** The best head answered at the run's start. */
  head?: number;
  endpoints: EndpointOutcome[];
  /** A call failed on every endpoint, so the run failed. */
  allFailed: boolean;
}

/** A call that failed on every endpoint of the network. */
export class AllEndpointsFailedError extends Error {
  override name = 'AllEndpointsFailedError';
}

class EndpointTimeoutError extends Error {
  override name = 'EndpointTimeoutError';
}

interface EndpointState<Client> {
  endpoint: RpcEndpoint<Client>;
  position: number;
  /** Passed over until then (ms since the epoch). */
  coolingUntil: number;
}

/** `promise`, or a timeout error after `ms`; a call given up on may still settle, and is ignored then. */
function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new EndpointTimeoutError(`no answer within ${ms} ms`)), ms);
  });
  promise.catch(() => undefined);
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Calls on a network's endpoints, each a client of its node's API: on the run's endpoint, and on
 * failure on the next (see the top of this file). What each endpoint did is reported once a run.
 */
export class EndpointFailover<Client> {
  protected readonly states: EndpointState<Client>[];
  protected readonly now: () => number;
  /** The endpoint the run reads from. */
  protected current: EndpointState<Client>;
  protected report: RpcRunReport;

  constructor(
    private readonly network: string,
    endpoints: readonly RpcEndpoint<Client>[],
    protected readonly options: EndpointFailoverOptions,
    private readonly observe: (report: RpcRunReport) => void = () => undefined,
  ) {
    if (endpoints.length === 0) throw new Error(`The ${network} network has no RPC endpoint`);
    this.states = endpoints.map((endpoint, index) => ({ endpoint, position: index + 1, coolingUntil: 0 }));
    this.current = this.states[0]!;
    this.now = options.now ?? Date.now;
    this.report = this.newReport();
  }

  /** `work` as one run of the watcher: what each endpoint did in it is reported once, when it ends. */
  async observeRun<T>(work: () => Promise<T>): Promise<T> {
    this.report = this.newReport();
    try {
      return await work();
    } finally {
      this.observe(this.report);
    }
  }

  /**
   * `read` on the run's endpoint; on failure, on the next in order that is not cooling down, then
   * on those that are. The endpoint that answers is the run's from then on.
   */
  protected async call<T>(read: (client: Client) => Promise<T>, timed: boolean, tried: ReadonlySet<EndpointState<Client>> = new Set(), failed?: unknown): Promise<T> {
    const now = this.now();
    const others = this.states.filter((state) => state !== this.current);
    const order = [this.current, ...others.filter((state) => state.coolingUntil <= now), ...others.filter((state) => state.coolingUntil > now)].filter((state) => !tried.has(state));
    let failure = failed;
    for (const state of order) {
      try {
        const answer = await this.attempt(state, read, timed);
        this.current = state;
        return answer;
      } catch (error) {
        // Recorded by attempt; the next endpoint is tried.
        failure = error;
      }
    }
    this.report.allFailed = true;
    // A network of one endpoint fails as its reader did, with nothing to add.
    if (this.states.length === 1 && failure !== undefined) throw failure;
    const reasons = this.states.map((state) => `${state.endpoint.label}: ${this.outcomeOf(state).error ?? 'not tried'}`);
    throw new AllEndpointsFailedError(`Every ${this.network} RPC endpoint failed: ${reasons.join('; ')}`);
  }

  /** One call on one endpoint, counted; a failure cools the endpoint down. */
  protected async attempt<T>(state: EndpointState<Client>, read: (client: Client) => Promise<T>, timed: boolean): Promise<T> {
    const outcome = this.outcomeOf(state);
    try {
      const call = read(state.endpoint.reader);
      const answer = await (timed ? within(call, this.options.callTimeoutMs) : call);
      outcome.answered++;
      return answer;
    } catch (error) {
      outcome.failed++;
      outcome.error = failureReason(error);
      state.coolingUntil = this.now() + this.options.coolDownMs;
      throw error;
    }
  }

  protected outcomeOf(state: EndpointState<Client>): EndpointOutcome {
    return this.report.endpoints[state.position - 1]!;
  }

  private newReport(): RpcRunReport {
    return {
      network: this.network,
      endpoints: this.states.map(({ endpoint, position }) => ({ position, label: endpoint.label, answered: 0, failed: 0, coolingDown: false })),
      allFailed: false,
    };
  }
}

/** A network as the watcher reads it, through its endpoints: the head from the first not far behind the best. */
export class FailoverNetworkReader extends EndpointFailover<NetworkReader> implements NetworkReader {
  /** Present when every endpoint's reader has it (EVM). */
  readonly minedAt?: (transactionHash: string) => Promise<BlockRef | undefined>;
  private readonly maxLagBlocks: number;

  constructor(network: string, endpoints: readonly RpcEndpoint[], options: FailoverOptions, observe?: (report: RpcRunReport) => void) {
    super(network, endpoints, options, observe);
    this.maxLagBlocks = options.maxLagBlocks;
    if (endpoints.every(({ reader }) => reader.minedAt)) {
      this.minedAt = (transactionHash) => this.call((reader) => reader.minedAt!(transactionHash), true);
    }
  }

  /**
   * The head of the first endpoint, in order, that answers and is not far behind the best head
   * answered; the run reads from it. Every endpoint not cooling down is asked, at once: a lagging
   * one is only seen beside the others.
   */
  async headNumber(): Promise<number> {
    const now = this.now();
    const ready = this.states.filter((state) => state.coolingUntil <= now);
    for (const state of this.states) if (state.coolingUntil > now) this.outcomeOf(state).coolingDown = true;
    const probes = await Promise.all(
      ready.map((state) =>
        this.attempt(state, (reader) => reader.headNumber(), true).then(
          (head: number) => ({ state, head, error: undefined }),
          (error: unknown) => ({ state, head: undefined, error }),
        ),
      ),
    );
    const answered = probes.flatMap(({ state, head }) => (head === undefined ? [] : [{ state, head }]));
    if (answered.length === 0) {
      // Every endpoint asked failed: those cooling down are the last resort.
      return this.call((reader) => reader.headNumber(), true, new Set(ready), probes.at(-1)?.error);
    }
    const best = Math.max(...answered.map(({ head }) => head));
    this.report.head = best;
    for (const { state, head } of answered) {
      if (best - head <= this.maxLagBlocks) continue;
      this.outcomeOf(state).laggingHead = head;
      state.coolingUntil = now + this.options.coolDownMs;
    }
    const chosen = answered.find(({ head }) => best - head <= this.maxLagBlocks)!;
    this.current = chosen.state;
    return chosen.head;
  }

  blockHash(number: number): Promise<string> {
    return this.call((reader) => reader.blockHash(number), true);
  }

  /** The whole range from one endpoint: a failure part-way reads it again, whole, from the next. */
  blocks(first: number, last: number): Promise<ScannedBlock[]> {
    return this.call((reader) => reader.blocks(first, last), false);
  }
}
