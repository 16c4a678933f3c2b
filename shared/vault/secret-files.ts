/**
 * Secrets kept in files on one machine (the local stage's master key, store credentials, the demo
 * provider's secret), made by the first process that needs one.
 */
import { randomBytes } from 'node:crypto';
import { link, mkdir, open, readFile, rm } from 'node:fs/promises';
import { dirname } from 'node:path';

const OWNER_ONLY = 0o600;

/**
 * The file at `path`, made with `make()` first if there is none. A new secret is written whole to
 * a draft of its own (0600) and then linked to `path`, which fails if `path` exists: processes
 * starting at once make one secret, the losers read the winner's, and no one reads half of one
 * (a file created in place is visible, empty, before it is written).
 */
export async function readOrCreateSecretFile(path: string, make: () => Uint8Array | string): Promise<Buffer> {
  const existing = await readFile(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
  if (existing) return existing;
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const draft = `${path}.${randomBytes(8).toString('hex')}.new`;
  try {
    const file = await open(draft, 'wx', OWNER_ONLY);
    try {
      await file.writeFile(make());
      await file.sync();
    } finally {
      await file.close();
    }
    await link(draft, path).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
  } finally {
    await rm(draft, { force: true });
  }
  return readFile(path);
}
