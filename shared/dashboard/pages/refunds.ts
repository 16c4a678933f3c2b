/**
 * An owner's refund of a deposit, from the deposit's page (docs/merchant-guide.md#refunds): the
 * form's fields judged by the API's own schema and rules, confirmed with a fresh code of the owner's
 * authenticator app, written with its audit entry and the code's use by the service. A refused form
 * comes back beside its fields and takes nothing.
 */
import { InsufficientBalance, Invalid } from '../../domain/kernel/index.js';
import { refundRequestSchema } from '../../domain/transactions/index.js';
import { dashboardUrl } from '../document.js';
import { CODE_PROBLEMS, type FormProblems, zodProblems } from '../forms.js';
import type { DashboardKey } from '../language.js';
import { redirect, signedInUser, type PageHandler } from '../page.js';
import { transactionPage } from './money.js';

const FORM_FIELDS = new Set(['amount', 'address', 'reason', 'code']);
/** The form field of the API's field: the deposit's own problems (`transactionId`) are told beside the amount. */
const formFieldOf = (name: string): string => (FORM_FIELDS.has(name) ? name : 'amount');

/** The domain's refusal beside the field it names (the deposit's own problems beside the amount); a short balance beside the amount. */
function refusedFields(error: unknown): FormProblems | undefined {
  if (error instanceof InsufficientBalance) return new Map([['amount', 'problem.balance']]);
  if (!(error instanceof Invalid)) return undefined;
  const problems = new Map<string, DashboardKey>();
  for (const { field: name } of error.problems) {
    const fieldName = formFieldOf(name);
    if (!problems.has(fieldName)) problems.set(fieldName, fieldName === 'code' ? 'problem.code_used' : 'problem.invalid');
  }
  return problems;
}

export const refundDeposit: PageHandler = async (request) => {
  const { context, services, form, params } = request;
  const signedIn = signedInUser(request);
  const transactionId = params.transactionId ?? '';
  const values = { amount: form.amount ?? '', address: form.address ?? '', reason: form.reason ?? '' };
  const parsed = refundRequestSchema.safeParse({
    transactionId,
    amount: values.amount.trim(),
    ...(values.address.trim() && { address: values.address.trim() }),
    ...(values.reason.trim() && { reason: values.reason.trim() }),
  });
  if (!parsed.success) return transactionPage(request, { problems: zodProblems(parsed.error, formFieldOf), values });
  const typed = form.code?.trim() ?? '';
  const code = typed === '' ? 'missing' : await services.access.freshCode(signedIn, typed);
  if (typeof code === 'string') return transactionPage(request, { problems: new Map([['code', CODE_PROBLEMS[code]]]), values });
  try {
    await services.refunds.create(signedIn.user.merchantId, parsed.data, code);
  } catch (error) {
    const problems = refusedFields(error);
    if (!problems) throw error;
    return transactionPage(request, { problems, values });
  }
  return redirect(dashboardUrl(context, `transactions/${transactionId}`, { done: 'refunded' }));
};
