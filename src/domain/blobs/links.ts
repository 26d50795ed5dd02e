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
  /** the media type of the bytes, by the kind their writer named in the key */
  contentType: string;
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
  return { stream: await blobs.store.get(link.key, range), contentType: contentTypeOf(link.key), bytes: stat.bytes, range };
}

/**
 * Writers name what they store in the key's last segment: a task's outputs are `<n>.png` or
 * `<n>.wav` by the type the task records for them (media/render.ts), its inputs `in-<name>.png`.
 * So a result image opens in a browser or an image library as the image it is; anything else
 * (a media model's file, a key with no kind) stays bytes.
 */
const TYPES: Record<string, string> = { png: 'image/png', wav: 'audio/wav', jpeg: 'image/jpeg', jpg: 'image/jpeg', webp: 'image/webp', mp4: 'video/mp4' };

export function contentTypeOf(key: string): string {
  const ext = /\.([a-z0-9]+)$/.exec(key.slice(key.lastIndexOf('/') + 1))?.[1];
  return (ext && TYPES[ext]) ?? 'application/octet-stream';
}
