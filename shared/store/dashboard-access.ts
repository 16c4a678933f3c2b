/** The dashboard's access over its DynamoDB tables and the vault: one wiring for the functions, the admin CLI and the local runtime. */
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { DashboardAccess, type SecretBox } from '../domain/dashboard/index.js';
import type { SealedSecret } from '../domain/kernel/index.js';
import { open, seal, type DataKeySource } from '../vault/envelope.js';
import { DynamoAuditLog } from './audit-log.js';
import { DynamoInvitationStore } from './dashboard-invitations.js';
import { DynamoSessionStore } from './dashboard-sessions.js';
import { DynamoDashboardUserStore } from './dashboard-users.js';
import type { TableKey } from './tables.js';

/** TOTP seeds at rest: sealed with the vault, each bound to its user. */
const sealedWith = (keys: DataKeySource): SecretBox<SealedSecret> => ({
  seal: (context, secret) => seal(keys, secret, context),
  open: (context, sealed) => open(keys, sealed, context),
});

export const dynamoDashboardAccess = (
  client: DynamoDBDocumentClient,
  tables: Pick<Record<TableKey, string>, 'dashboardUsers' | 'dashboardInvitations' | 'dashboardSessions' | 'auditLog'>,
  keys: DataKeySource,
  clock: () => Date = () => new Date(),
): DashboardAccess<SealedSecret> =>
  new DashboardAccess({
    users: new DynamoDashboardUserStore(client, tables),
    invitations: new DynamoInvitationStore(client, tables),
    sessions: new DynamoSessionStore(client, tables.dashboardSessions),
    audit: new DynamoAuditLog(client, tables.auditLog),
    secrets: sealedWith(keys),
    clock,
  });
