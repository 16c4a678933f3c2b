/**
 * A network read through several RPC endpoints (shared/chain/failover-reader.ts), over fake nodes:
 * the order they are asked in, a failure or a timeout going to the next, a lagging head skipped,
 * the cool-down, a range read whole from one endpoint, every endpoint failing, and the one report
 * per run.
 */
import { describe, expect, it } from 'vitest';
import type { NetworkReader, ScannedBlock } from '../../shared/domain/chains/chain.js';
import { AllEndpointsFailedError, FailoverNetworkReader, type RpcRunReport } from '../../shared/chain/failover-reader.js';
import { networkReaderOf } from '../../shared/chain/network-readers.js';

const COOL_DOWN_MS = 60_000;
const TIMEOUT_MS = 50;
const MAX_LAG = 12;

type Behaviour = 'answer' | 'fail' | 'hang';

/** A node whose head, behaviour and calls the test sets and reads. */
class FakeNode implements NetworkReader {
  behaviour: Behaviour = 'answer';
  calls: string[] = [];

  constructor(
    readonly name: string,
    public head: number,
  ) {}

  private answer<T>(call: string, value: () => T): Promise<T> {
    this.calls.push(call);
    if (this.behaviour === 'fail') return Promise.reject(new Error(`${this.name} refused ${call}`, { cause: new Error('connect ECONNREFUSED') }));
    if (this.behaviour === 'hang') return new Promise<T>(() => undefined);
    return Promise.resolve(value());
  }

  headNumber(): Promise<number> {
    return this.answer('head', () => this.head);
  }

  blockHash(number: number): Promise<string> {
    return this.answer(`hash ${number}`, () => `${this.name}-${number}`);
  }

  blocks(first: number, last: number): Promise<ScannedBlock[]> {
    return this.answer(`blocks ${first}-${last}`, () =>
      Array.from({ length: last - first + 1 }, (_, i) => ({ number: first + i, hash: `${this.name}-${first + i}`, parentHash: `${this.name}-${first + i - 1}`, transfers: [] })),
    );
  }
}

function setUp(heads: number[]) {
  const nodes = heads.map((head, index) => new FakeNode(`n${index + 1}`, head));
  const clock = { now: 1_000_000 };
  const reports: RpcRunReport[] = [];
  const reader = new FailoverNetworkReader(
    'ethereum',
    nodes.map((node, index) => ({ label: `#${index + 1} ${node.name}.example`, reader: node })),
    { maxLagBlocks: MAX_LAG, coolDownMs: COOL_DOWN_MS, callTimeoutMs: TIMEOUT_MS, now: () => clock.now },
    (report) => reports.push(report),
  );
  /** A watcher's run in small: the head, the cursor's hash, a range of blocks. */
  const run = () =>
    reader.observeRun(async () => {
      const head = await reader.headNumber();
      const cursorHash = await reader.blockHash(head - 3);
      const blocks = await reader.blocks(head - 2, head);
      return { head, cursorHash, blocks };
    });
  const reset = () => {
    for (const node of nodes) node.calls = [];
  };
  return { nodes, clock, reports, reader, run, reset };
}

