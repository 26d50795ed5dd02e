// Reads a JSON request body as Fastify's own reader does (the route's body limit, a 413 as soon
// as it is passed, a 400 when the body ends short of its content-length), with one difference
// for big bodies: Fastify keeps every socket chunk and joins them at the end with one
// Buffer.concat, an 8 MB copy into fresh memory in a single turn of the event loop (~25 ms on a
// slow machine, while every other request waits). Here, from BIG_BYTES on, each chunk is
// copied as it arrives into blocks this reader owns (a 64 KB copy a turn), and the blocks are
// handed over whole: json-off-thread.ts moves them to its worker, which joins and parses them.
import type { Readable } from 'node:stream';
import { errorCodes } from 'fastify';

/** What a body read gives: the text (small), the owned blocks (big), or why it failed. */
export type BodyRead =
  | { text: string }
  | { blocks: Buffer[] }
  | { error: Error & { statusCode?: number } };

/** Bodies from this size on are collected in owned blocks (and parsed off the main thread). */
export const BIG_BYTES = 1 << 20;
/** The block size when the body's length is not known up front (chunked transfer). */
const BLOCK_BYTES = 1 << 20;

/**
 * Reads `payload` up to `limit` bytes. `contentLength` (NaN when absent) sizes the first
 * block: a body of known length is one block, so its parser joins nothing.
 */
export function readJsonBody(payload: Readable, limit: number, contentLength: number, done: (r: BodyRead) => void): void {
  if (contentLength > limit) {
    done({ error: new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE() });
    return;
  }
  let received = 0;
  let chunks: Buffer[] | undefined = []; // until BIG_BYTES: kept as they came
  const blocks: Buffer[] = []; // from BIG_BYTES on: owned, filled in order
  let used = 0; // bytes filled in the last block
  let copied = 0; // bytes filled in all blocks

  const copy = (chunk: Buffer) => {
    for (let at = 0; at < chunk.length;) {
      let last = blocks.at(-1);
      if (!last || used === last.length) {
        // allocUnsafeSlow: memory of its own (never a slice of Node's pool), so it can be moved
        // to the worker rather than copied again
        const rest = Number.isNaN(contentLength) ? 0 : contentLength - copied;
        last = Buffer.allocUnsafeSlow(Math.max(rest, BLOCK_BYTES));
        blocks.push(last);
        used = 0;
      }
      const n = chunk.copy(last, used, at);
      used += n;
      copied += n;
      at += n;
    }
  };

  const onData = (data: Buffer | string) => {
    const chunk = typeof data === 'string' ? Buffer.from(data) : data;
    received += chunk.length;
    if (received > limit) {
      stop();
      done({ error: new errorCodes.FST_ERR_CTP_BODY_TOO_LARGE() });
      return;
    }
    if (chunks && received < BIG_BYTES) {
      chunks.push(chunk);
      return;
    }
    if (chunks) {
      // the body has just become big: what came so far (under 1 MB) goes into the first block
      for (const c of chunks) copy(c);
      chunks = undefined;
    }
    copy(chunk);
  };
  const onEnd = (err?: Error & { statusCode?: number }) => {
    stop();
    if (err != null) {
      if (!(typeof err.statusCode === 'number' && err.statusCode >= 400)) err.statusCode = 400;
      done({ error: err });
      return;
    }
    if (!Number.isNaN(contentLength) && received !== contentLength) {
      done({ error: new errorCodes.FST_ERR_CTP_INVALID_CONTENT_LENGTH() });
      return;
    }
    if (chunks) {
      // Decoded whole (a character's bytes may straddle two chunks); one chunk, the usual small
      // body, is decoded as it is: the text is a copy already, no view of a socket buffer is kept
      done({ text: chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks, received).toString('utf8') });
      return;
    }
    const lastBlock = blocks.at(-1)!;
    if (used < lastBlock.length) blocks[blocks.length - 1] = lastBlock.subarray(0, used);
    done({ blocks });
  };
  const stop = () => {
    payload.removeListener('data', onData);
    payload.removeListener('end', onEnd);
    payload.removeListener('error', onEnd);
  };
  payload.on('data', onData);
  payload.on('end', onEnd);
  payload.on('error', onEnd);
  payload.resume();
}
