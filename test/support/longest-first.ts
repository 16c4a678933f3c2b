/**
 * The run's order: vitest's (each project's files, longest first by the last run's timings, largest
 * first where none are kept), behind the route fuzz, the longest file here (about 2 minutes).
 * Without timings, as in a fresh clone, it would start after the e2e and infra files, two thirds
 * of the run's work, and end well after the others; started first, it ends with them (504 s against 575 s, simulated on three workers over the
 * durations of a whole run, in the order vitest gives a fresh clone: by project, then by size).
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const LONGEST = 'test/integration/route-fuzz.test.ts';

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const isLongest = (spec: TestSpecification): boolean => relative(spec.project.config.root, spec.moduleId) === LONGEST;
    // Array.prototype.sort is stable: the others keep vitest's order.
    return (await super.sort(files)).sort((a, b) => Number(isLongest(b)) - Number(isLongest(a)));
  }
}
