// The blob store port: bytes by key, streamed both ways. Files, batch outputs, media and
// task outputs keep their bytes here and their metadata in the database; the database row
// is the source of truth and names the key. One contract test (contract.test.ts) holds every
// implementation to the same behaviour.
import type { Readable } from 'node:stream';

export interface PutResult {
  /** bytes stored */
  bytes: number;
  /** SHA-256 of the bytes stored, hex */
  sha256: string;
}

/** An inclusive byte range, as HTTP's `Range: bytes=start-end`; `end` omitted: to the last byte. */
export interface ByteRange {
  start: number;
  end?: number | undefined;
}

export interface BlobStat {
  bytes: number;
}

export interface BlobStore {
  readonly kind: 'local' | 's3';
  /**
   * Store the bytes of `body` under `key`, replacing what was there. All or nothing: when
   * `body` fails (a validation error thrown by a transform in it, a client that went away) or
   * `signal` aborts, put rejects and the key keeps its previous content (or stays absent).
   */
  put(key: string, body: AsyncIterable<Uint8Array>, opts?: { contentType?: string; signal?: AbortSignal }): Promise<PutResult>;
  /** The bytes of `key` (or of `range` of them) as a stream. BlobNotFoundError when absent; BlobRangeError when `range` starts past the end. */
  get(key: string, range?: ByteRange): Promise<Readable>;
  /** Size of `key`, or undefined when absent. */
  stat(key: string): Promise<BlobStat | undefined>;
  /** Remove `key`; removing an absent key is not an error (a sweep may run twice). */
  delete(key: string): Promise<void>;
  /** Release connections and handles. */
  close(): Promise<void>;
}

export class BlobNotFoundError extends Error {
  constructor(key: string) {
    super(`blob ${key} not found`);
    this.name = 'BlobNotFoundError';
  }
}

export class BlobRangeError extends Error {
  readonly bytes: number;
  constructor(key: string, bytes: number) {
    super(`range not satisfiable for blob ${key} of ${bytes} bytes`);
    this.name = 'BlobRangeError';
    this.bytes = bytes;
  }
}

const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]{0,127}$/;

/**
 * Keys are `/`-separated segments of `[A-Za-z0-9._-]`, none `.` or `..` nor starting with a
 * dot, at most 512 characters: the same key is a safe relative path on disk and an S3 key
 * that needs no escaping. Callers build keys from ids; anything else is a bug, so it throws.
 */
export function checkKey(key: string): string {
  if (key.length === 0 || key.length > 512 || !key.split('/').every((s) => SEGMENT.test(s))) {
    throw new Error(`invalid blob key ${JSON.stringify(key.slice(0, 100))}`);
  }
  return key;
}
