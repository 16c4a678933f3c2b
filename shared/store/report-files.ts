/**
 * Report files, kept privately (docs/merchant-guide.md#reports): an S3 bucket read through a
 * presigned link in AWS; on one machine, files under the data directory read through a link the
 * local runtime serves, signed with a key derived from the vault's key file. Either way a file is
 * written as its rows come, never whole in memory.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { createReadStream, createWriteStream, type ReadStream } from 'node:fs';
import { mkdir, rename, stat } from 'node:fs/promises';
import { dirname, resolve, sep } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { ReportFiles } from '../domain/report-service.js';

export const REPORT_CONTENT_TYPE = 'text/csv; charset=utf-8';

export class S3ReportFiles implements ReportFiles {
  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
  ) {}

  /** A multipart upload fed from the rows as they come: a part is sent as soon as 5 MiB are ready. */
  async write(key: string, chunks: AsyncIterable<string>): Promise<void> {
    const body = Readable.from(chunks, { objectMode: false });
    await new Upload({
      client: this.s3,
      // The bucket's own encryption (S3-managed keys), so that a presigned link needs no key grant.
      params: { Bucket: this.bucket, Key: key, Body: body, ContentType: REPORT_CONTENT_TYPE },
      queueSize: 2,
    }).done();
  }

  async link(key: string, expiresAt: Date): Promise<string> {
    const expiresIn = Math.max(1, Math.round((expiresAt.getTime() - Date.now()) / 1000));
    const name = key.slice(key.lastIndexOf('/') + 1);
    return getSignedUrl(this.s3, new GetObjectCommand({ Bucket: this.bucket, Key: key, ResponseContentDisposition: `attachment; filename="${name}"` }), { expiresIn });
  }
}

/** What the key of local report links is derived for, from the vault's key file. */
export const REPORT_LINK_KEY_PURPOSE = 'report links';

/** The path the local runtime serves report files under. */
export const LOCAL_REPORT_PATH = '/report-files/';

const KEY_PATTERN = /^[A-Za-z0-9-]+\/[0-9a-f-]{36}\.csv$/;

export class FileReportFiles implements ReportFiles {
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
