// A signed blob link (store/blobs/links.ts): `GET /blobs/{key}?expires=&signature=`. The
// signature is the credential (no API key), so a link can be handed to any HTTP client
// until it expires. Bytes stream from the blob store; one `Range: bytes=a-b` is honoured
// (206); a range that cannot be served is ignored and the whole blob sent (RFC 9110 allows it).
import { Type } from 'typebox';
import { openLinkedBlob, type Blobs } from '../../../domain/blobs/links.ts';
import { errors } from '../../schemas.ts';
import type { App } from '../../types.ts';

export default function getBlob(app: App, s: { blobs: Blobs }): void {
  app.get('/blobs/*', {
    config: {
      family: 'account', auth: { kind: 'public' },
      docResponses: { 200: { description: "the blob's bytes: image/png or audio/wav for a task's outputs, else application/octet-stream", content: { 'application/octet-stream': { schema: Type.String({ format: 'binary' }) }, 'image/png': { schema: Type.String({ format: 'binary' }) }, 'audio/wav': { schema: Type.String({ format: 'binary' }) } } } },
    },
    schema: {
      tags: ['system'], summary: 'Download a blob through a signed link (expires, signature)',
      params: Type.Object({ '*': Type.String({ maxLength: 512 }) }),
      querystring: Type.Object({ expires: Type.String({ maxLength: 20 }), signature: Type.String({ maxLength: 100 }) }),
      response: errors(400, 403, 404),
    },
  }, async (req, reply) => {
    const key = (req.params as { '*': string })['*'];
    const { expires, signature } = req.query as { expires: string; signature: string };
    const blob = await openLinkedBlob(s.blobs, { key, expires, signature }, req.headers.range);
    reply.header('content-type', blob.contentType);
    // the type said is the type served: no browser guesses another from the bytes
    reply.header('x-content-type-options', 'nosniff');
    reply.header('accept-ranges', 'bytes');
    reply.header('cache-control', 'private, no-store');
    if (blob.range) {
      reply.code(206);
      reply.header('content-range', `bytes ${blob.range.start}-${blob.range.end}/${blob.bytes}`);
      reply.header('content-length', String(blob.range.end - blob.range.start + 1));
    } else {
      reply.header('content-length', String(blob.bytes));
    }
    return reply.send(blob.stream);
  });
}
