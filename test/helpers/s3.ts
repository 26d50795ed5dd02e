// An S3 stand-in for tests: s3rver (an S3 API over a directory) on a random 127.0.0.1 port,
// with a bucket of its own, stopped and removed by stop().
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// @ts-expect-error s3rver ships no types
import S3rver from 's3rver';
import type { S3Settings } from '../../src/store/blobs/s3.ts';

export interface S3StandIn {
  settings: S3Settings;
  /** the same settings as Gantry's environment variables */
  env: Record<string, string>;
  stop(): Promise<void>;
}

export async function startS3(bucket = 'gantry-test'): Promise<S3StandIn> {
  const dir = mkdtempSync(join(tmpdir(), 'gantry-s3-'));
  const server = new S3rver({ port: 0, address: '127.0.0.1', silent: true, directory: dir, configureBuckets: [{ name: bucket }] });
  const { port } = (await server.run()) as { port: number };
  const endpoint = `http://127.0.0.1:${port}`;
  // s3rver accepts any signature made with its fixed credentials
  const settings: S3Settings = { endpoint, bucket, region: 'us-east-1', accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER', forcePathStyle: true, prefix: 'p/' };
  return {
    settings,
    env: {
      GANTRY_BLOB_STORE: 's3', GANTRY_S3_ENDPOINT: endpoint, GANTRY_S3_BUCKET: bucket, GANTRY_S3_REGION: 'us-east-1',
      GANTRY_S3_ACCESS_KEY_ID: 'S3RVER', GANTRY_S3_SECRET_ACCESS_KEY: 'S3RVER', GANTRY_S3_FORCE_PATH_STYLE: 'true', GANTRY_S3_PREFIX: 'p/',
    },
    stop: async () => {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
