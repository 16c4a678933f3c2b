/**
 * The run's order: vitest's (each project's files, longest first by the last run's timings, largest
 * first where none are kept), behind the few files that take longest here. Without timings, as in a
 * fresh clone, the route fuzz (about 2 minutes) would start among the last files and end minutes
 * after the others; started first, it ends with them.
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

const LONGEST = ['test/integration/route-fuzz.test.ts', 'test/infra/cdk-app.test.ts'];

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (spec: TestSpecification): number => {
      const index = LONGEST.indexOf(relative(spec.project.config.root, spec.moduleId));
      return index === -1 ? LONGEST.length : index;
    };
    // Array.prototype.sort is stable: the others keep vitest's order.
    return (await super.sort(files)).sort((a, b) => rank(a) - rank(b));
  }
}
