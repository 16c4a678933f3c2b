/**
 * What a rule of the domain refuses, in the domain's words. The HTTP layer gives each kind its
 * status and code in one place (shared/http/errors.ts); nothing here knows of either.
 */

/** A refusal the caller may see and act on; anything else that is thrown is a fault. */
export abstract class DomainError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** The thing named does not exist for the caller (another merchant's is not theirs to know of). */
export class NotFound extends DomainError {
  constructor(readonly what: string) {
    super(`${what} not found`);
  }
}

/** The request contradicts the current state: already paid, under review, changed meanwhile. */
export class Conflict extends DomainError {}

/** A value that must be unique (a UTR, an orderId) is already taken. */
export class AlreadyUsed extends DomainError {}

/** The merchant's available balance does not cover what the request would take from it. */
export class InsufficientBalance extends DomainError {
  constructor(available: string, currency: string) {
    super(`Insufficient balance: ${available} ${currency} available`);
  }
}

/** The thing is held until a person releases it: a merchant's payouts while its books are off. */
export class Held extends DomainError {}

/** The thing exists but is over for good: a canceled invoice. */
export class Gone extends DomainError {}

/** Something the request needs is away for now (a live rate, a payment provider): retry later. */
export class Unavailable extends DomainError {}

/** A piece of the request is larger than a rule allows. */
export class TooLarge extends DomainError {}

/** A message that is not from whom it claims to be (a provider event whose signature fails). */
export class NotAuthentic extends DomainError {}

export interface FieldProblem {
  /** Dotted path of the offending request field. */
  field: string;
  message: string;
}

/** The request breaks a rule: one problem per field, in the order found. */
export class Invalid extends DomainError {
  constructor(readonly problems: FieldProblem[]) {
    super(problems[0]?.message ?? 'Validation failed');
  }

  static of(field: string, message: string): Invalid {
    return new Invalid([{ field, message }]);
  }
}
