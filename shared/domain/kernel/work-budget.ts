/**
 * How much a job may do in one invocation before it leaves the rest to the next: the books check
 * (docs/operations.md#the-hourly-check) and the report builder (docs/operations.md#reports) ask
 * between steps, and once it is spent stop where the next invocation can go on from.
 */
export interface WorkBudget {
  spent(): boolean;
}

/**
 * An invocation's budget: spent once less than `reserveMs` of its time is left, which is what
 * finishing the step under way and saving where it stopped takes.
 */
export const invocationBudget = (remainingMs: () => number, reserveMs: number): WorkBudget => ({ spent: () => remainingMs() < reserveMs });
