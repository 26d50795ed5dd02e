// POST /v3/model/upload: a team's private record (multipart: the fields, then `file`). The
// record is listed with status 0 while its bytes are stored and hashed, then 1
// (domain/media/catalogue.ts; the path is Gantry's, docs/compat-decisions.md), within the
// team's storage quota (domain/storage).
import { errors, KeyBearer } from '../../schemas.ts';
import { principalOf, type App } from '../../types.ts';
import { closeIfUnread, declaredLength, partsOf, withMultipart } from '../../multipart.ts';
import { MediaModelRecord, UPLOAD_FIELDS_DOC } from './schemas.ts';
import { uploadMediaModel } from '../../../domain/media/catalogue.ts';
import type { Config } from '../../../config.ts';
import type { Media } from '../../../domain/media/context.ts';

export default function uploadModel(app: App, s: { config: Config; media: Media }): void {
  const maxBytes = s.config.media.uploadMaxBytes;
  withMultipart(app, maxBytes, (child) => {
    child.post('/v3/model/upload', {
      config: { family: 'media', auth: { kind: 'key', capability: 'callModels' } },
      bodyLimit: Number.MAX_SAFE_INTEGER, // the file's own limit is checked as it streams
      schema: {
        tags: ['media'], summary: `Upload a private model file (${UPLOAD_FIELDS_DOC})`, security: KeyBearer,
        consumes: ['multipart/form-data'],
        response: { 200: MediaModelRecord, ...errors(400, 401, 403, 415) },
      },
    }, async (req, reply) => {
      try {
        return await uploadMediaModel(s.media.catalogue, principalOf(req), partsOf(req, maxBytes), declaredLength(req));
      } catch (err) {
        closeIfUnread(req, reply);
        throw err;
      }
    });
  });
}
