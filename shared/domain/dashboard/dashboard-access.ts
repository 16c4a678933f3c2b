/**
 * Who may use the dashboard, and how they get in (docs/merchant-guide.md#dashboard): invitations
 * by a one-time link, the password and second factor set when one is taken, sign-in with its
 * lockout, sessions and signing out everywhere, the merchant's users, and the audit log of every
 * change. Pure: the stores and the secret box are ports.
 */
import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import {
  DASHBOARD_ROLES,
  hashPassword,
  INVITATION_SECONDS,
  isLocked,
  newRecoveryCodes,
  newToken,
  passwordProblem,
  requiresSecondFactor,
  signInFailure,
  tokenDigest,
  useRecoveryCode,
  verifyPassword,
  type DashboardRole,
  type PasswordProblem,
  type SignInFailure,
} from './dashboard-users.js';
import { isLive, newSession, touched, type DashboardSession } from './dashboard-sessions.js';
import { Conflict, NotFound } from '../kernel/index.js';
import { newTotpSecret, totpStep, verifyTotp } from './totp.js';

/** E-mail addresses as people type them; kept lower-cased, one user per address. */
export const emailSchema = z
  .string()
  .trim()
  .max(254)
  .email()
  .transform((email) => email.toLowerCase());

export const invitationRequestSchema = z.strictObject({ email: emailSchema, role: z.enum(DASHBOARD_ROLES) });
export type InvitationRequest = z.output<typeof invitationRequestSchema>;

/** A sealed secret (the TOTP seed), opened only to check a code. */
export interface SecretBox<Sealed> {
  seal(context: string, secret: string): Promise<Sealed>;
  open(context: string, sealed: Sealed): Promise<string>;
}

export interface DashboardUser<Sealed = unknown> {
  /** Lower-cased; the key of the user, unique across the gateway. */
  email: string;
  merchantId: string;
  role: DashboardRole;
  passwordHash: string;
  /** The TOTP seed, sealed; absent when the user has no second factor (never for an owner). */
  totpSecret?: Sealed;
  /** The last TOTP step accepted: a code is taken once. */
  lastTotpStep?: number;
  recoveryCodeDigests: string[];
  failedSignIns: number;
  lockedUntil?: string;
  createdAt: string;
}

export interface Invitation {
  /** The digest of the link's token. */
  id: string;
  merchantId: string;
  email: string;
  role: DashboardRole;
  /** The inviting user's e-mail, or `operator` for the admin CLI. */
  invitedBy: string;
  createdAt: string;
  expiresAt: string;
}

export type AuditAction =
  | 'user.invited'
  | 'user.joined'
  | 'user.removed'
  | 'user.signed_in'
  | 'user.locked'
  | 'user.signed_out_everywhere'
  | 'settings.updated'
  | 'callback_secret.rotated'
  | 'api_key.created'
  | 'api_key.revoked'
  | 'callback.resent'
  | 'report.requested'
  | 'payout_address.added'
  | 'payout_address.removed'
  | 'payout.approved'
  | 'payout.rejected'
  | 'payout.requested'
  | 'refund.requested';

export interface AuditEntry {
  merchantId: string;
  id: string;
  at: string;
  /** Who did it: a user's e-mail, or `operator`. */
  actor: string;
  action: AuditAction;
  /** What it was done to: a user, a key, a transaction, an invoice. */
  subject?: string;
}

export interface DashboardUserStore<Sealed> {
  get(email: string): Promise<DashboardUser<Sealed> | undefined>;
  listByMerchant(merchantId: string): Promise<Array<DashboardUser<Sealed>>>;
  /** Takes the invitation and creates its user, with its audit entry, in one transaction; false when the invitation was taken or the e-mail is a user's already. */
  join(user: DashboardUser<Sealed>, invitationId: string, entry: AuditEntry): Promise<boolean>;
  /**
   * Writes a successful sign-in: no failures, the code or recovery code it used. Only if the user
   * is not locked at `at` and its failures, last code and recovery codes are still those of
   * `before` (a racing sign-in counted a failure, locked the account or used the code first: false).
   */
  recordSignIn(before: DashboardUser<Sealed>, state: SignInState, at: Date): Promise<boolean>;
  /**
   * Counts a failed sign-in at once, however many race it (an atomic increment, not a read and a
   * write): `locked_already` while the user is locked, when nothing is counted; `locked` for the
   * one failure that reached `maxFailures`, which locked the user until `lockedUntil` and set the
   * count to zero; `counted` otherwise (an unknown user included).
   */
  countFailedSignIn(email: string, failure: SignInFailure): Promise<'counted' | 'locked' | 'locked_already'>;
  /** Removes the user of `merchantId`, with its audit entry; false when there is none. */
  remove(merchantId: string, email: string, entry: AuditEntry): Promise<boolean>;
}

