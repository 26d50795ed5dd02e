// The blob store the configuration names (src/config.ts BlobConfig).
import type { BlobConfig } from '../../config.ts';
import { LocalBlobStore } from './local.ts';
import type { BlobStore } from './types.ts';

export async function openBlobStore(c: BlobConfig): Promise<BlobStore> {
  if (c.kind !== 's3') return LocalBlobStore.open(c.dir);
  // the AWS SDK is large: loaded only by a Gantry configured for S3 (start time, memory)
  const { S3BlobStore } = await import('./s3.ts');
  return new S3BlobStore(c.s3);
}

export { BlobLinks, type LinkCheck } from './links.ts';
export { BlobNotFoundError, BlobRangeError, type BlobStore, type ByteRange, type PutResult, type BlobStat } from './types.ts';
