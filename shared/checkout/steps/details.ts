/** The form for the customer details an invoice's method still lacks, with the problem of each field sent back. */
import type { CheckoutPage } from '../page.js';
import type { DetailProblem, DirectOpenField, Invoice } from '../../domain/invoicing/index.js';
import { html, type Html } from '../../http/html.js';
import { methodName } from '../fragments.js';
import type { Translator } from '../language.js';

const FIELD_INPUTS: Record<DirectOpenField, { type: string; autocomplete: string; dir: 'auto' | 'ltr' }> = {
  customerFullName: { type: 'text', autocomplete: 'name', dir: 'auto' },
  customerFirstName: { type: 'text', autocomplete: 'given-name', dir: 'auto' },
  customerLastName: { type: 'text', autocomplete: 'family-name', dir: 'auto' },
  customerEmail: { type: 'email', autocomplete: 'email', dir: 'ltr' },
  customerAccount: { type: 'text', autocomplete: 'off', dir: 'ltr' },
};

function problemText(t: Translator, problem: DetailProblem): Html {
  if (problem.rule === 'tooLong') return t.html('problem.tooLong', { max: problem.max ?? 0 });
  return t.html(`problem.${problem.rule}`);
}

export function detailsSection(t: Translator, invoice: Invoice, merchantName: string, page: Extract<CheckoutPage, { kind: 'details' }>, action: string): Html {
  const problems = new Map(page.problems.map((problem) => [problem.field, problem]));
  const inputs = page.fields.map((field) => {
    const input = FIELD_INPUTS[field];
    const problem = problems.get(field);
    return html`<label for="${field}">${t.html(`field.${field}`)}</label>
<input id="${field}" name="${field}" type="${input.type}" autocomplete="${input.autocomplete}" dir="${input.dir}" value="${page.values[field] ?? ''}" required${
      problem === undefined ? '' : html` aria-invalid="true" aria-describedby="${field}-error"`
    }>
${problem === undefined ? '' : html`<p class="error" id="${field}-error">${problemText(t, problem)}</p>`}`;
  });
  return html`<h1>${t.html('details.title')}</h1>
<p>${t.html('details.intro', { merchant: merchantName, method: methodName(t, invoice) })}</p>
<form method="post" action="${action}">
${inputs}
<button type="submit">${t.html('details.continue')}</button>
</form>`;
}
