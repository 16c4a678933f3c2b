/** Links to report files in S3 (docs/merchant-guide.md#reports): presigned GetObject URLs that download the file. */
import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { ReportLinks } from '../domain/ledger/index.js';

export class S3ReportLinks implements ReportLinks {
  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
  ) {}

  async link(key: string, expiresAt: Date): Promise<string> {
    const expiresIn = Math.max(1, Math.round((expiresAt.getTime() - Date.now()) / 1000));
    const name = key.slice(key.lastIndexOf('/') + 1);
    return getSignedUrl(this.s3, new GetObjectCommand({ Bucket: this.bucket, Key: key, ResponseContentDisposition: `attachment; filename="${name}"` }), { expiresIn });
  }
}
