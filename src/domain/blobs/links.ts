// A signed blob link opened (GET /blobs/{key}?expires=&signature=): the signature is the
// credential, so the link is checked before the store is asked anything. One
// `Range: bytes=a-b` (or `bytes=a-`) is served; a range that cannot be (a suffix, several, one
// past the end) is ignored and the whole blob sent, as RFC 9110 allows.
import type { Readable } from 'node:stream';
import type { BlobLinks, BlobStore } from '../../store/blobs/index.ts';
import { blobGone, linkRefused } from './errors.ts';

/** The blob store and its signed links (built once by services.ts; files, batches and media keep their bytes there). */
export interface Blobs {
  store: BlobStore;
  links: BlobLinks;
}

export interface LinkedBlob {
  stream: Readable;
  /** the whole blob's size */
  bytes: number;
  /** the part sent, inclusive; undefined: all of it */
  range: { start: number; end: number } | undefined;
}

/** One satisfiable-looking range `bytes=a-b` or `bytes=a-`; suffix and multiple ranges are not served. */
function parseRange(header: string | undefined): { start: number; end?: number } | undefined {
  const m = header ? /^bytes=(\d{1,15})-(\d{0,15})$/.exec(header.trim()) : null;
  if (!m) return undefined;
  const start = Number(m[1]);
  const end = m[2] ? Number(m[2]) : undefined;
  return end !== undefined && end < start ? undefined : { start, ...(end !== undefined ? { end } : {}) };
}

export async function openLinkedBlob(blobs: Blobs, link: { key: string; expires: string; signature: string }, rangeHeader: string | undefined): Promise<LinkedBlob> {
  const check = blobs.links.check(link.key, link.expires, link.signature);
  if (check !== 'ok') throw linkRefused(check);
  const stat = await blobs.store.stat(link.key).catch(() => undefined); // a key no link could name reads as absent
  if (!stat) throw blobGone();
  const asked = parseRange(rangeHeader);
  const range = asked && asked.start < stat.bytes ? { start: asked.start, end: Math.min(asked.end ?? stat.bytes - 1, stat.bytes - 1) } : undefined;
  return { stream: await blobs.store.get(link.key, range), bytes: stat.bytes, range };
}
