/**
 * Why something failed, on one line for a log: each error with what lies beneath it (fetch's
 * `fetch failed` says little without the refused connection under it), and for an answer of the
 * wrong shape the fields that are wrong rather than the first line of the validator's message.
 */
export function failureReason(error: unknown): string {
  const reasons: string[] = [];
  for (let cause = error, depth = 0; cause !== undefined && depth < 3; cause = cause instanceof Error ? cause.cause : undefined, depth++) {
    if (!(cause instanceof Error)) {
      reasons.push(String(cause));
      continue;
    }
    const issues = (cause as { issues?: unknown }).issues;
    const message = Array.isArray(issues)
      ? issues
          .slice(0, 3)
          .map((issue: { path?: PropertyKey[]; message?: string }) => `${(issue.path ?? []).map(String).join('.') || 'the answer'}: ${issue.message}`)
          .join('; ')
      : cause.message.split('\n')[0];
    reasons.push(`${cause.name}: ${message}`);
  }
  return reasons.join(', caused by ');
}
