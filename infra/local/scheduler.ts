/**
 * EventBridge's schedule rules as timers: each scheduled function is invoked with a scheduled
 * event every so many seconds, and a run that is still going makes the next tick skip.
 */
import { randomUUID } from 'node:crypto';
import type { ScheduledEvent } from 'aws-lambda';
import type { ScheduledFunction } from '../../shared/routes.js';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION } from './environment.js';
import type { Invoke } from './functions.js';
import type { RuntimeLog } from './log.js';

export interface ScheduledJob {
  fn: ScheduledFunction;
  everySeconds: number;
  /** What the rule passes as the event instead of a scheduled event (a chain watcher's `{ network }`). */
  input?: Record<string, unknown>;
}

export interface Scheduler {
  /** Stops the timers and waits for runs in progress. */
  stop(): Promise<void>;
}

/**
 * How often the local runtime runs a scheduled function: the expiry sweep, the provider
 * reconciliation and the books check as GATEWAY_EXPIRY_SWEEP_S, GATEWAY_RECONCILE_S and
 * GATEWAY_BOOKS_CHECK_S say, each chain watcher as GATEWAY_CHAIN_POLL_S says; otherwise, and for
 * those three when unset, as often as the route table allows locally, else at its AWS rate.
 */
export function localEverySeconds(fn: ScheduledFunction, settings: { expirySweepSeconds?: number; chainPollSeconds: number; reconcileSeconds?: number; booksCheckSeconds?: number }): number {
  const given = {
    'expire-invoices': settings.expirySweepSeconds,
    'reconcile-provider-payments': settings.reconcileSeconds,
    'check-books': settings.booksCheckSeconds,
  }[fn.name];
  if (fn.perNetwork) return settings.chainPollSeconds;
  return given ?? fn.localEverySeconds ?? fn.everySeconds;
}

export function scheduledEvent(fn: ScheduledFunction, at: Date): ScheduledEvent {
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: LOCAL_ACCOUNT_ID,
    // EventBridge stamps whole seconds.
    time: at.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    region: LOCAL_REGION,
    resources: [`arn:aws:events:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:rule/${fn.name}`],
    detail: {},
  };
}

export function startScheduler(jobs: readonly ScheduledJob[], invoke: Invoke, log: RuntimeLog): Scheduler {
  const running = new Set<Promise<void>>();
  const timers = jobs.map(({ fn, everySeconds, input }) => {
    let current: Promise<void> | undefined;
    return setInterval(() => {
      if (current) {
        log.warn(`${fn.name}${input ? ` ${JSON.stringify(input)}` : ''} is still running; skipping this tick`);
        return;
      }
      const run: Promise<void> = invoke(fn, input ?? scheduledEvent(fn, new Date()))
        .then(
          () => undefined,
          (error: unknown) => log.error(`Scheduled run of ${fn.name} failed`, error),
        )
        .finally(() => {
          running.delete(run);
          current = undefined;
        });
      current = run;
      running.add(run);
    }, everySeconds * 1000);
  });
  return {
    async stop() {
      for (const timer of timers) clearInterval(timer);
      await Promise.all(running);
    },
  };
}
