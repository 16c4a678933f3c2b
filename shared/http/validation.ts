import type { z } from 'zod';
import { Invalid, type FieldProblem } from '../domain/kernel/index.js';

const joinPath = (path: readonly PropertyKey[]): string => path.map(String).join('.');

/** zod issues -> one problem per field, in the order the schema declares them. */
export function zodProblems(error: z.ZodError): FieldProblem[] {
  return error.issues.flatMap((issue): FieldProblem[] => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({ field: joinPath([...issue.path, key]), message: `Unknown property "${key}"` }));
    }
    const field = joinPath(issue.path);
    if (issue.code === 'invalid_type' && issue.input === undefined) {
      return [{ field, message: `${field} is required` }];
    }
    return [{ field, message: `${field}: ${issue.message}` }];
  });
}

export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  // With the input on each issue, a missing field is told apart from one of the wrong type.
  const result = schema.safeParse(input, { reportInput: true });
  if (!result.success) throw new Invalid(zodProblems(result.error));
  return result.data;
}
