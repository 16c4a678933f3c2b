/**
 * JSON-RPC over HTTP for the chain connectors: one call, or many calls in one request (a batch:
 * an array of calls answered by an array of answers, in any order, matched by id). Every answer is
 * checked: a body that is no JSON, a batch answered by no array, an answer without the id of a call
 * or a call without its answer throws, and an error answered to any one call fails them all, so a
 * run never goes on with part of what it asked for.
 */

/** An answer that is no JSON-RPC, or an error the node answered (with its code, when it gave a number). */
export class JsonRpcError extends Error {
  constructor(
    message: string,
    readonly code?: number,
  ) {
    super(message);
  }
}

export interface JsonRpcCall {
  method: string;
  params: unknown[];
}

export interface JsonRpcHttpOptions {
  /** `1.0` for Bitcoin Core, whose answers to 1.0 calls carry `error: null`; `2.0` for EVM nodes. */
  version: '1.0' | '2.0';
  /** How long one HTTP request may take; a run that waits longer fails and leaves its cursor. */
  timeoutMs: number;
  /** Reads the body: `JSON.parse`, or a lossless parser where amounts must stay exact. */
  parse: (text: string) => unknown;
  headers?: Record<string, string>;
  /** The error thrown for a bad answer, so that a connector's callers can tell its failures apart. */
  errorClass?: new (
    message: string,
    code?: number,
  ) => Error;
}

interface Answer {
  id?: unknown;
  result?: unknown;
  error?: { code?: unknown; message?: unknown } | null;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

export class JsonRpcHttp {
  private nextId = 0;

  constructor(
    private readonly endpoint: string,
    private readonly options: JsonRpcHttpOptions,
  ) {}

  async call(method: string, params: unknown[]): Promise<unknown> {
    const id = ++this.nextId;
    const { status, ok, body } = await this.post(method, { jsonrpc: this.options.version, id, method, params });
    if (!isObject(body)) throw this.error(`${method}: the node answered ${status} with no JSON-RPC answer`);
    return this.resultOf({ method, params }, body, ok, status);
  }

  /** The results of `calls`, in their order, from one HTTP request. */
  async batch(calls: readonly JsonRpcCall[]): Promise<unknown[]> {
    if (calls.length === 0) return [];
    const firstId = this.nextId + 1;
    this.nextId += calls.length;
    const what = `a batch of ${calls.length} ${[...new Set(calls.map((call) => call.method))].join('/')} calls`;
    const { status, ok, body } = await this.post(
      what,
      calls.map((call, index) => ({ jsonrpc: this.options.version, id: firstId + index, method: call.method, params: call.params })),
    );
    if (!Array.isArray(body)) {
      // A node that refuses the whole batch (too large, still starting) answers one error for it.
      if (isObject(body) && isObject(body.error)) throw this.error(`${what}: ${describeError(body.error)}`);
      throw this.error(`${what}: the node answered ${status} with no array`);
    }
    const answers = new Map<number, Answer>();
    for (const answer of body) {
      const index = isObject(answer) ? idOf(answer.id) - firstId : -1;
      if (!Number.isInteger(index) || index < 0 || index >= calls.length) {
        const error = isObject(answer) && isObject(answer.error) ? `: ${describeError(answer.error)}` : '';
        throw this.error(`${what}: the node answered an element without the id of any call${error}`);
      }
      if (answers.has(index)) throw this.error(`${what}: the node answered call ${index + 1} twice`);
      answers.set(index, answer as Answer);
    }
    return calls.map((call, index) => {
      const answer = answers.get(index);
      if (!answer) throw this.error(`${call.method} ${JSON.stringify(call.params)}: the node's answer to ${what} lacks it`);
      return this.resultOf(call, answer, ok, status);
    });
  }

  /** The results of `calls`, in their order, `size` calls to a request and at most `concurrency` requests at a time. */
  async batches(calls: readonly JsonRpcCall[], size: number, concurrency: number): Promise<unknown[]> {
    const chunks = Array.from({ length: Math.ceil(calls.length / size) }, (_, i) => calls.slice(i * size, (i + 1) * size));
    const results: unknown[][] = new Array(chunks.length);
    let next = 0;
    const workers = Array.from({ length: Math.min(concurrency, chunks.length) }, async () => {
      while (next < chunks.length) {
        const index = next++;
        results[index] = await this.batch(chunks[index]!);
      }
    });
    await Promise.all(workers);
    return results.flat();
  }

  private resultOf(call: JsonRpcCall, answer: Answer, ok: boolean, status: number): unknown {
    if (answer.error) throw this.error(`${call.method}: ${describeError(answer.error)}`, codeOf(answer.error));
    if (!ok || !('result' in answer)) throw this.error(`${call.method}: the node answered ${status} without a result`);
    return answer.result;
  }

  private async post(what: string, payload: unknown): Promise<{ status: number; ok: boolean; body: unknown }> {
    const response = await fetch(this.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...this.options.headers },
      body: JSON.stringify(payload),
      signal: AbortSignal.timeout(this.options.timeoutMs),
    });
    const text = await response.text();
    try {
      return { status: response.status, ok: response.ok, body: this.options.parse(text) };
    } catch {
      throw this.error(`${what}: the node answered ${response.status} with no JSON`);
    }
  }

  private error(message: string, code?: number): Error {
    return new (this.options.errorClass ?? JsonRpcError)(message, code);
  }
}

/** An answer's id: a number, or one a lossless parser kept as its text (which converts to its number). */
const idOf = (id: unknown): number => (typeof id === 'number' || (typeof id === 'object' && id !== null) ? Number(id) : Number.NaN);

/** An error's code: a number, or one a lossless parser kept as its text. */
const codeOf = (error: { code?: unknown }): number | undefined => {
  if (error.code === undefined || error.code === null) return undefined;
  const code = Number(error.code);
  return Number.isInteger(code) ? code : undefined;
};

const describeError = (error: { code?: unknown; message?: unknown }): string => `${String(error.message ?? 'error')} (code ${String(error.code)})`;