export type SignInState = Pick<DashboardUser, 'lastTotpStep' | 'recoveryCodeDigests'>;

/**
 * A fresh TOTP code a user gave to confirm a change, as the step it is of: the change is written
 * with the user's last step moved to it, only while no code of this step or a later one was taken
 * (a sign-in or another change), so that no code confirms twice.
 */
export interface CodeUse {
  email: string;
  step: number;
}

export interface InvitationStore {
  /** Stores the invitation (forgotten by the store after it expires) with its audit entry. */
  put(invitation: Invitation, entry: AuditEntry): Promise<void>;
  get(id: string): Promise<Invitation | undefined>;
}

export interface SessionStore {
  put(session: DashboardSession): Promise<void>;
  get(id: string): Promise<DashboardSession | undefined>;
  /** Moves the session's idle limit on. */
  touch(session: DashboardSession): Promise<void>;
  delete(id: string): Promise<void>;
  /** Ends every session of the user. */
  deleteAllOf(email: string): Promise<void>;
}

export interface AuditLog {
  append(entry: AuditEntry): Promise<void>;
  /** The merchant's entries, newest first. */
  list(merchantId: string, limit: number): Promise<AuditEntry[]>;
}

export interface DashboardAccessDeps<Sealed> {
  users: DashboardUserStore<Sealed>;
  invitations: InvitationStore;
  sessions: SessionStore;
  audit: AuditLog;
  secrets: SecretBox<Sealed>;
  clock: () => Date;
}

/** Who is signed in: the session and its user as they are now. */
export interface SignedIn {
  session: DashboardSession;
  user: DashboardUser;
}

export type JoinProblem = PasswordProblem | 'passwords_differ' | 'code_required' | 'code_wrong';

export interface JoinRequest {
  password: string;
  passwordAgain: string;
  /** The seed the enrolment page showed; with `code`, the second factor. */
  totpSecret?: string;
  code?: string;
}

/** A session's idle limit is written again no more often than this: a page a second costs no write a second. */
const TOUCH_AFTER_SECONDS = 60;

/** How many audit entries the page shows. */
export const AUDIT_PAGE = 100;

const totpContext = (email: string): string => `dashboard-totp:${email}`;

/** A hash no password matches, checked when there is no such user, so a sign-in takes as long either way. */
let decoyHash: Promise<string> | undefined;

export class DashboardAccess<Sealed> {
  constructor(private readonly deps: DashboardAccessDeps<Sealed>) {}

  private entry(merchantId: string, actor: string, action: AuditAction, subject?: string): AuditEntry {
    return { merchantId, id: randomUUID(), at: this.deps.clock().toISOString(), actor, action, ...(subject === undefined ? {} : { subject }) };
  }

  /**
   * Invites a person to the merchant: the link's token, returned this once. `invitedBy` is a user's
   * e-mail, or `operator`. An address that is already one of the merchant's users is refused (the
   * merchant lists its users anyway); one that is another merchant's user is invited exactly as an
   * unknown address is, the same reads and writes and the same answer, so that no answer tells one
   * merchant of another's people. Such an invitation cannot be taken: an address is one user.
   */
  async invite(merchantId: string, request: InvitationRequest, invitedBy: string): Promise<{ token: string; invitation: Invitation }> {
    if ((await this.deps.users.get(request.email))?.merchantId === merchantId) throw new Conflict(`${request.email} is a dashboard user of this merchant already`);
    const now = this.deps.clock();
    const token = newToken();
    const invitation: Invitation = {
      id: tokenDigest(token),
      merchantId,
      email: request.email,
      role: request.role,
      invitedBy,
      createdAt: now.toISOString(),
      expiresAt: new Date(now.getTime() + INVITATION_SECONDS * 1000).toISOString(),
    };
    await this.deps.invitations.put(invitation, this.entry(merchantId, invitedBy, 'user.invited', `${request.email} (${request.role})`));
    return { token, invitation };
  }

