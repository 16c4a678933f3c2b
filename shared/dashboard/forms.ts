/**
 * The dashboard's forms: fields with their label and their problem beside them, and the problems
 * of the API's own schemas (zod) and rules (`Invalid`) told in the reader's language.
 */
import type * as z from 'zod';
import type { FieldProblem } from '../domain/kernel/index.js';
import { html, raw, type Html } from '../http/html.js';
import type { DashboardKey, DashboardTranslator } from './language.js';

/** Each field's problem, by the field's name in the form. */
export type FormProblems = ReadonlyMap<string, DashboardKey>;

export const NO_PROBLEMS: FormProblems = new Map();

/** Why a TOTP code given with a change was not taken, in the reader's words. */
export const CODE_PROBLEMS = { missing: 'problem.code_required', wrong: 'problem.code_wrong', used: 'problem.code_used' } as const satisfies Record<string, DashboardKey>;

/** What a zod issue means to a person, whatever the API's English message says. */
function issueKey(issue: z.core.$ZodIssue): DashboardKey {
  switch (issue.code) {
    case 'invalid_type':
      return issue.input === undefined ? 'problem.required' : 'problem.invalid';
    case 'too_small':
      return issue.origin === 'string' && issue.minimum === 1 ? 'problem.required' : 'problem.too_short';
    case 'too_big':
      return 'problem.too_long';
    case 'invalid_format':
      return issue.format === 'email' ? 'problem.email' : issue.format === 'url' ? 'problem.url' : issue.format === 'datetime' ? 'problem.date' : 'problem.invalid';
    default:
      return 'problem.invalid';
  }
}

/** A schema's issues, the first of each field (its top-level name: `frameAncestors.2` is the `frameAncestors` field). */
export function zodProblems(error: z.ZodError, fieldOf: (path: string) => string = (path) => path): FormProblems {
  const problems = new Map<string, DashboardKey>();
  for (const issue of error.issues) {
    const field = fieldOf(String(issue.path[0] ?? ''));
    if (!problems.has(field)) problems.set(field, issueKey(issue));
  }
  return problems;
}

/** A domain rule's problems (`Invalid`): URL fields get the URL's words, others the general ones. */
export function ruleProblems(problems: readonly FieldProblem[], urlFields: readonly string[] = []): FormProblems {
  const found = new Map<string, DashboardKey>();
  for (const { field } of problems) {
    const name = field.split('.')[0]!;
    if (!found.has(name)) found.set(name, urlFields.includes(name) ? 'problem.url' : 'problem.invalid');
  }
  return found;
}

export interface FieldOptions {
  name: string;
  label: string;
  type?: 'text' | 'email' | 'password' | 'url' | 'date' | 'textarea';
  value?: string;
  required?: boolean;
  autocomplete?: string;
  inputmode?: 'numeric' | 'text';
}

/** A labelled input; with a problem, marked invalid and described by it. */
export function field(t: DashboardTranslator, problems: FormProblems, { name, label, type = 'text', value = '', required, autocomplete, inputmode }: FieldOptions): Html {
  const id = `field-${name}`;
  const problem = problems.get(name);
  const attributes = raw(
    [
      required ? ' required' : '',
      autocomplete ? ` autocomplete="${autocomplete}"` : '',
      inputmode ? ` inputmode="${inputmode}"` : '',
      problem ? ` aria-invalid="true" aria-describedby="${id}-problem"` : '',
    ].join(''),
  );
  const control =
    type === 'textarea'
      ? html`<textarea id="${id}" name="${name}" rows="3"${attributes}>${value}</textarea>`
      : html`<input id="${id}" name="${name}" type="${type}" value="${type === 'password' ? '' : value}"${attributes}>`;
  return html`<label for="${id}">${label}</label>${control}${problem ? html`<p class="error" id="${id}-problem">${t.text(problem)}</p>` : ''}`;
}

/** Above a form that came back with problems: said once, in words, for those who do not see the marks. */
export const problemSummary = (t: DashboardTranslator, problems: FormProblems): Html => (problems.size > 0 ? html`<p class="alert" role="alert">${t.text('problem.summary')}</p>` : html``);
