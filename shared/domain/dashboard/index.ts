export { DashboardAccess, invitationRequestSchema } from './dashboard-access.js';
export type {
  AuditAction,
  AuditEntry,
  AuditLog,
  CodeUse,
  DashboardUser,
  DashboardUserStore,
  Invitation,
  InvitationRequest,
  InvitationStore,
  SecretBox,
  SessionStore,
  SignedIn,
  SignInState,
} from './dashboard-access.js';
export { clearedSessionCookie, cookieScopeOf, sessionCookie, sessionTokenOf, validCsrf } from './dashboard-sessions.js';
export type { DashboardSession } from './dashboard-sessions.js';
export { can, DASHBOARD_ROLES, keyScopesOf, newToken, requiresSecondFactor } from './dashboard-users.js';
export type { Permission, SignInFailure } from './dashboard-users.js';
export { totpCode, totpStep, totpUri } from './totp.js';
