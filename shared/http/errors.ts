/** Where a refusal of the domain becomes the merchant contract's status and code: here only. */
import { AlreadyUsed, Conflict, DomainError, Gone, Held, InsufficientBalance, Invalid, NotAuthentic, NotFound, TooLarge, Unavailable } from '../domain/kernel/index.js';
import { ApiError, type ErrorCode } from '../errors.js';

const CODE_OF_KIND: ReadonlyArray<readonly [abstract new (...args: never[]) => DomainError, ErrorCode]> = [
  [NotFound, 'not_found'],
  [InsufficientBalance, 'payment_required'],
  [Conflict, 'conflict'],
  [AlreadyUsed, 'db_unique_violation'],
  [Gone, 'gone'],
  [Held, 'locked'],
  [Unavailable, 'service_unavailable'],
  [TooLarge, 'payload_too_large'],
  [NotAuthentic, 'unauthorized'],
];

/** The answer a failure gets: its own for an ApiError, its kind's for a domain refusal, none for a fault (a 500). */
export function apiErrorOf(error: unknown): ApiError | undefined {
  if (error instanceof ApiError) return error;
  if (error instanceof Invalid) {
    return new ApiError(
      'unprocessable_content',
      error.message,
      error.problems.map(({ field, message }) => ({ code: 'unprocessable_content', message, field })),
    );
  }
  if (!(error instanceof DomainError)) return undefined;
  const code = CODE_OF_KIND.find(([kind]) => error instanceof kind)?.[1];
  if (!code) throw new Error(`${error.name} has no status and code in shared/http/errors.ts`);
  return new ApiError(code, error.message);
}
