import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Invoke } from '../../infra/local/functions.js';
import { scheduledEvent, startScheduler } from '../../infra/local/scheduler.js';
import { silentLog } from '../support/logs.js';
import type { ScheduledFunction } from '../../shared/routes.js';

const sweep: ScheduledFunction = { kind: 'schedule', name: 'expire-invoices', everySeconds: 60, stages: ['demo'], tables: {} };

beforeEach(() => {
  vi.useFakeTimers({ now: new Date('2025-03-04T05:06:07.890Z') });
});

afterEach(() => {
  vi.useRealTimers();
});

describe('the local scheduler', () => {
  it('sends an EventBridge scheduled event, stamped in whole seconds', () => {
    expect(scheduledEvent(sweep, new Date('2025-03-04T05:06:07.890Z'))).toMatchObject({
      version: '0',
      'detail-type': 'Scheduled Event',
      source: 'aws.events',
      account: '000000000000',
      time: '2025-03-04T05:06:07Z',
      region: 'us-east-1',
      resources: ['arn:aws:events:us-east-1:000000000000:rule/expire-invoices'],
      detail: {},
    });
  });

  it('invokes the function every interval and never runs it twice at once', async () => {
    const finishers: Array<() => void> = [];
    const invoke = vi.fn<Invoke>(() => new Promise<unknown>((resolve) => finishers.push(() => resolve(undefined))));
    const scheduler = startScheduler([{ fn: sweep, everySeconds: 5 }], invoke, silentLog);

    await vi.advanceTimersByTimeAsync(4_999);
    expect(invoke).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(invoke).toHaveBeenCalledTimes(1);
    expect(invoke.mock.calls[0]![0]).toBe(sweep);

    await vi.advanceTimersByTimeAsync(10_000); // two ticks while the first run is still going
    expect(invoke).toHaveBeenCalledTimes(1);

    finishers[0]!();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(invoke).toHaveBeenCalledTimes(2);

    const stopped = scheduler.stop();
    let done = false;
    void stopped.then(() => (done = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(done).toBe(false); // waits for the run in progress
    finishers[1]!();
    await stopped;
    await vi.advanceTimersByTimeAsync(60_000);
    expect(invoke).toHaveBeenCalledTimes(2);
  });

  it('keeps running after a failed run', async () => {
    const invoke = vi.fn<Invoke>().mockRejectedValueOnce(new Error('boom')).mockResolvedValue(undefined);
    const scheduler = startScheduler([{ fn: sweep, everySeconds: 1 }], invoke, silentLog);
    await vi.advanceTimersByTimeAsync(2_000);
    expect(invoke).toHaveBeenCalledTimes(2);
    await scheduler.stop();
  });
});
