/**
 * Report files written to S3 (docs/merchant-guide.md#reports): a multipart upload, one part at a
 * time as the rows come, that an invocation begins and later ones go on with by its id; a part
 * uploaded again under its number replaces the one before. Unfinished uploads are removed by the
 * bucket's lifecycle after a day.
 */
import { AbortMultipartUploadCommand, CompleteMultipartUploadCommand, CreateMultipartUploadCommand, UploadPartCommand, type S3Client } from '@aws-sdk/client-s3';
import type { ReportUpload, ReportWriter } from '../domain/ledger/index.js';
import { REPORT_CONTENT_TYPE } from './report-files.js';

export class S3ReportWriter implements ReportWriter {
  constructor(
    private readonly s3: Pick<S3Client, 'send'>,
    private readonly bucket: string,
  ) {}

  async begin(key: string): Promise<ReportUpload> {
    // The bucket's own encryption (S3-managed keys), so that a presigned link needs no key grant.
    const { UploadId } = await this.s3.send(new CreateMultipartUploadCommand({ Bucket: this.bucket, Key: key, ContentType: REPORT_CONTENT_TYPE }));
    if (!UploadId) throw new Error(`S3 began no upload of ${key}`);
    return { id: UploadId, parts: [] };
  }

  /** A part's tag is its ETag, which the completion names it by. */
  async part(key: string, upload: ReportUpload, body: string): Promise<ReportUpload> {
    const { ETag } = await this.s3.send(new UploadPartCommand({ Bucket: this.bucket, Key: key, UploadId: upload.id, PartNumber: upload.parts.length + 1, Body: body }));
    if (!ETag) throw new Error(`S3 answered part ${upload.parts.length + 1} of ${key} without its ETag`);
    return { ...upload, parts: [...upload.parts, ETag] };
  }

  async complete(key: string, upload: ReportUpload): Promise<void> {
    await this.s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: this.bucket,
        Key: key,
        UploadId: upload.id,
        MultipartUpload: { Parts: upload.parts.map((ETag, index) => ({ ETag, PartNumber: index + 1 })) },
      }),
    );
  }

  async abort(key: string, upload: ReportUpload): Promise<void> {
    await this.s3.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: key, UploadId: upload.id }));
  }
}
