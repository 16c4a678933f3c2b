/**
 * JSON request bodies, read so that nothing the client wrote is lost or reinterpreted: every
 * number stays the exact text it was sent as (a `JsonNumber`), a repeated key is refused rather
 * than one of its values silently winning, and a string that is not valid Unicode (a lone
 * surrogate, which no store can keep) is a 422 on its field.
 */
import { parse } from 'lossless-json';
import { ApiError } from '../errors.js';
import { type FieldProblem, Invalid, JsonNumber } from '../domain/kernel/index.js';

const keepNumberText = (text: string): JsonNumber => new JsonNumber(text);

/**
 * How deep a body may nest. No request of the API nests more than a few levels; past this, the
 * recursive steps after parsing (validation, the idempotency record's hash) could exhaust the stack.
 */
const MAX_NESTING_DEPTH = 64;

const nestedTooDeeply = () => new ApiError('bad_request', 'Request body is nested too deeply');

/**
 * Every string (key or value) that is not well-formed UTF-16, with its path; throws a 400 for a
 * body nested deeper than MAX_NESTING_DEPTH. Iterative: nesting depth is the client's.
 */
function illFormedStrings(body: unknown): FieldProblem[] {
  const found: FieldProblem[] = [];
  const pending: Array<[unknown, string[]]> = [[body, []]];
  for (let next = pending.pop(); next; next = pending.pop()) {
    const [value, path] = next;
    if (path.length > MAX_NESTING_DEPTH) throw nestedTooDeeply();
    if (typeof value === 'string') {
      if (!value.isWellFormed()) found.push({ field: path.join('.'), message: `${path.join('.')} is not valid Unicode text` });
    } else if (typeof value === 'object' && value !== null && !(value instanceof JsonNumber)) {
      const children: Array<[unknown, string[]]> = [];
      for (const [key, item] of Object.entries(value)) {
        const field = [...path, key.toWellFormed()];
        if (!key.isWellFormed()) found.push({ field: field.join('.'), message: 'Property names must be valid Unicode text' });
        children.push([item, field]);
      }
      // Reversed onto the stack, so problems come out in the order they stand in the body.
      pending.push(...children.reverse());
    }
  }
  return found;
}

/** Parses a body's text; 400 when it is not JSON (syntax, duplicate key, nesting too deep to read). */
export function parseJsonBody(text: string): unknown {
  let body: unknown;
  try {
    body = parse(text, null, keepNumberText);
  } catch (error) {
    if (error instanceof RangeError) throw nestedTooDeeply();
    const reason = error instanceof SyntaxError && /^Duplicate key/.test(error.message) ? ': a property appears twice' : '';
    throw new ApiError('bad_request', `Request body is not valid JSON${reason}`);
  }
  const problems = illFormedStrings(body);
  if (problems.length > 0) throw new Invalid(problems);
  return body;
}
