// Multipart uploads (files, media models): the parser registered for a group of routes only,
// and the parts handed to the domain as plain objects in the order the client sent them.
// A parser's or a client's failure (a malformed body, a connection cut, a file over the
// limit) is the client's error, never a 500.
import multipart from '@fastify/multipart';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../lib/errors.ts';
import { ReadBufferReclaimer } from '../lib/read-buffers.ts';
import type { UploadPart } from '../domain/files/files.ts';
import type { App } from './types.ts';

function malformed(err: unknown, maxBytes: number): AppError {
  if (err instanceof AppError) return err;
  const code = (err as { code?: string }).code;
  if (code === 'FST_REQ_FILE_TOO_LARGE') {
    return new AppError('INVALID_REQUEST_BODY', `file: at most ${maxBytes} bytes per file`, { field: 'file', rule: 'max_bytes', limit: maxBytes });
  }
  return new AppError('INVALID_REQUEST_BODY', 'the multipart body is malformed or ended early', { field: 'body', rule: code ?? 'multipart' });
}

/** Dead socket read buffers of long uploads are collected every few MB (lib/read-buffers.ts). */
const reclaimer = new ReadBufferReclaimer();

async function* guarded(stream: AsyncIterable<Uint8Array>, maxBytes: number): AsyncGenerator<Uint8Array> {
  try {
    for await (const chunk of stream) {
      yield chunk;
      reclaimer.read(chunk.byteLength);
    }
  } catch (err) {
    throw malformed(err, maxBytes);
  }
}

/** The parts of a multipart request, files as streams (`maxBytes`: the limit the parser was given). */
export async function* partsOf(req: FastifyRequest, maxBytes: number): AsyncGenerator<UploadPart> {
  if (!req.isMultipart()) {
    throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'send multipart/form-data', { field: 'content-type', rule: 'multipart/form-data' });
  }
  try {
    for await (const part of req.parts()) {
      if (part.type === 'file') yield { kind: 'file', name: part.fieldname, filename: part.filename, stream: guarded(part.file, maxBytes) };
      else yield { kind: 'field', name: part.fieldname, value: typeof part.value === 'string' ? part.value : String(part.value) };
    }
  } catch (err) {
    throw malformed(err, maxBytes);
  }
}

/** The body's declared length (Content-Length), when it has one (a chunked body has none). */
export function declaredLength(req: FastifyRequest): number | undefined {
  const h = req.headers['content-length'];
  return typeof h === 'string' && /^\d{1,15}$/.test(h) && req.headers['transfer-encoding'] === undefined ? Number(h) : undefined;
}

/** An unread body this large is not read to its end to answer a refusal: the connection is closed instead. */
const DRAIN_MAX = 1024 * 1024;

/**
 * After an upload was refused: unless its body was read (or is small), say Connection: close,
 * so Node does not read and discard the rest of a large upload (up to GiBs) before the next
 * request; the client reads the answer, then reconnects.
 */
export function closeIfUnread(req: FastifyRequest, reply: FastifyReply): void {
  if (req.raw.complete) return;
  const declared = declaredLength(req);
  if (declared === undefined || declared > DRAIN_MAX) reply.header('connection', 'close');
}

/**
 * Register `routes` in a scope that reads only multipart bodies (any other body is left
 * unread, and the handler refuses it with 415). `maxBytes` is the largest file: one byte
 * over reaches the domain's own check, which names the rule.
 */
export function withMultipart(app: App, maxBytes: number, routes: (child: App) => void): void {
  void app.register((child, _opts, registered) => {
    child.removeAllContentTypeParsers();
    child.addContentTypeParser('*', (_req, _payload, done) => done(null));
    void child.register(multipart, {
      limits: { fileSize: maxBytes + 1, fields: 16, fieldSize: 64 * 1024, parts: 32, headerPairs: 100 },
    });
    routes(child as unknown as App);
    registered();
  });
}
