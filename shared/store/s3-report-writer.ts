/** Report files written to S3 (docs/merchant-guide.md#reports): a multipart upload fed from the rows as they come. */
import type { S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { Readable } from 'node:stream';
import type { ReportWriter } from '../domain/report-service.js';
import { REPORT_CONTENT_TYPE } from './report-files.js';

export class S3ReportWriter implements ReportWriter {
  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
  ) {}

  /** A part is sent as soon as 5 MiB of rows are ready; no more than two parts are held at once. */
  async write(key: string, chunks: AsyncIterable<string>): Promise<void> {
    await new Upload({
      client: this.s3,
      // The bucket's own encryption (S3-managed keys), so that a presigned link needs no key grant.
      params: { Bucket: this.bucket, Key: key, Body: Readable.from(chunks, { objectMode: false }), ContentType: REPORT_CONTENT_TYPE },
      queueSize: 2,
    }).done();
  }
}
