import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { KeyFileDataKeySource } from '../../shared/vault/key-sources.js';

describe('the local master key file', () => {
  let dir: string;
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('is created once by many sources racing for it, linked into place whole: every data key opens under every source, and no draft is left', async () => {
    dir = await mkdtemp(join(tmpdir(), 'master-key-'));
    const path = join(dir, 'keys', 'master.key');
    const sources = Array.from({ length: 48 }, () => new KeyFileDataKeySource(path));

    // Started a few turns of the event loop apart, so that some read the file while others are creating it.
    const dataKeys = await Promise.all(
      sources.map(async (source, index) => {
        for (let turn = 0; turn < index % 8; turn++) await new Promise((resolve) => setImmediate(resolve));
        return source.generate();
      }),
    );

    for (const [index, source] of sources.entries()) {
      const other = dataKeys[(index + 1) % dataKeys.length]!;
      expect(Buffer.from(await source.decrypt(other.encrypted))).toEqual(other.plaintext);
    }
    const file = await stat(path);
    expect(file.size).toBe(32);
    expect(file.mode & 0o777).toBe(0o600);
    expect(await readdir(join(dir, 'keys'))).toEqual(['master.key']);
  });
});
