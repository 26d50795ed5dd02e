// Blobs in any S3-compatible object store (AWS S3, MinIO, Ceph RGW, R2, …), keyed
// `<prefix><key>` in one bucket. A put streams through lib-storage's multipart upload (a
// part buffered at a time, two in flight), so memory does not grow with the object; a body
// that fails leaves no object, and its multipart upload is aborted (parts of a store that
// cannot abort are left to the bucket's AbortIncompleteMultipartUpload rule). Checksums are
// computed only where an operation requires them: the SDK's default CRC trailers
// (aws-chunked uploads) are not understood by every S3-compatible store.
import { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand, DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, S3Client, S3ServiceException,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import type { BlobConfig } from '../../config.ts';
import { measured } from './measure.ts';
import { BlobNotFoundError, BlobRangeError, checkKey, type BlobStat, type BlobStore, type ByteRange, type PutResult } from './types.ts';

/** The S3 settings of the configuration (config.ts documents each; GANTRY_S3_*). */
export type S3Settings = BlobConfig['s3'];

/** Part size of multipart uploads: S3's minimum is 5 MiB; two parts in flight bound memory to ~16 MiB per upload. */
const PART_BYTES = 8 * 1024 * 1024;

function status(err: unknown): number | undefined {
  return err instanceof S3ServiceException ? err.$metadata.httpStatusCode : undefined;
}

export class S3BlobStore implements BlobStore {
  readonly kind = 's3' as const;
  private readonly client: S3Client;
  private readonly bucket: string;
  private readonly prefix: string;

  constructor(s: S3Settings) {
    this.client = new S3Client({
      ...(s.endpoint ? { endpoint: s.endpoint } : {}),
      region: s.region,
      forcePathStyle: s.forcePathStyle,
      ...(s.accessKeyId && s.secretAccessKey ? { credentials: { accessKeyId: s.accessKeyId, secretAccessKey: s.secretAccessKey } } : {}),
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    this.bucket = s.bucket;
    this.prefix = s.prefix;
  }

  private key(key: string): string {
    return this.prefix + checkKey(key);
  }

  async put(key: string, body: AsyncIterable<Uint8Array>, opts: { contentType?: string; signal?: AbortSignal } = {}): Promise<PutResult> {
    const m = measured(body);
    const upload = new Upload({
      client: this.client,
      params: { Bucket: this.bucket, Key: this.key(key), Body: Readable.from(m.chunks, { objectMode: false }), ContentType: opts.contentType ?? 'application/octet-stream' },
      partSize: PART_BYTES,
      queueSize: 2,
      // The parts are aborted below: lib-storage's own abort would answer the abort's error
      // (if the store refuses it) instead of the body's, which tells the caller what was wrong.
      leavePartsOnError: true,
    });
    const abort = () => void upload.abort().catch(() => {});
    opts.signal?.addEventListener('abort', abort, { once: true });
    try {
      opts.signal?.throwIfAborted();
      await upload.done();
    } catch (err) {
      if (upload.uploadId) {
        await this.client.send(new AbortMultipartUploadCommand({ Bucket: this.bucket, Key: this.key(key), UploadId: upload.uploadId })).catch(() => {});
      }
      throw err;
    } finally {
      opts.signal?.removeEventListener('abort', abort);
    }
    return m.result();
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    try {
      const res = await this.client.send(new GetObjectCommand({
        Bucket: this.bucket, Key: this.key(key),
        ...(range ? { Range: `bytes=${range.start}-${range.end ?? ''}` } : {}),
      }));
      return res.Body as Readable; // an IncomingMessage on Node
    } catch (err) {
      const code = status(err);
      if (code === 404) throw new BlobNotFoundError(key);
      if (code === 416) throw new BlobRangeError(key, (await this.stat(key))?.bytes ?? 0);
      throw err;
    }
  }

  async stat(key: string): Promise<BlobStat | undefined> {
    try {
      const res = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: this.key(key) }));
      return { bytes: res.ContentLength ?? 0 };
    } catch (err) {
      if (status(err) === 404) return undefined;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: this.key(key) }));
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}