  /** The invitation a link's token is, while it may be taken. */
  async invitation(token: string): Promise<Invitation | undefined> {
    const invitation = await this.deps.invitations.get(tokenDigest(token));
    return invitation && Date.parse(invitation.expiresAt) > this.deps.clock().getTime() ? invitation : undefined;
  }

  /** A fresh TOTP seed for the enrolment page. */
  newTotpSecret(): string {
    return newTotpSecret();
  }

  /**
   * Takes an invitation: the user is created with its password and (for owners always) its second
   * factor, and signed in. The recovery codes are returned this once, when there is a second factor.
   */
  async join(token: string, request: JoinRequest): Promise<{ problems: JoinProblem[] } | { user: DashboardUser<Sealed>; sessionToken: string; session: DashboardSession; recoveryCodes: string[] }> {
    const invitation = await this.invitation(token);
    if (!invitation) throw new NotFound('Invitation');
    const now = this.deps.clock();
    const problems: JoinProblem[] = [];
    const weak = passwordProblem(request.password, [invitation.email]);
    if (weak) problems.push(weak);
    if (request.password !== request.passwordAgain) problems.push('passwords_differ');
    const code = request.code?.trim() ?? '';
    const enrolling = code !== '' || requiresSecondFactor(invitation.role);
    let step: number | undefined;
    if (enrolling) {
      if (code === '') problems.push('code_required');
      else if (!request.totpSecret || (step = verifyTotp(request.totpSecret, code, now)) === undefined) problems.push('code_wrong');
    }
    if (problems.length > 0) return { problems };
    const recovery = enrolling ? newRecoveryCodes() : { codes: [], digests: [] };
    const user: DashboardUser<Sealed> = {
      email: invitation.email,
      merchantId: invitation.merchantId,
      role: invitation.role,
      passwordHash: await hashPassword(request.password),
      ...(enrolling && { totpSecret: await this.deps.secrets.seal(totpContext(invitation.email), request.totpSecret!), lastTotpStep: step }),
      recoveryCodeDigests: recovery.digests,
      failedSignIns: 0,
      createdAt: now.toISOString(),
    };
    if (!(await this.deps.users.join(user, invitation.id, this.entry(user.merchantId, user.email, 'user.joined', user.role)))) throw new NotFound('Invitation');
    return { user, ...(await this.startSession(user)), recoveryCodes: recovery.codes };
  }

  /**
   * Signs a person in with their e-mail, password and, when they have a second factor, a TOTP code
   * or an unused recovery code. Every refusal is the same `undefined`: a wrong password, a wrong
   * code, a locked account and an unknown address are not told apart.
   */
  async signIn(email: string, password: string, code: string): Promise<{ sessionToken: string; session: DashboardSession } | undefined> {
    const now = this.deps.clock();
    const address = emailSchema.safeParse(email);
    const user = address.success ? await this.deps.users.get(address.data) : undefined;
    if (!user) {
      await verifyPassword(password, await (decoyHash ??= hashPassword(newToken())));
      return undefined;
    }
    if (isLocked(user, now)) return undefined;
    const secondFactor = await this.secondFactor(user, code.trim(), now);
    if (!(await verifyPassword(password, user.passwordHash)) || !secondFactor) {
      if ((await this.deps.users.countFailedSignIn(user.email, signInFailure(now))) === 'locked') await this.deps.audit.append(this.entry(user.merchantId, user.email, 'user.locked'));
      return undefined;
    }
    // A racing sign-in that wrote first (a failure counted, the account locked, the same code used) makes this one fail too.
    if (!(await this.deps.users.recordSignIn(user, secondFactor, now))) return undefined;
    await this.deps.audit.append(this.entry(user.merchantId, user.email, 'user.signed_in'));
    return this.startSession(user);
  }

