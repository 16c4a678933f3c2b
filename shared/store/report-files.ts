/**
 * Report files on one machine (docs/merchant-guide.md#reports): files under the data directory,
 * written a part at a time as their rows come, read through a link the local runtime serves,
 * signed with a key derived from the vault's key file. In AWS: s3-report-writer.ts and
 * s3-report-links.ts.
 */
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { createReadStream, type ReadStream } from 'node:fs';
import { mkdir, open, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, resolve, sep } from 'node:path';
import type { ReportLinks, ReportUpload, ReportWriter } from '../domain/ledger/index.js';

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

  /**
   * An upload is a file beside the report's place, named after the upload, moved there once
   * complete: a half-written file is never served. A part's tag is its length in bytes.
   */
  async begin(key: string): Promise<ReportUpload> {
    const upload = { id: randomUUID(), parts: [] };
    const partial = this.partialOf(key, upload);
    await mkdir(dirname(partial), { recursive: true, mode: 0o700 });
    await writeFile(partial, '', { mode: 0o600 });
    return upload;
  }

  /** Written where the parts before it end, cutting off whatever a part written there before left. */
  async part(key: string, upload: ReportUpload, body: string): Promise<ReportUpload> {
    const file = await open(this.partialOf(key, upload), 'r+');
    try {
      const start = lengthOf(upload);
      await file.truncate(start);
      const bytes = Buffer.from(body);
      await file.write(bytes, 0, bytes.length, start);
    } finally {
      await file.close();
    }
    return { ...upload, parts: [...upload.parts, String(Buffer.byteLength(body))] };
  }

  async complete(key: string, upload: ReportUpload): Promise<void> {
    const partial = this.partialOf(key, upload);
    // Cut to its parts: what an invocation wrote past them and never recorded is not the file's.
    const file = await open(partial, 'r+');
    try {
      await file.truncate(lengthOf(upload));
    } finally {
      await file.close();
    }
    await rename(partial, this.pathOf(key));
  }

  async abort(key: string, upload: ReportUpload): Promise<void> {
    await rm(this.partialOf(key, upload), { force: true });
  }

  async link(key: string, expiresAt: Date): Promise<string> {
    const expires = Math.floor(expiresAt.getTime() / 1000);
    const signature = sign(await this.linkKey(), key, expires);
    return `${this.publicBaseUrl}${LOCAL_REPORT_PATH}${key}?expires=${expires}&signature=${signature}`;
  }

  private pathOf(key: string): string {
    return reportPath(this.directory, key);
  }

  private partialOf(key: string, upload: ReportUpload): string {
    return `${this.pathOf(key)}.${upload.id}.partial`;
  }
}

/** The bytes of an upload's parts: each part's tag is its length. */
const lengthOf = (upload: ReportUpload): number => upload.parts.reduce((sum, bytes) => sum + Number(bytes), 0);

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
export async function openLinkedReport(directory: string, linkKey: Buffer, target: string, now: Date): Promise<{ stream: ReadStream; bytes: number; name: string } | undefined> {
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
