// POST /files: multipart `file` + `purpose=batch`, streamed to the blob store while it is
// checked (domain/files). The multipart parser is registered for this route only; the parts
// reach the domain as plain objects in the order they were sent (the OpenAI SDKs send the
// file before the purpose).
import multipart from '@fastify/multipart';
import type { FastifyRequest } from 'fastify';
import { AppError } from '../../../lib/errors.ts';
import { ReadBufferReclaimer } from '../../../lib/read-buffers.ts';
import type { UploadPart } from '../../../domain/files/files.ts';
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App, type Services } from '../../types.ts';
import { OPENAI_BASES } from '../openai/schemas.ts';
import { FileObject, summary } from './schemas.ts';

/** A parser's or a client's failure (a malformed body, a connection cut) as the client's error, never a 500. */
function malformed(err: unknown, maxBytes: number): AppError {
  if (err instanceof AppError) return err;
  const code = (err as { code?: string }).code;
  if (code === 'FST_REQ_FILE_TOO_LARGE') {
    return new AppError('INVALID_REQUEST_BODY', `file: at most ${maxBytes} bytes per file`, { field: 'file', rule: 'max_bytes', limit: maxBytes });
  }
  return new AppError('INVALID_REQUEST_BODY', 'the multipart body is malformed or ended early', { field: 'body', rule: code ?? 'multipart' });
}

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

async function* partsOf(req: FastifyRequest, maxBytes: number): AsyncGenerator<UploadPart> {
  try {
    for await (const part of req.parts()) {
      if (part.type === 'file') yield { kind: 'file', name: part.fieldname, filename: part.filename, stream: guarded(part.file, maxBytes) };
      else yield { kind: 'field', name: part.fieldname, value: typeof part.value === 'string' ? part.value : String(part.value) };
    }
  } catch (err) {
    throw malformed(err, maxBytes);
  }
}

export default function uploadFile(app: App, s: Services): void {
  const { maxBytes } = s.config.files;
  void app.register((child, _opts, registered) => {
    // Only multipart is read; any other body is left unread and refused by the handler.
    child.removeAllContentTypeParsers();
    child.addContentTypeParser('*', (_req, _payload, done) => done(null));
    void child.register(multipart, {
      // one byte over the limit reaches the domain's check, which names the rule
      limits: { fileSize: maxBytes + 1, fields: 16, fieldSize: 64 * 1024, parts: 32, headerPairs: 100 },
    });
    for (const base of OPENAI_BASES) {
      child.post(`${base}/files`, {
        config: { family: 'llm', auth: { kind: 'key', capability: 'callModels' } },
        bodyLimit: Number.MAX_SAFE_INTEGER, // the file's own limit is checked as it streams
        schema: {
          tags: ['llm'], summary: summary(base, 'Upload a batch input file (multipart: file, purpose=batch)'), security: KeyBearer,
          consumes: ['multipart/form-data'],
          response: { 200: FileObject, ...errors(400, 401, 403, 415) },
        },
      }, async (req) => {
        const p = principalOf(req);
        if (!req.isMultipart()) {
          throw new AppError('UNSUPPORTED_MEDIA_TYPE', 'send multipart/form-data with the fields file and purpose', { field: 'content-type', rule: 'multipart/form-data' });
        }
        return s.files.upload(p, partsOf(req, maxBytes));
      });
    }
    registered();
  });
}
