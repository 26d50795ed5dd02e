// A signed blob link (store/blobs/links.ts): `GET /blobs/{key}?expires=&signature=`. The
// signature is the credential (no API key), so a link can be handed to any HTTP client
// until it expires. Bytes stream from the blob store; one `Range: bytes=a-b` is honoured
// (206); a range that cannot be served is ignored and the whole blob sent (RFC 9110 allows it).
import { Type } from 'typebox';
import { AppError } from '../../../lib/errors.ts';
import { errors } from '../../schemas.ts';
import type { App, Services } from '../../types.ts';

/** One satisfiable-looking range `bytes=a-b` or `bytes=a-`; suffix and multiple ranges are not served. */
function parseRange(header: string | undefined): { start: number; end?: number } | undefined {
  const m = header ? /^bytes=(\d{1,15})-(\d{0,15})$/.exec(header.trim()) : null;
  if (!m) return undefined;
  const start = Number(m[1]);
  const end = m[2] ? Number(m[2]) : undefined;
  return end !== undefined && end < start ? undefined : { start, ...(end !== undefined ? { end } : {}) };
}

export default function getBlob(app: App, s: Pick<Services, 'blobs'>): void {
  const { store, links } = s.blobs;
  app.get('/blobs/*', {
    config: {
      family: 'account', auth: { kind: 'public' },
      docResponses: { 200: { description: "the blob's bytes", content: { 'application/octet-stream': { schema: Type.String({ format: 'binary' }) } } } },
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
    const check = links.check(key, expires, signature);
    if (check !== 'ok') throw new AppError('FORBIDDEN', check === 'expired' ? 'this link has expired' : 'this link is not valid', { rule: check });
    const stat = await store.stat(key).catch(() => undefined); // a key no link could name reads as absent
    if (!stat) throw new AppError('NOT_FOUND', 'the linked blob no longer exists', { resource: 'blob' });
    const range = parseRange(req.headers.range);
    const served = range && range.start < stat.bytes ? { start: range.start, end: Math.min(range.end ?? stat.bytes - 1, stat.bytes - 1) } : undefined;
    const stream = await store.get(key, served);
    reply.header('content-type', 'application/octet-stream');
    reply.header('accept-ranges', 'bytes');
    reply.header('cache-control', 'private, no-store');
    if (served) {
      reply.code(206);
      reply.header('content-range', `bytes ${served.start}-${served.end}/${stat.bytes}`);
      reply.header('content-length', String(served.end - served.start + 1));
    } else {
      reply.header('content-length', String(stat.bytes));
    }
    return reply.send(stream);
  });
}
