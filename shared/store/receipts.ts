/**
 * Payment receipts, private and encrypted at rest: an S3 bucket (KMS-encrypted, no public access)
 * in AWS; on one machine, files under the data directory sealed with the local data keys.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import type { Receipt } from '../domain/invoicing/index.js';
import type { ReceiptStore } from '../domain/payments/index.js';
import { aesGcmDecrypt, aesGcmEncrypt, type DataKeySource } from '../vault/envelope.js';

const CONTENT_TYPES: Record<Receipt['extension'], string> = { jpg: 'image/jpeg', jpeg: 'image/jpeg', png: 'image/png', pdf: 'application/pdf' };

/** A receipt's extension from its key (`…/{utr}.{extension}`). */
const extensionOf = (key: string): Receipt['extension'] => extname(key.replace(/\.sealed$/, '')).slice(1) as Receipt['extension'];

export class S3ReceiptStore implements ReceiptStore {
  constructor(
    private readonly s3: S3Client,
    private readonly bucket: string,
  ) {}

  async put(key: string, receipt: Receipt): Promise<string> {
    await this.s3.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: key,
        Body: receipt.content,
        ContentType: CONTENT_TYPES[receipt.extension],
        ServerSideEncryption: 'aws:kms',
        Metadata: receipt.name ? { 'original-name': encodeURIComponent(receipt.name) } : undefined,
      }),
    );
    return `s3://${this.bucket}/${key}`;
  }

  async get(reference: string): Promise<Receipt> {
    const key = reference.slice(`s3://${this.bucket}/`.length);
    if (!reference.startsWith(`s3://${this.bucket}/`)) throw new Error(`${reference} is not a receipt of this bucket`);
    const object = await this.s3.send(new GetObjectCommand({ Bucket: this.bucket, Key: key }));
    const name = object.Metadata?.['original-name'];
    return { content: Buffer.from(await object.Body!.transformToByteArray()), extension: extensionOf(key), name: name ? decodeURIComponent(name) : null };
  }
}

/** Each file holds the encrypted data key, then IV, tag and ciphertext, as JSON. */
export class FileReceiptStore implements ReceiptStore {
  constructor(
    private readonly directory: string,
    private readonly keys: DataKeySource,
  ) {}

  async put(key: string, receipt: Receipt): Promise<string> {
    const path = resolve(this.directory, `${key}.sealed`);
    if (!path.startsWith(resolve(this.directory))) throw new Error('Receipt key escapes the receipts directory');
    const dataKey = await this.keys.generate();
    const { iv, tag, ciphertext } = aesGcmEncrypt(dataKey.plaintext, receipt.content, key);
    dataKey.plaintext.fill(0);
    await mkdir(dirname(path), { recursive: true, mode: 0o700 });
    const sealed = {
      encryptedKey: dataKey.encrypted,
      iv: iv.toString('base64'),
      tag: tag.toString('base64'),
      ciphertext: ciphertext.toString('base64'),
      contentType: CONTENT_TYPES[receipt.extension],
      name: receipt.name,
    };
    await writeFile(path, JSON.stringify(sealed), { mode: 0o600 });
    return pathToFileURL(join(resolve(this.directory), `${key}.sealed`)).href;
  }

  async get(reference: string): Promise<Receipt> {
    const path = fileURLToPath(reference);
    const root = resolve(this.directory);
    if (!path.startsWith(root)) throw new Error(`${reference} is not a receipt of this directory`);
    const sealed = JSON.parse(await readFile(path, 'utf8')) as { encryptedKey: string; iv: string; tag: string; ciphertext: string; name?: string | null };
    const dataKey = await this.keys.decrypt(sealed.encryptedKey);
    try {
      const key = path.slice(root.length + 1, -'.sealed'.length);
      const content = aesGcmDecrypt(dataKey, { iv: Buffer.from(sealed.iv, 'base64'), tag: Buffer.from(sealed.tag, 'base64'), ciphertext: Buffer.from(sealed.ciphertext, 'base64') }, key);
      return { content, extension: extensionOf(key), name: sealed.name ?? null };
    } finally {
      dataKey.fill(0);
    }
  }
}
