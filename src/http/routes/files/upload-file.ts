// POST /files: multipart `file` + `purpose=batch`, streamed to the blob store while it is
// checked (domain/files), within the team's storage quota (domain/storage: 403
// STORAGE_QUOTA_EXCEEDED). The multipart parser is registered for this route only; the parts
// reach the domain as plain objects in the order they were sent (the OpenAI SDKs send the
// file before the purpose).
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { closeIfUnread, declaredLength, partsOf, withMultipart } from '../../multipart.ts';
import { OPENAI_BASES, renderingOf, summary } from '../openai/bases.ts';
import { fileShapes } from './schemas.ts';
import { uploadFile, type Files } from '../../../domain/files/files.ts';
import type { Config } from '../../../config.ts';

export default function uploadFileRoute(app: App, s: { config: Config; files: Files }): void {
  const { maxBytes } = s.config.files;
  withMultipart(app, maxBytes, (child) => {
    for (const base of OPENAI_BASES) {
      const shapes = fileShapes(renderingOf(base));
      child.post(`${base}/files`, {
        config: { family: 'llm', auth: { kind: 'key', capability: 'callModels' } },
        bodyLimit: Number.MAX_SAFE_INTEGER, // the file's own limit is checked as it streams
        schema: {
          tags: ['llm'], summary: summary(base, 'Upload a batch input file (multipart: file, purpose=batch)'), security: KeyBearer,
          consumes: ['multipart/form-data'],
          response: { 200: shapes.file, ...errors(400, 401, 403, 415) },
        },
      }, async (req, reply) => {
        try {
          return shapes.view(await uploadFile(s.files, principalOf(req), partsOf(req, maxBytes), declaredLength(req)));
        } catch (err) {
          closeIfUnread(req, reply);
          throw err;
        }
      });
    }
  });
}
