/**
 * Waiting work on one machine: a timer per job, in the process. A restart loses the timers; what
 * they would have done is recovered by the status reads, which compute a due UTR or refund
 * decision from its stored time, and the gateway's reconciliation, which reads them.
 */
import type { DemoLog, Job, Scheduler } from '../core/ports.js';

export class TimerScheduler implements Scheduler {
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly running = new Set<Promise<void>>();
  private stopped = false;

  constructor(
    private readonly run: (job: Job) => Promise<void>,
    private readonly log: DemoLog,
  ) {}

  async schedule(job: Job, at: Date): Promise<void> {
    if (this.stopped) return;
    const timer = setTimeout(
      () => {
        this.timers.delete(timer);
        const running: Promise<void> = this.run(job)
          .catch((error: unknown) => this.log.error('Scheduled job failed', { kind: job.kind, providerReference: job.providerReference }, error))
          .finally(() => this.running.delete(running));
        this.running.add(running);
      },
      Math.max(at.getTime() - Date.now(), 0),
    );
    this.timers.add(timer);
  }

  /** Drops the jobs not yet due and waits for those running. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await Promise.all(this.running);
  }
}