  /**
   * What a fresh TOTP code of the signed-in user is, to confirm a change that asks for one (a payout
   * address): within a step of now and after the last code they used, signing in included. `used`
   * when it is a code of now but taken already (the person waits for the next), `wrong` for anything
   * else, a user without a second factor included: recovery codes are for signing in only. Nothing is
   * written: the change writes the code's use with itself (`CodeUse`).
   */
  async freshCode({ user }: SignedIn, code: string): Promise<CodeUse | 'used' | 'wrong'> {
    const trimmed = code.trim();
    if (user.totpSecret === undefined || !/^\d{6}$/.test(trimmed)) return 'wrong';
    const secret = await this.deps.secrets.open(totpContext(user.email), user.totpSecret as Sealed);
    const now = this.deps.clock();
    const step = verifyTotp(secret, trimmed, now, user.lastTotpStep);
    if (step !== undefined) return { email: user.email, step };
    return verifyTotp(secret, trimmed, now) === undefined ? 'wrong' : 'used';
  }

  /** The second factor's state after `code`, or undefined when it is wrong; the user's own when they have none. */
  private async secondFactor(user: DashboardUser<Sealed>, code: string, now: Date): Promise<Pick<DashboardUser, 'lastTotpStep' | 'recoveryCodeDigests'> | undefined> {
    if (user.totpSecret === undefined) return { lastTotpStep: user.lastTotpStep, recoveryCodeDigests: user.recoveryCodeDigests };
    if (/^\d{6}$/.test(code)) {
      const secret = await this.deps.secrets.open(totpContext(user.email), user.totpSecret);
      const step = verifyTotp(secret, code, now, user.lastTotpStep);
      return step === undefined ? undefined : { lastTotpStep: step, recoveryCodeDigests: user.recoveryCodeDigests };
    }
    const left = code === '' ? undefined : useRecoveryCode(user.recoveryCodeDigests, code);
    return left && { lastTotpStep: user.lastTotpStep ?? totpStep(now), recoveryCodeDigests: left };
  }

  private async startSession(user: DashboardUser<Sealed>): Promise<{ sessionToken: string; session: DashboardSession }> {
    const { token, session } = newSession({ merchantId: user.merchantId, userId: user.email, role: user.role }, this.deps.clock());
    await this.deps.sessions.put(session);
    return { sessionToken: token, session };
  }

  /**
   * The session a cookie's token is and its user as they are now (a role changed or a user removed
   * takes effect at the next page), when both are still live; the idle limit moves on.
   */
  async signedIn(sessionToken: string | undefined): Promise<SignedIn | undefined> {
    if (!sessionToken) return undefined;
    const now = this.deps.clock();
    const session = await this.deps.sessions.get(tokenDigest(sessionToken));
    if (!session || !isLive(session, now)) return undefined;
    const user = await this.deps.users.get(session.userId);
    if (!user || user.merchantId !== session.merchantId) return undefined;
    if (now.getTime() - Date.parse(session.lastSeenAt) >= TOUCH_AFTER_SECONDS * 1000) await this.deps.sessions.touch(touched(session, now));
    return { session: { ...session, role: user.role }, user };
  }

  async signOut(session: DashboardSession): Promise<void> {
    await this.deps.sessions.delete(session.id);
  }

  /** Ends every session of the user, this one too. */
  async signOutEverywhere({ user }: SignedIn): Promise<void> {
    await this.deps.sessions.deleteAllOf(user.email);
    await this.deps.audit.append(this.entry(user.merchantId, user.email, 'user.signed_out_everywhere'));
  }

  async users(merchantId: string): Promise<DashboardUser[]> {
    return (await this.deps.users.listByMerchant(merchantId)).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  /** Removes another user of the merchant and ends their sessions; an owner cannot remove themselves (a merchant keeps an owner). */
  async removeUser(by: SignedIn, email: string): Promise<void> {
    if (!emailSchema.safeParse(email).success) throw new NotFound('User');
    if (email === by.user.email) throw new Conflict('You cannot remove yourself');
    if (!(await this.deps.users.remove(by.user.merchantId, email, this.entry(by.user.merchantId, by.user.email, 'user.removed', email)))) throw new NotFound('User');
    await this.deps.sessions.deleteAllOf(email);
  }

  /** Records a change made through the dashboard. */
  async record(by: SignedIn, action: AuditAction, subject?: string): Promise<void> {
    await this.deps.audit.append(this.entry(by.user.merchantId, by.user.email, action, subject));
  }

  async auditLog(merchantId: string): Promise<AuditEntry[]> {
    return this.deps.audit.list(merchantId, AUDIT_PAGE);
  }
}
