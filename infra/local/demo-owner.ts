/**
 * The demo merchant's dashboard owner: invited and enrolled on the first start as any owner is
 * (an operator's invitation, a password, a TOTP second factor), its sign-in kept in
 * `{dataDir}/demo-owner.json` so every later start prints the same one. Demo only: a real owner's
 * password and TOTP key are never written anywhere (docs/operations.md#local-configuration).
 */
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import { type DashboardAccess, newToken, totpCode, totpStep } from '../../shared/domain/dashboard/index.js';
import { readJsonFile } from './json-file.js';

export const DEMO_OWNER_EMAIL = 'owner@demo.example';

const savedSchema = z.object({ email: z.string().min(1), password: z.string().min(12), totpSecret: z.string().regex(/^[A-Z2-7]+$/) });

export type DemoOwner = z.infer<typeof savedSchema>;

export const demoOwnerFile = (dataDir: string): string => join(dataDir, 'demo-owner.json');

/** The demo owner as saved, or a new one when there is none (a first start, or the store was wiped). */
export async function ensureDemoOwner(access: DashboardAccess<unknown>, merchantId: string, dataDir: string): Promise<DemoOwner> {
  const file = demoOwnerFile(dataDir);
  const saved = await readJsonFile(file, savedSchema, 'does not hold the demo owner; remove it to start afresh');
  if (saved && (await access.users(merchantId)).some((user) => user.email === saved.email)) return saved;

  const owner: DemoOwner = { email: DEMO_OWNER_EMAIL, password: `demo-${newToken()}`, totpSecret: access.newTotpSecret() };
  const { token } = await access.invite(merchantId, { email: owner.email, role: 'owner' }, 'operator');
  const joined = await access.join(token, { password: owner.password, passwordAgain: owner.password, totpSecret: owner.totpSecret, code: totpCode(owner.totpSecret, totpStep(new Date())) });
  if ('problems' in joined) throw new Error(`The demo owner could not join: ${joined.problems.join(', ')}`);
  // The session of the join is of no use to anyone: it ends here.
  await access.signOut(joined.session);
  await writeFile(file, `${JSON.stringify(owner, null, 2)}\n`, { mode: 0o600 });
  await chmod(file, 0o600);
  return owner;
}
