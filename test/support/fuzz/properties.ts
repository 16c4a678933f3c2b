/**
 * The property every route must hold, as fast-check runs it: batches of generated requests sent
 * at once, each answer checked, and the tables read before and after so that a refused request
 * that changed anything is caught. The settings come from the environment so that `npm run fuzz`
 * runs the very same property longer, or replays one failure.
 */
import fc from 'fast-check';
import { HTTP_ROUTES, type HttpRoute } from '../../../shared/routes.js';
import { answerProblem, changedItems, send, type Answer, type WriteLog } from './harness.js';
import { requestFor, wireRequest, type FuzzRequest, type FuzzWorld } from './requests.js';

export interface FuzzSettings {
  /** Generated requests per route (the suite's floor is 1,000). */
  requestsPerRoute: number;
  /** Requests in flight at once within one property run. */
  batchSize: number;
  seed?: number;
  path?: string;
  /** Only this route (a replay). */
  route?: string;
}

export const DEFAULT_REQUESTS_PER_ROUTE = 1_000;

const integer = (text: string | undefined): number | undefined => (text === undefined || text === '' ? undefined : Number.parseInt(text, 10));

/** FUZZ_RUNS, FUZZ_BATCH, FUZZ_SEED, FUZZ_PATH and FUZZ_ROUTE. */
export function fuzzSettings(env: NodeJS.ProcessEnv): FuzzSettings {
  return {
    requestsPerRoute: integer(env.FUZZ_RUNS) ?? DEFAULT_REQUESTS_PER_ROUTE,
    batchSize: integer(env.FUZZ_BATCH) ?? 25,
    seed: integer(env.FUZZ_SEED),
    path: env.FUZZ_PATH || undefined,
    route: env.FUZZ_ROUTE || undefined,
  };
}

export interface FuzzTarget {
  world: FuzzWorld;
  url: URL;
  writes: WriteLog;
  /** Every item of the tables the requests can reach. */
  readTables(): Promise<Map<string, string>>;
}

export interface FuzzOutcome {
  sent: number;
  /** Answers by status class, e.g. `{ '2xx': 120, '4xx': 880 }`. */
  statuses: Record<string, number>;
}

const describeRequest = (request: FuzzRequest, answer?: Answer): string =>
  `${request.method} ${request.target.slice(0, 300)} headers=${JSON.stringify(request.headers.map(([n, v]) => [n, v.slice(0, 80)]))} ` +
  `body=${JSON.stringify('text' in request.body ? { ...request.body, text: request.body.text.slice(0, 300) } : request.body)}` +
  (answer ? ` -> ${answer.status} ${answer.body.toString('utf8').slice(0, 300)}` : '');

/**
 * A key beyond its reach (docs/merchant-guide.md#key-scopes) never gets through: a route outside
 * the key's scopes, or any route from an address the key is not allowed from, is refused, and
 * when the refusal is the key's (rather than the gateway's before it: an unknown path, a body too
 * large) it is the 403 that says why.
 */
const ROUTE_PATTERNS = HTTP_ROUTES.map((route) => ({
  route,
  pattern: new RegExp(`^${route.path.replace(/\{\w+\+\}/g, '.+').replace(/\{\w+\}/g, '[^/]+')}$`),
}));

/** The route a request reaches: a generated method or path may be another route's. */
function answeringRoute(request: FuzzRequest): HttpRoute | undefined {
  const path = request.target.split('?')[0]!;
  return ROUTE_PATTERNS.find(({ route, pattern }) => route.method === request.method && pattern.test(path))?.route;
}

function keyReachProblem(request: FuzzRequest, answer: Answer, world: FuzzWorld): string | undefined {
  const route = answeringRoute(request);
  if (route?.auth !== 'apiKey') return undefined;
  const keys = request.headers.filter(([name]) => name.toLowerCase() === 'x-api-key').map(([, value]) => value);
  if (keys.length !== 1) return undefined;
  const expected =
    keys[0] === world.keys.fenced ? 'This API key is not allowed from this address' : keys[0] === world.keys.readOnly && route.scope !== 'read' ? `This API key lacks the scope ${route.scope}` : undefined;
  if (expected === undefined) return undefined;
  if (answer.status < 400) return `a key beyond its reach was answered ${answer.status}`;
  if (answer.status !== 403) return undefined;
  const errors = (JSON.parse(answer.body.toString('utf8')) as { errors?: Array<{ code: string; message: string }> }).errors;
  return errors?.[0]?.code === 'forbidden' && errors[0].message === expected ? undefined : `a key beyond its reach was refused with ${JSON.stringify(errors)}, not "${expected}"`;
}

/** Runs the property for one route; throws fast-check's report, with the replay command, on failure. */
export async function fuzzRoute(route: HttpRoute, target: FuzzTarget, settings: FuzzSettings): Promise<FuzzOutcome> {
  const outcome: FuzzOutcome = { sent: 0, statuses: {} };
  let tables = await target.readTables();
  let nextTag = 0;

  const property = fc.asyncProperty(fc.array(requestFor(route, target.world), { minLength: settings.batchSize, maxLength: settings.batchSize }), async (requests) => {
    const before = tables;
    const tags = requests.map(() => `${route.name}#${nextTag++}`);
    const answers = await Promise.all(requests.map((request, i) => send(target.url, wireRequest(request), tags[i]!)));
    outcome.sent += requests.length;
    tables = await target.readTables();
    try {
      answers.forEach((answer, i) => {
        const statusClass = `${Math.floor(answer.status / 100)}xx`;
        outcome.statuses[statusClass] = (outcome.statuses[statusClass] ?? 0) + 1;
        const problem = answerProblem(requests[i]!.target, answer, target.world.answersEnvelopes[route.name] ?? false) ?? keyReachProblem(requests[i]!, answer, target.world);
        if (problem) throw new Error(`${problem}\n  request: ${describeRequest(requests[i]!, answer)}`);
      });
      // Every changed item must have been written for a request that was not refused.
      const accepted = new Set(answers.flatMap((answer, i) => (answer.status < 400 ? [...target.writes.itemsOf(tags[i]!)] : [])));
      const unexplained = changedItems(before, tables).filter((item) => !accepted.has(item));
      if (unexplained.length > 0) {
        const writers = answers.flatMap((answer, i) => (unexplained.some((item) => target.writes.itemsOf(tags[i]!).has(item)) ? [describeRequest(requests[i]!, answer)] : []));
        throw new Error(`refused requests changed ${unexplained.join(', ')}\n  written by: ${writers.join('\n  ') || 'no request of the batch'}`);
      }
    } finally {
      for (const tag of tags) target.writes.forget(tag);
    }
  });

  const runs = Math.ceil(settings.requestsPerRoute / settings.batchSize);
  // The failing request is named in the error: no shrinking, whose every step is a whole batch against changed tables.
  const details = await fc.check(property, { numRuns: runs, seed: settings.seed, path: settings.path, endOnFailure: true });
  if (details.failed) {
    const replay = `FUZZ_ROUTE=${route.name} FUZZ_SEED=${details.seed} FUZZ_PATH=${details.counterexamplePath ?? ''} FUZZ_BATCH=${settings.batchSize} npm run fuzz`;
    // fast-check's own report would print the whole batch, huge strings and all; the error names the request.
    const reason = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
    throw new Error(`${route.method} ${route.path} failed after ${details.numRuns} runs (seed ${details.seed}, path ${details.counterexamplePath}): ${reason}\nReplay: ${replay}`);
  }
  return outcome;
}
