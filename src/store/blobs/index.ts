// The blob store the configuration names (src/config.ts BlobConfig).
import type { BlobConfig } from '../../config.ts';
import { LocalBlobStore } from './local.ts';
import { S3BlobStore } from './s3.ts';
import type { BlobStore } from './types.ts';

export async function openBlobStore(c: BlobConfig): Promise<BlobStore> {
  return c.kind === 's3' ? new S3BlobStore(c.s3) : LocalBlobStore.open(c.dir);
}

export { BlobLinks, type LinkCheck } from './links.ts';
export { BlobNotFoundError, BlobRangeError, type BlobStore, type ByteRange, type PutResult, type BlobStat } from './types.ts';
