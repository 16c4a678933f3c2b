/**
 * Report files on one machine (docs/merchant-guide.md#reports): files under the data directory,
 * written as their rows come, read through a link the local runtime serves, signed with a key
 * derived from the vault's key file. In AWS: s3-report-writer.ts and s3-report-links.ts.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createReadStream, createWriteStream, type ReadStream } from 'node:fs';
import { mkdir, rename, stat } from 'node:fs/promises';
import { dirname, resolve, sep } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReportLinks, ReportWriter } from '../domain/report-service.js';

export const REPORT_CONTENT_TYPE = 'text/csv; charset=utf-8';

/** What the key of local report links is derived for, from the vault's key file. */
export const REPORT_LINK_KEY_PURPOSE = 'report links';

/** The path the local runtime serves report files under. */
export const LOCAL_REPORT_PATH = '/report-files/';

const KEY_PATTERN = /^[A-Za-z0-9-]+\/[0-9a-f-]{36}\.csv$/;

export class FileReportFiles implements ReportWriter, ReportLinks {
  /**
   * `linkKey`: the key links are signed with; `publicBaseUrl`: where the runtime that serves them
   * answers.
   */
  constructor(
    private readonly directory: string,
    private readonly linkKey: () => Promise<Buffer>,
    private readonly publicBaseUrl: string,
  ) {}

  /** Written beside its place, then moved there: a half-written file is never served. */
  async write(key: string, chunks: AsyncIterable<string>): Promise<void> {
    const path = this.pathOf(key);
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    const partial = `${path}.partial`;
    await pipeline(Readable.from(chunks, { objectMode: false }), createWriteStream(partial, { mode: 0o600 }));
    await rename(partial, path);
  }

  async link(key: string, expiresAt: Date): Promise<string> {
    const expires = Math.floor(expiresAt.getTime() / 1000);
    const signature = sign(await this.linkKey(), key, expires);
    return `${this.publicBaseUrl}${LOCAL_REPORT_PATH}${key}?expires=${expires}&signature=${signature}`;
  }

  private pathOf(key: string): string {
    return reportPath(this.directory, key);
  }
}

function reportPath(directory: string, key: string): string {
  const root = resolve(directory);
  const path = resolve(root, key);
  if (!path.startsWith(root + sep)) throw new Error('Report key escapes the reports directory');
  return path;
}

/**
 * The file a link of FileReportFiles names (the local runtime serves it), while the link is valid
 * and its signature holds; undefined for anything else (a link that was changed, has expired, or
 * names no file).
 */
export async function openLinkedReport(
  directory: string,
  linkKey: Buffer,
  target: string,
  now: Date,
): Promise<{ stream: ReadStream; bytes: number; name: string } | undefined> {
  const url = new URL(target, 'http://local');
  if (!url.pathname.startsWith(LOCAL_REPORT_PATH)) return undefined;
  const key = decodeURIComponent(url.pathname.slice(LOCAL_REPORT_PATH.length));
  const expires = Number(url.searchParams.get('expires'));
  if (!KEY_PATTERN.test(key) || !Number.isInteger(expires) || expires * 1000 < now.getTime()) return undefined;
  const expected = Buffer.from(sign(linkKey, key, expires));
  const given = Buffer.from(url.searchParams.get('signature') ?? '');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  const path = reportPath(directory, key);
  const found = await stat(path).catch(() => undefined);
  if (!found?.isFile()) return undefined;
  return { stream: createReadStream(path), bytes: found.size, name: key.slice(key.indexOf('/') + 1) };
}

const sign = (key: Buffer, fileKey: string, expires: number): string => createHmac('sha256', key).update(`${fileKey}\n${expires}`).digest('base64url');