describe('a network read through several RPC endpoints', () => {
  it('reads from the first endpoint while it answers, and asks every endpoint its head', async () => {
    const { nodes, reports, run } = setUp([100, 101]);
    const { head, cursorHash, blocks } = await run();
    expect(head).toBe(100);
    expect(cursorHash).toBe('n1-97');
    expect(blocks.map((block) => block.hash)).toEqual(['n1-98', 'n1-99', 'n1-100']);
    expect(nodes[0]!.calls).toEqual(['head', 'hash 97', 'blocks 98-100']);
    expect(nodes[1]!.calls).toEqual(['head']);
    expect(reports).toEqual([
      {
        network: 'ethereum',
        head: 101,
        allFailed: false,
        endpoints: [
          { position: 1, label: '#1 n1.example', answered: 3, failed: 0, coolingDown: false },
          { position: 2, label: '#2 n2.example', answered: 1, failed: 0, coolingDown: false },
        ],
      },
    ]);
  });

  it('takes a call that fails to the next endpoint, and stays there for the rest of the run', async () => {
    const { nodes, reports, reader, run } = setUp([100, 100, 100]);
    // The first answers its head, then fails.
    const headFirst = nodes[0]!.headNumber.bind(nodes[0]);
    nodes[0]!.headNumber = async () => {
      const head = await headFirst();
      nodes[0]!.behaviour = 'fail';
      return head;
    };
    const { cursorHash, blocks } = await run();
    expect(cursorHash).toBe('n2-97');
    expect(blocks.map((block) => block.hash)).toEqual(['n2-98', 'n2-99', 'n2-100']);
    expect(nodes[0]!.calls).toEqual(['head', 'hash 97']);
    expect(nodes[1]!.calls).toEqual(['head', 'hash 97', 'blocks 98-100']);
    expect(nodes[2]!.calls).toEqual(['head']);
    expect(reports[0]!.endpoints[0]).toEqual({
      position: 1,
      label: '#1 n1.example',
      answered: 1,
      failed: 1,
      coolingDown: false,
      error: 'Error: n1 refused hash 97, caused by Error: connect ECONNREFUSED',
    });
    expect(reports[0]!.endpoints[1]).toMatchObject({ answered: 3, failed: 0 });
    expect(reader.minedAt).toBeUndefined();
  });

  it('reads a range again, whole, from the next endpoint when the first fails part-way', async () => {
    const { nodes, reader } = setUp([100, 100]);
    nodes[0]!.blocks = async (first) => {
      nodes[0]!.calls.push(`blocks ${first}-…`);
      throw new Error('upstream 502 after the first blocks');
    };
    await reader.headNumber();
    const blocks = await reader.blocks(91, 100);
    expect(blocks).toHaveLength(10);
    // One endpoint's chain: each block the child of the one before.
    expect(blocks.every((block, i) => i === 0 || block.parentHash === blocks[i - 1]!.hash)).toBe(true);
    expect(new Set(blocks.map((block) => block.hash.split('-')[0]))).toEqual(new Set(['n2']));
  });

  it('gives up on an endpoint that does not answer in time, and takes the next', async () => {
    const { nodes, reports, run } = setUp([100, 100]);
    nodes[0]!.behaviour = 'hang';
    const started = Date.now();
    const { head, blocks } = await run();
    expect(Date.now() - started).toBeLessThan(TIMEOUT_MS * 10);
    expect(head).toBe(100);
    expect(blocks[0]!.hash).toBe('n2-98');
    expect(nodes[0]!.calls).toEqual(['head']);
    expect(reports[0]!.endpoints[0]).toMatchObject({ answered: 0, failed: 1, error: `EndpointTimeoutError: no answer within ${TIMEOUT_MS} ms` });
  });

  it('skips an endpoint whose head is more than the lag allowed behind the best, and keeps one within it', async () => {
    const { nodes, reports, run } = setUp([100 - MAX_LAG - 1, 100 - MAX_LAG, 100]);
    const { head, blocks } = await run();
    // The second trails by exactly the lag allowed: still preferred over the third.
    expect(head).toBe(100 - MAX_LAG);
    expect(blocks.at(-1)!.hash).toBe(`n2-${100 - MAX_LAG}`);
    expect(nodes[0]!.calls).toEqual(['head']);
    expect(reports[0]).toMatchObject({ head: 100, allFailed: false });
    expect(reports[0]!.endpoints.map((endpoint) => endpoint.laggingHead)).toEqual([100 - MAX_LAG - 1, undefined, undefined]);
  });

  it('passes over an endpoint that failed or lagged for the cool-down, then asks it again and prefers it once it answers', async () => {
    const { nodes, clock, reports, run, reset } = setUp([50, 100, 100]);
    nodes[1]!.behaviour = 'fail';
    await run();
    expect(reports[0]!.endpoints.map(({ laggingHead, failed }) => ({ laggingHead, failed }))).toEqual([
      { laggingHead: 50, failed: 0 },
      { laggingHead: undefined, failed: 1 },
      { laggingHead: undefined, failed: 0 },
    ]);

    // Both heal, but cool down: the third alone is asked.
    nodes[0]!.head = 100;
    nodes[1]!.behaviour = 'answer';
    reset();
    clock.now += COOL_DOWN_MS - 1;
    expect((await run()).blocks[0]!.hash).toBe('n3-98');
    expect(nodes.map((node) => node.calls.length)).toEqual([0, 0, 3]);
    expect(reports[1]!.endpoints.map((endpoint) => endpoint.coolingDown)).toEqual([true, true, false]);

    reset();
    clock.now += 1;
    expect((await run()).blocks[0]!.hash).toBe('n1-98');
    expect(nodes.map((node) => node.calls)).toEqual([['head', 'hash 97', 'blocks 98-100'], ['head'], ['head']]);
    expect(reports[2]!.endpoints.every((endpoint) => !endpoint.coolingDown && endpoint.failed === 0)).toBe(true);
  });

  it('tries endpoints cooling down when every other one fails, rather than none', async () => {
    const { nodes, clock, run, reset } = setUp([100, 100]);
    nodes[0]!.behaviour = 'fail';
    await run();
    // The first cools down; now the second fails and the first is healthy again.
    nodes[0]!.behaviour = 'answer';
    nodes[1]!.behaviour = 'fail';
    reset();
    clock.now += 1_000;
    const { blocks } = await run();
    expect(blocks[0]!.hash).toBe('n1-98');
    expect(nodes[1]!.calls).toEqual(['head']);
  });

  it('fails the run with one error naming each endpoint and why, and reports every endpoint failed', async () => {
    const { nodes, reports, run } = setUp([100, 100]);
    nodes[0]!.behaviour = 'fail';
    nodes[1]!.behaviour = 'hang';
    const failure = await run().catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(AllEndpointsFailedError);
    expect((failure as Error).message).toBe(
      `Every ethereum RPC endpoint failed: #1 n1.example: Error: n1 refused head, caused by Error: connect ECONNREFUSED; #2 n2.example: EndpointTimeoutError: no answer within ${TIMEOUT_MS} ms`,
    );
    expect(reports).toHaveLength(1);
    expect(reports[0]!.allFailed).toBe(true);
    expect(reports[0]!.head).toBeUndefined();
    expect(reports[0]!.endpoints.map(({ answered, failed }) => ({ answered, failed }))).toEqual([
      { answered: 0, failed: 1 },
      { answered: 0, failed: 1 },
    ]);
  });

  it('fails a call after the head when it fails on every endpoint, and starts the next run afresh', async () => {
    const { nodes, clock, reports, reader, run } = setUp([100, 100]);
    await reader.observeRun(async () => {
      await reader.headNumber();
      for (const node of nodes) node.behaviour = 'fail';
      await expect(reader.blockHash(97)).rejects.toThrow(/^Every ethereum RPC endpoint failed: #1 n1\.example: Error: n1 refused hash 97/);
    });
    expect(reports[0]).toMatchObject({ allFailed: true, head: 100 });
    for (const node of nodes) node.behaviour = 'answer';
    clock.now += COOL_DOWN_MS;
    await run();
    expect(reports[1]).toMatchObject({ allFailed: false });
    expect(reports[1]!.endpoints.map(({ failed }) => failed)).toEqual([0, 0]);
  });

  it('reads a network of one endpoint as before: the same calls, its failure thrown as it came, and counted', async () => {
    const { nodes, reports, run } = setUp([100]);
    await run();
    expect(nodes[0]!.calls).toEqual(['head', 'hash 97', 'blocks 98-100']);
    nodes[0]!.behaviour = 'fail';
    await expect(run()).rejects.toThrow(/^n1 refused head$/);
    expect(reports[1]).toMatchObject({ allFailed: true, endpoints: [{ answered: 0, failed: 1 }] });
  });

  it('names the fields an answer of the wrong shape got wrong, not the first line of the validator', async () => {
    const { nodes, run } = setUp([100, 100]);
    const wrongShape = Object.assign(new Error('[\n  {\n    "code": "invalid_format"'), { name: 'ZodError', issues: [{ path: ['hash'], message: 'Invalid string' }] });
    for (const node of nodes) node.headNumber = () => Promise.reject(wrongShape);
    await expect(run()).rejects.toThrow('Every ethereum RPC endpoint failed: #1 n1.example: ZodError: hash: Invalid string; #2 n2.example: ZodError: hash: Invalid string');
  });

  it("asks where a transaction is mined on the run's endpoint when every endpoint can say", async () => {
    const first = { headNumber: async () => 10, blockHash: async () => 'a', blocks: async () => [], minedAt: async () => ({ number: 5, hash: 'a5' }) };
    const second = { ...first, minedAt: async () => ({ number: 5, hash: 'b5' }) };
    const reader = new FailoverNetworkReader(
      'ethereum',
      [
        { label: '#1', reader: first },
        { label: '#2', reader: second },
      ],
      { maxLagBlocks: 1, coolDownMs: 1, callTimeoutMs: 50 },
    );
    await expect(reader.minedAt!('0xabc')).resolves.toEqual({ number: 5, hash: 'a5' });
    first.minedAt = async () => {
      throw new Error('down');
    };
    await expect(reader.minedAt!('0xabc')).resolves.toEqual({ number: 5, hash: 'b5' });
  });

  it('names each configured endpoint by its place and host alone, never its credentials, path or query', async () => {
    const reports: RpcRunReport[] = [];
    const reader = networkReaderOf('bitcoin', { tokens: {}, confirmations: 2, watched: true, rpcUrl: 'http://gateway:s3cret@127.0.0.1:1,http://127.0.0.1:2/v2/key-1?apikey=key-2' }, (report) =>
      reports.push(report),
    );
    const failure = (await reader.observeRun(() => reader.headNumber()).catch((error: unknown) => error)) as Error;
    expect(failure.message).toMatch(/^Every bitcoin RPC endpoint failed: #1 127\.0\.0\.1:1: .*; #2 127\.0\.0\.1:2: /);
    expect(JSON.stringify(reports)).not.toMatch(/s3cret|key-1|key-2/);
    expect(reports[0]!.endpoints.map((endpoint) => endpoint.label)).toEqual(['#1 127.0.0.1:1', '#2 127.0.0.1:2']);
  });
});
